"""Examples started by a client stay silent; the HTTP one says where it listens.

(A stdio example started at a terminal says how to connect: tests/test_terminal_pty.py.)
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.loopback import free_port

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

EXAMPLES = Path(__file__).parents[1] / "examples"
STDIO_EXAMPLES = ["shipping.py", "booking.py", "fastmcp_server.py"]


def _first_stderr_line(command: list[str], *, terminal: bool) -> str:
    parent, child = pty.openpty()
    process = subprocess.Popen(
        command,
        stdin=child if terminal else subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(child)
    try:
        if not terminal:
            assert process.stdin is not None
            process.stdin.close()  # a client that hangs up at once: the server exits
            process.wait(timeout=20)
        assert process.stderr is not None
        return process.stderr.readline().decode()
    finally:
        process.terminate()
        process.wait(timeout=10)
        os.close(parent)
        assert process.stderr is not None
        process.stderr.close()


@pytest.mark.parametrize("example", STDIO_EXAMPLES)
def test_a_stdio_example_started_by_a_client_prints_nothing(example: str) -> None:
    assert _first_stderr_line([sys.executable, str(EXAMPLES / example)], terminal=False) == ""


def test_the_http_example_says_where_it_listens() -> None:
    port = free_port()
    command = [sys.executable, str(EXAMPLES / "http_server.py"), "--port", str(port)]
    line = _first_stderr_line([*command, "--stateless"], terminal=True)
    assert line == (
        f"MCP server over streamable HTTP at http://127.0.0.1:{port}/mcp (forms work on "
        "2026-07-28 only). Point an MCP client that can show forms at that URL; Ctrl-C stops.\n"
    )
