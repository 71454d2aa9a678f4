"""Suite-wide fixtures.

Every schema the suite renders is checked against the official grammar of its version, and
tests that take ``sdk`` run on both server SDKs. A test that starts real processes (a
redis-server, a fresh interpreter, a server over stdio or HTTP, a pseudo-terminal, a
browser, a wheel build) does so through a fixture that depends on `starts_processes`; such
a test carries the ``processes`` marker, which the contributor's quick loop leaves out, and
any other test that starts a process fails, saying which and how to fix it.
"""

from __future__ import annotations

import asyncio
import os
import pty
import secrets
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from redis.asyncio import Redis

import elicitkit
import elicitkit._compiler.compiled_forms
import elicitkit._runtime.url_routes
from elicitkit.stores import MemoryStore, OutcomeStore, RedisStore, SqliteStore
from tests import python_child, redis_server
from tests.python_child import RunPython
from tests.redis_server import ON_REDIS, RedisProcessFactory, running_redis
from tests.sdks import SDKS
from tests.spec_check import assert_spec_valid

# Every server the suite builds without a store keeps its record file and key in a folder
# of this run (children inherit it), never in the user's own state folder.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="elicitkit-state-")
for _variable in ("ELICITKIT_STORE", "ELICITKIT_REDIS_URL", "MCP_REQUEST_STATE_KEY"):
    os.environ.pop(_variable, None)

_seen: list[tuple[dict[str, Any], str]] = []

STARTS_PROCESSES = "starts_processes"
"""The fixture every process-starting fixture depends on: what marks an item ``processes``."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``processes`` every test whose fixtures (their whole closure) start processes."""
    for item in items:
        if STARTS_PROCESSES in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.processes)


class _InteropOnOneWorker:
    """On several workers (``pytest -n 2``, as .ci/tests runs), the interop suite on one.

    Its tests run one after another on that worker, as when run alone: one session's
    artifacts folder and observations.json, and never two browsers or Node clients at once
    on two cores. Every other test is a unit of its own, spread over both workers. (The
    same as ``--dist loadgroup`` with an ``xdist_group`` marker, which pytest-xdist 3.8 no
    longer applies on pytest 9: it rewrites ``item._nodeid``, which pytest 9 does not read.)
    """

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        from xdist.scheduler import LoadScopeScheduling  # noqa: PLC0415  (only under xdist)

        class InteropOnOneWorker(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return "interop" if nodeid.startswith("tests/interop/") else nodeid

        return InteropOnOneWorker(config, log)


def pytest_configure(config: pytest.Config) -> None:
    # Registered only with xdist loaded: without it (-p no:xdist) the hook is unknown.
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_InteropOnOneWorker(), "interop-on-one-worker")


def _quick_loop_fix(node: pytest.Item) -> str:
    return (
        f"{node.nodeid} is in the quick loop (not marked processes), so it may not start a "
        "process: take the process through a fixture that depends on starts_processes "
        "(redis_url, run_python, a module's own), or add starts_processes to the test's "
        "fixtures, and tests/conftest.py marks it processes."
    )


@pytest.fixture(scope="session")
def starts_processes() -> None:
    """Lets a test start processes; every fixture that starts one depends on this one.

    Requested by name, by the test or through its fixtures, it marks the test ``processes``
    at collection (session-scoped, so fixtures of any scope can depend on it).
    """


@pytest.fixture(autouse=True)
def _no_processes_in_the_quick_loop(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test of the quick loop that starts a process fails, saying which and the fix.

    Patched where every way of starting one ends: subprocess (and through it asyncio's and
    anyio's subprocesses, the SDK's stdio client), fork (pexpect's pseudo-terminals,
    multiprocessing) and spawn. The interop suite (browsers, real clients) is its own loop.
    """
    if any(request.node.get_closest_marker(name) for name in ("processes", "interop")):
        return
    sentence = _quick_loop_fix(request.node)

    def refuse(*_args: object, **_kwargs: object) -> Any:
        raise AssertionError(sentence)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    monkeypatch.setattr(asyncio, "create_subprocess_exec", refuse)
    monkeypatch.setattr(asyncio, "create_subprocess_shell", refuse)
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse)
    monkeypatch.setattr(pty, "fork", refuse)


@pytest.fixture(autouse=True)
def _each_test_routes_its_own_urls() -> Iterator[None]:
    """Forget, after each test, the URL routers its servers were installed with.

    A process keeps the routers of the servers it installed, so that `complete_url(id)`
    can find the id; install() puts one beside every SQLite or Redis store. A test is a
    process of its own here: a later test's `complete_url` must not ask the routers of
    earlier tests' servers, whose Redis clients and event loops are closed.
    """
    yield
    elicitkit._runtime.url_routes._installed.clear()  # pyright: ignore[reportPrivateUsage]
    elicitkit._runtime.url_routes._placed.clear()  # pyright: ignore[reportPrivateUsage]


@pytest.fixture(autouse=True)
def _check_every_rendered_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Record each schema a test renders through requested_schema, then validate them all."""
    original = elicitkit._compiler.compiled_forms.render_schema

    def recording(spec: Any, protocol: Any, **kwargs: Any) -> dict[str, Any]:
        schema = original(spec, protocol, **kwargs)
        _seen.append((schema, protocol))
        return schema

    monkeypatch.setattr(elicitkit._compiler.compiled_forms, "render_schema", recording)
    # so cached schemas are rendered (and checked) again
    elicitkit._compiler.compiled_forms.forget_schemas()
    _seen.clear()
    yield
    for schema, protocol in _seen:
        assert_spec_valid(schema, protocol)


@pytest.fixture(scope="session")
def redis_url(starts_processes: None) -> Iterator[str]:
    """A real redis-server for this test session (tests that share it use their own keys).

    A ``"redis"`` parameter whose test asks for it on demand (``request.getfixturevalue``)
    carries the mark itself (``tests.redis_server.ON_REDIS``): marking comes at collection.
    """
    with running_redis() as url:
        yield url


@pytest.fixture
def redis_process(starts_processes: None) -> RedisProcessFactory:
    """Starts redis-servers a test can kill, restart and pause (tests/redis_server.py)."""
    return redis_server.redis_process


@pytest.fixture
def run_python(starts_processes: None) -> RunPython:
    """Runs a snippet of Python in a fresh interpreter of this checkout (tests/python_child.py)."""
    return python_child.run_python


StoreFactory = Callable[[], OutcomeStore]


@pytest.fixture(params=["memory", "sqlite", ON_REDIS])
async def stores(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[StoreFactory]:
    """Makes stores that share one backend: one memory store, one SQLite file (a connection
    each, as processes have), or one real redis-server."""
    if request.param == "memory":
        shared = MemoryStore()
        yield lambda: shared
        return
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("records") / "records.sqlite3"
        yield lambda: SqliteStore(path)
        return
    url = request.getfixturevalue("redis_url")
    prefix = f"test:{secrets.token_hex(4)}:"
    clients: list[Redis] = []

    def make() -> OutcomeStore:
        client = Redis.from_url(url)
        clients.append(client)
        return RedisStore(client, prefix=prefix)

    yield make
    for client in clients:
        await client.aclose()


@pytest.fixture(params=SDKS)
def sdk(request: pytest.FixtureRequest) -> str:
    """The server SDK a test runs on: the official ``mcp`` or ``fastmcp`` (tests/sdks.py)."""
    return str(request.param)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, the backend both SDKs run on."""
    return "asyncio"
