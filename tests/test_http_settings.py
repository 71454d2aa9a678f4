"""Streamable HTTP server settings that leave a 2025-era call no way to ask mid-call.

A real uvicorn server on 127.0.0.1 and the real SDK client. On 2025-11-25 a server asks in
the middle of a call, on the POST's event stream; ``stateless_http=True`` (no session for
the answer to come back to) and ``json_response=True`` (one JSON reply, no stream) take
that away. The message names the server setting and the fix, not the client, which did
declare the capability. On 2026-07-28 the question ends the call instead, so both
settings work.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
import uvicorn
from mcp import Client
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp

from elicitkit import ask, install
from elicitkit.errors import ElicitationUnsupported
from tests.waiting import eventually

pytestmark = pytest.mark.anyio
TIMEOUT = 20.0


@dataclasses.dataclass
class Name:
    name: str


@asynccontextmanager
async def serving(app: ASGIApp) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port; yield its MCP URL."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)

        async def started() -> bool:  # uvicorn offers a flag, not an event
            return server.started

        await eventually(started, within=TIMEOUT, every=0.01, what="uvicorn starting")
        port = server.servers[0].sockets[0].getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True


def make_server() -> MCPServer:
    server = install(MCPServer("http"))

    @server.tool()
    async def greet() -> str:
        answer = await ask(Name, "Who are you?")
        return f"Hello {answer.unwrap().name}"

    @server.tool()
    async def greet_or_explain() -> str:
        try:
            answer = await ask(Name, "Who are you?")
        except ElicitationUnsupported as problem:
            return f"fallback: {problem}"
        return f"Hello {answer.unwrap().name}"

    return server


async def ada(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def cannot_ask(setting: str, why: str) -> str:
    return (
        "The server cannot ask the user anything during this call: it serves streamable HTTP "
        f"with {setting}=True, which {why}, so on MCP 2025-11-25 no question can reach the "
        f"client mid-call. Serve it with {setting}=False; clients on MCP 2026-07-28 are asked "
        "either way."
    )


STATELESS = cannot_ask("stateless_http", "keeps no session for the client's answer to come back to")
JSON_RESPONSE = cannot_ask("json_response", "answers each request with a single JSON reply")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        pytest.param({"stateless_http": True}, STATELESS, id="stateless_http"),
        pytest.param({"json_response": True}, JSON_RESPONSE, id="json_response"),
        pytest.param(
            {"stateless_http": True, "json_response": True}, STATELESS, id="both-settings"
        ),
    ],
)
async def test_the_server_setting_is_named_on_2025_11_25(
    settings: dict[str, bool], message: str
) -> None:
    app = make_server().streamable_http_app(**settings)
    async with (
        serving(app) as url,
        Client(url, mode="legacy", elicitation_callback=ada) as client,
    ):
        assert client.protocol_version == "2025-11-25"
        uncaught = await client.call_tool("greet", {})
        caught = await client.call_tool("greet_or_explain", {})
    assert uncaught.is_error
    assert text_of(uncaught) == f"Error executing tool greet: {message}"
    assert text_of(caught) == f"fallback: {message}"


@pytest.mark.parametrize(
    ("mode", "settings"),
    [
        pytest.param("legacy", {}, id="2025-11-25-default-settings"),
        pytest.param("auto", {}, id="2026-07-28-default-settings"),
        pytest.param("auto", {"stateless_http": True}, id="2026-07-28-stateless_http"),
        pytest.param("auto", {"json_response": True}, id="2026-07-28-json_response"),
    ],
)
async def test_forms_work_where_the_transport_allows(mode: str, settings: dict[str, bool]) -> None:
    app = make_server().streamable_http_app(**settings)
    async with serving(app) as url, Client(url, mode=mode, elicitation_callback=ada) as client:
        result = await client.call_tool("greet", {})
    assert text_of(result) == "Hello Ada"
