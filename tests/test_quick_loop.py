"""The README's quick loop: ``-m "not interop and not processes"`` starts no process.

tests/conftest.py marks ``processes`` every test whose fixtures, in their whole closure,
include ``starts_processes`` (every fixture that starts a redis-server, an interpreter, a
server, a terminal depends on it), and fails any other test that starts one. Here: the
suite collected as the quick loop collects it holds no such test, and the guard refuses.
"""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parent.parent
QUICK = "not interop and not processes"
PROCESS_FIXTURES = {"starts_processes", "redis_url", "redis_process", "run_python"}


class _Collected:
    """Records the items a collection keeps: node id, fixture closure, ``processes`` mark."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[frozenset[str], bool]] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            closure = frozenset(getattr(item, "fixturenames", ()))
            self.items[item.nodeid] = (closure, item.get_closest_marker("processes") is not None)


def collected(*args: str) -> dict[str, tuple[frozenset[str], bool]]:
    """Collect in this process, as ``pytest --co`` with ``args`` would, and say what was kept."""
    recorder = _Collected()
    status = pytest.main(
        ["--co", "-q", "-p", "no:cacheprovider", "--rootdir", str(REPO), *args],
        plugins=[recorder],
    )
    assert status == pytest.ExitCode.OK, f"collecting {args} ended with {status!r}"
    return recorder.items


@pytest.fixture(scope="module")
def quick_loop() -> dict[str, tuple[frozenset[str], bool]]:
    return collected("-m", QUICK, str(REPO / "tests"))


def test_no_test_of_the_quick_loop_uses_a_process_fixture(
    quick_loop: dict[str, tuple[frozenset[str], bool]],
) -> None:
    assert len(quick_loop) > 1000  # the whole suite's in-process part was collected
    users = {node: sorted(closure & PROCESS_FIXTURES) for node, (closure, _) in quick_loop.items()}
    assert {node: names for node, names in users.items() if names} == {}
    assert not any(marked for _, marked in quick_loop.values())


def _modules(items: dict[str, tuple[frozenset[str], bool]]) -> set[str]:
    return {node.split("::")[0] for node in items}


def test_the_modules_that_start_processes_through_helpers_keep_only_in_process_tests(
    quick_loop: dict[str, tuple[frozenset[str], bool]],
) -> None:
    # Before, a regex over the source left these in the quick loop whole, with their
    # redis-servers and interpreters.
    kept = _modules(quick_loop)
    assert "tests/test_import_footprint.py" not in kept  # every test runs an interpreter
    for module in ("test_stores", "test_replay_once", "test_steps", "test_url_routes"):
        # In-process tests stay; their "redis" variants, which start a server, leave.
        ids = [node for node in quick_loop if node.startswith(f"tests/{module}.py::")]
        assert ids, module
        assert not [node for node in ids if "redis" in node.split("::")[-1]], module


def test_the_quick_loop_leaves_out_the_modules_that_start_processes() -> None:
    modules = [
        "tests/test_stdio.py",  # servers over stdio
        "tests/test_terminal_pty.py",  # a pseudo-terminal
        "tests/test_scaleout.py",  # HTTP workers
        "tests/test_import_footprint.py",  # fresh interpreters
        "tests/test_schema_table.py",  # in process
        "tests/test_ask_inmemory.py",  # the SDK's client and server, in memory
    ]
    paths = [str(REPO / module) for module in modules]
    assert _modules(collected("-m", QUICK, *paths)) == {
        "tests/test_schema_table.py",
        "tests/test_ask_inmemory.py",
    }
    assert _modules(collected("-m", "processes", *paths)) == set(modules[:4])


def _refusal(test: str) -> str:
    return (
        f"tests/test_quick_loop.py::{test} is in the quick loop (not marked processes), so "
        "it may not start a process: take the process through a fixture that depends on "
        "starts_processes (redis_url, run_python, a module's own), or add starts_processes "
        "to the test's fixtures, and tests/conftest.py marks it processes."
    )


def test_a_quick_loop_test_that_starts_a_process_fails_saying_how_to_fix_it() -> None:
    said = _refusal("test_a_quick_loop_test_that_starts_a_process_fails_saying_how_to_fix_it")
    with pytest.raises(AssertionError) as subprocess_run:
        subprocess.run([sys.executable, "-c", "pass"], check=False)
    with pytest.raises(AssertionError) as forked:
        os.fork()
    with pytest.raises(AssertionError) as terminal:
        pty.fork()  # what pexpect does
    with pytest.raises(AssertionError) as spawned:
        os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], os.environ)
    for raised in (subprocess_run, forked, terminal, spawned):
        assert str(raised.value) == said


async def test_an_asyncio_subprocess_in_the_quick_loop_fails_too() -> None:
    # The SDK's stdio client starts its server through anyio, which ends in asyncio's.
    said = _refusal("test_an_asyncio_subprocess_in_the_quick_loop_fails_too")
    with pytest.raises(AssertionError) as through_anyio:
        await anyio.open_process([sys.executable, "-c", "pass"])
    with pytest.raises(AssertionError) as through_asyncio:
        await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    assert str(through_anyio.value) == str(through_asyncio.value) == said
