"""Suite-wide fixtures.

Every schema the suite renders is checked against the official grammar of its version, and
tests that take ``sdk`` run on both server SDKs. Tests of a module that starts real
processes carry the ``processes`` marker, which the contributor's quick loop leaves out.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

import elicitkit
import elicitkit._compiler.compiled_forms
from elicitkit.stores import MemoryStore, OutcomeStore, RedisStore
from tests.sdks import SDKS
from tests.spec_check import assert_spec_valid

_seen: list[tuple[dict[str, Any], str]] = []

# What a test module that starts real processes uses: servers over stdio (the SDK's or
# fastmcp's transport, or its own pipes), over HTTP in another process, a pseudo-terminal,
# a subprocess of any kind (a wheel build, a fresh interpreter). Read from the source, so a
# new module is marked without a list to keep up to date.
_STARTS_PROCESSES = re.compile(r"\b(subprocess|pexpect|stdio_client|StdioTransport|listening)\b")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of a module that starts processes with ``processes``."""
    starts: dict[Path, bool] = {}
    for item in items:
        path = Path(item.path)
        if path not in starts:
            starts[path] = bool(_STARTS_PROCESSES.search(path.read_text(encoding="utf-8")))
        if starts[path]:
            item.add_marker(pytest.mark.processes)


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
def redis_url() -> Iterator[str]:
    """A real redis-server for this test session (tests that share it use their own keys)."""
    from tests.redis_server import running_redis  # noqa: PLC0415

    with running_redis() as url:
        yield url


StoreFactory = Callable[[], OutcomeStore]


@pytest.fixture(params=["memory", "redis"])
async def stores(request: pytest.FixtureRequest) -> AsyncIterator[StoreFactory]:
    """Makes stores that share one backend: one memory store, or one real redis-server."""
    if request.param == "memory":
        shared = MemoryStore()
        yield lambda: shared
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
