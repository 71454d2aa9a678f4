"""A real ``redis-server`` for the tests: started on a free loopback port, stopped after.

`running_redis` serves a whole session. `RedisProcess` is one the fault-injection tests
kill, restart (empty, or from its append-only file), pause and resume on one port. Tests
reach them through fixtures (tests/conftest.py: ``redis_url``, ``redis_process``), which
mark them ``processes``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

from tests.loopback import free_port

ON_REDIS = pytest.param("redis", marks=pytest.mark.processes)
"""A ``"redis"`` parameter whose test asks for ``redis_url`` on demand: marked by itself.

(``request.getfixturevalue`` comes too late for the fixtures to mark the test.)
"""


RedisProcessFactory = Callable[..., AbstractContextManager["RedisProcess"]]
"""`redis_process`'s type, for the fixture of that name (tests/conftest.py) that tests take."""


def _binary() -> str:
    binary = shutil.which("redis-server")
    assert binary is not None, "redis-server is not installed: .ci/run installs it (apt-get)"
    return binary


def _wait_until_it_answers(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as connection:
                connection.sendall(b"PING\r\n")
                if connection.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        assert process.poll() is None, "redis-server exited at start"
        assert time.monotonic() < deadline, "redis-server did not answer within 10 s"
        time.sleep(0.02)


@contextmanager
def running_redis() -> Iterator[str]:
    """Start ``redis-server`` (Debian package ``redis-server``) and yield its URL."""
    port = free_port()
    process = subprocess.Popen(
        [_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_it_answers(process, port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


class RedisProcess:
    """A redis-server on one port that a test can kill, restart, pause and resume.

    Attributes:
        port: Its port, the same across restarts (clients reconnect to it).
        url: Its ``redis://`` URL.
        directory: Where its append-only file lives (with ``durable=True``).
    """

    def __init__(self, directory: str, *, durable: bool = False, settings: tuple[str, ...] = ()):
        """Prepare a server in ``directory``; ``durable``: AOF with ``appendfsync always``."""
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.directory = directory
        self.durable = durable
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.paused = False

    def start(self) -> None:
        """Start it (empty, unless durable and its append-only file has data)."""
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always", "--dir", self.directory]
            if self.durable
            else ["--appendonly", "no"]
        )
        where = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        debug = ["--enable-debug-command", "local"]  # DEBUG SLEEP, from loopback only
        self.process = subprocess.Popen(
            [_binary(), *where, *debug, *persistence, *self.settings],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_until_it_answers(self.process, self.port)

    def kill(self) -> None:
        """SIGKILL it: what a crash or an out-of-memory kill does."""
        assert self.process is not None
        self.resume()
        self.process.kill()
        self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        """Kill it and start it again on the same port."""
        self.kill()
        self.start()

    def pause(self) -> None:
        """SIGSTOP it: it accepts connections (the kernel does) but answers nothing."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        """SIGCONT it, if paused."""
        if self.process is not None and self.paused:
            os.kill(self.process.pid, signal.SIGCONT)
        self.paused = False


@contextmanager
def redis_process(
    *, durable: bool = False, settings: tuple[str, ...] = ()
) -> Iterator[RedisProcess]:
    """A started `RedisProcess`, killed on leaving whatever state the test left it in."""
    with tempfile.TemporaryDirectory() as directory:
        server = RedisProcess(directory, durable=durable, settings=settings)
        server.start()
        try:
            yield server
        finally:
            if server.process is not None:
                server.kill()
