"""A server elicitkit was never installed on: the client reads why, not "Error executing tool".

tests/servers/uninstalled.py is a real server, as an author who forgot ``install(server)``
writes it, on each server SDK (fastmcp with ``mask_error_details=True``, which hides the text
of everything but a ``ToolError``). Each of its tools asks in one of elicitkit's ways; every
call must come back as an error result carrying elicitkit's sentence, over stdio and
streamable HTTP, on every era: 2025-11-25 and 2026-07-28 through the SDK's client,
2025-06-18 in raw JSON-RPC over stdio (the SDK clients cannot negotiate it). And the
server's log holds one line per failure, not a traceback.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from tests.loopback import free_port, listening
from tests.sdks import ERAS, SDKS

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "tests" / "servers" / "uninstalled.py"
ENV = {
    **get_default_environment(),
    "PYTHONPATH": str(REPO),
    # The run's own state folder (tests/conftest.py): the servers' record files and keys.
    "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
}
TIMEOUT = 30.0

# tool -> the function its error names
ASKS = {
    "greet": "ask()",
    "confirm_it": "confirm()",  # a one-liner is named, though it asks through ask()
    "choose_it": "choose()",
    "text_it": "ask_text()",
    "both": "ask_all()",
    "act": "step()",
    "link": "ask_url()",
}


def sentence(function: str) -> str:
    return (
        f"{function} was called outside a tool call of a server elicitkit is installed on, so "
        "there is no client to ask. Call elicitkit.install(server) once after creating the "
        f"server, and call {function} only inside its tools."
    )


def expected(sdk: str, tool: str) -> str:
    """The error result's text: MCPServer prefixes a ToolError's text, fastmcp shows it bare."""
    text = sentence(ASKS[tool])
    return f"Error executing tool {tool}: {text}" if sdk == "mcp" else text


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result
    [content] = result.content
    assert isinstance(content, types.TextContent), content
    return content.text


@pytest.fixture
def server_log(starts_processes: None) -> Iterator[IO[str]]:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        yield log


def logged(log: IO[str]) -> str:
    log.flush()
    log.seek(0)
    return log.read()


def assert_no_traceback(log: IO[str]) -> None:
    text = logged(log)
    assert "Traceback" not in text, text


async def call_every_tool(client: Client) -> dict[str, str]:
    return {tool: error_text(await client.call_tool(tool, {})) for tool in ASKS}


async def _answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    raise AssertionError(f"no question can be asked, but one was: {params}")


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize("sdk", SDKS)
def test_over_stdio(sdk: str, mode: str, protocol: str, server_log: IO[str]) -> None:
    async def main() -> tuple[str, dict[str, str]]:
        transport = stdio_client(
            StdioServerParameters(
                command=sys.executable, args=[str(SERVER), sdk, "stdio"], cwd=REPO, env=ENV
            ),
            errlog=server_log,
        )
        with anyio.fail_after(TIMEOUT):
            async with Client(
                transport, mode=mode, elicitation_callback=_answer, read_timeout_seconds=TIMEOUT
            ) as client:
                return client.protocol_version, await call_every_tool(client)

    negotiated, texts = anyio.run(main)
    assert negotiated == protocol
    assert texts == {tool: expected(sdk, tool) for tool in ASKS}
    assert_no_traceback(server_log)


@pytest.fixture(scope="module", params=SDKS)
def http_url(request: pytest.FixtureRequest, starts_processes: None) -> Iterator[tuple[str, str]]:
    sdk: str = request.param
    port = free_port()
    command = [sys.executable, str(SERVER), sdk, "http", str(port)]
    with listening(command, port, env=ENV):
        yield sdk, f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
def test_over_http(http_url: tuple[str, str], mode: str, protocol: str) -> None:
    sdk, url = http_url

    async def main() -> tuple[str, dict[str, str]]:
        with anyio.fail_after(TIMEOUT):
            async with Client(url, mode=mode, elicitation_callback=_answer) as client:  # type: ignore[arg-type]
                return client.protocol_version, await call_every_tool(client)

    negotiated, texts = anyio.run(main)
    assert negotiated == protocol
    assert texts == {tool: expected(sdk, tool) for tool in ASKS}


class Raw:
    """The server over stdio in newline-delimited JSON-RPC, every read bounded."""

    def __init__(self, sdk: str, log: IO[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), sdk, "stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=REPO,
            env=ENV,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request; return its response (a question from the server fails the test)."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            assert line is not None, "the server closed its stdout"
            message: dict[str, Any] = json.loads(line)
            if "id" in message:
                assert message["id"] == self.next_id, message
                assert "method" not in message, f"the server asked: {message}"
                return message

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            assert self.process.stdout is not None
            self.process.stdout.close()


@pytest.mark.parametrize("sdk", SDKS)
def test_raw_2025_06_18(sdk: str, server_log: IO[str]) -> None:
    raw = Raw(sdk, server_log)
    try:
        init = raw.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        assert init["result"]["protocolVersion"] == "2025-06-18"
        raw.send({"method": "notifications/initialized"})
        texts = {}
        for tool in ASKS:
            result = raw.request("tools/call", {"name": tool, "arguments": {}})["result"]
            assert result["isError"] is True, result
            [content] = result["content"]
            texts[tool] = content["text"]
    finally:
        raw.close()
    assert texts == {tool: expected(sdk, tool) for tool in ASKS}
    assert_no_traceback(server_log)
