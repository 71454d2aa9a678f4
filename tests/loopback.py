"""Loopback helpers shared by the tests that start real servers."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest
import uvicorn

from tests.waiting import eventually


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """Serve an ASGI app with uvicorn in this process on a free port; yield its base URL."""
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    task = asyncio.create_task(web.serve())
    try:

        async def started() -> bool:
            assert not task.done(), "uvicorn stopped before it started"
            return web.started

        await eventually(started, within=30, every=0.01, what="uvicorn starting")
        yield f"http://127.0.0.1:{port}"
    finally:
        web.should_exit = True
        await task


@contextmanager
def listening(
    command: list[str],
    port: int,
    *,
    env: Mapping[str, str] | None = None,
    within: float = 30.0,
) -> Iterator[subprocess.Popen[bytes]]:
    """Start ``command``, wait until it listens on ``port``, yield it; stop it on leaving.

    A process that exits, or does not listen within ``within`` seconds, fails the test
    with what it wrote to stderr (kept in a file, so a chatty server never blocks).
    """
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            command,
            env=None if env is None else dict(env),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            deadline = time.monotonic() + within
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        _stop(process)
                        stderr.seek(0)
                        said = stderr.read().decode(errors="replace")[-3000:]
                        pytest.fail(f"{' '.join(command[1:2])} did not start: {said}")
                    time.sleep(0.05)
            yield process
        finally:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
