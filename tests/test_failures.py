"""Failures that say what happened, each reaching the client (or the tool) in its own words.

Real SDK clients throughout: in memory where the outcome is visible in-process (on both
server SDKs), a stdio subprocess for a client that goes away, raw JSON-RPC over stdio for
2025-06-18 (which the SDK client cannot negotiate). Streamable HTTP settings are in
test_http_settings.py.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from elicitkit import ElicitError, FormDefinitionError, ask, requested_schema
from tests.sdks import ERAS, in_memory, new_server, tool_error
from tests.test_stdio import (
    REPO,
    TIMEOUT,
    check_params_on_wire,
    elicitation,
    raw_server,
    server_stderr,
)
from tests.waiting import wait_until

__all__ = ["server_stderr"]  # a fixture, used by name

OUTCOMES = REPO / "tests" / "servers" / "outcomes.py"


@dataclasses.dataclass
class Name:
    name: str


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


# --- the client goes away, or cancels, while a question is open ----------------------------


def test_a_client_that_disconnects_is_its_own_outcome(
    tmp_path: Path, server_stderr: IO[str]
) -> None:
    """MCPServer only: the stdio server script (tests/servers/outcomes.py) is an MCPServer.

    In memory the client cannot go away without taking the server's task group with it, so
    there is no disconnect to see in-process; a fastmcp variant needs a fastmcp script, which
    belongs with the stdio tests.
    """
    outcome = tmp_path / "outcome.txt"

    async def main() -> None:
        opened = anyio.Event()

        async def never_answers(context: Any, params: types.ElicitRequestParams) -> Any:
            opened.set()
            await anyio.sleep_forever()

        transport = stdio_client(
            StdioServerParameters(
                command=sys.executable, args=[str(OUTCOMES), str(outcome)], cwd=REPO
            ),
            errlog=server_stderr,
        )

        async def session() -> None:
            async with Client(
                transport, mode="legacy", elicitation_callback=never_answers
            ) as client:
                await client.call_tool("greet", {})

        async with anyio.create_task_group() as group:
            group.start_soon(session)
            with anyio.fail_after(TIMEOUT):
                await opened.wait()
            group.cancel_scope.cancel()  # the client goes away with the question open

    anyio.run(main)
    wait_until(outcome.exists, within=TIMEOUT, every=0.05, what="the server writing its outcome")
    assert outcome.read_text(encoding="utf-8") == (
        "ClientDisconnected (ElicitError): The client disconnected while the form was open, so "
        "there is no answer, and nothing more can reach that client on this call. Clean up and "
        "return."
    )


@pytest.mark.anyio
async def test_a_cancelled_call_cancels_the_tool_and_is_not_an_elicit_error(sdk: str) -> None:
    server = new_server(sdk, "cancel")
    outcomes: list[BaseException] = []
    recorded = anyio.Event()
    opened = anyio.Event()

    @server.tool()
    async def greet() -> str:
        try:
            answer = await ask(Name, "Who are you?")
        except BaseException as error:
            outcomes.append(error)
            recorded.set()
            raise
        return answer.unwrap().name

    async def answers_after_the_first(context: Any, params: Any) -> types.ElicitResult:
        if not opened.is_set():
            opened.set()
            await anyio.sleep_forever()
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(
        in_memory(server), mode="legacy", elicitation_callback=answers_after_the_first
    ) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "greet", {})
            with anyio.fail_after(TIMEOUT):
                await opened.wait()
            group.cancel_scope.cancel()  # the client sends notifications/cancelled
        with anyio.fail_after(TIMEOUT):
            await recorded.wait()
        # The connection is intact: the next call is asked and answered.
        assert text_of(await client.call_tool("greet", {})) == "Ada"
    [error] = outcomes
    assert isinstance(error, anyio.get_cancelled_exc_class())
    assert not isinstance(error, ElicitError)


# --- a form the negotiated version cannot express -------------------------------------------


def test_a_multi_select_on_2025_06_18_is_asked_as_checkboxes(server_stderr: IO[str]) -> None:
    """MCPServer only: only raw JSON-RPC reaches 2025-06-18, here over the stdio script."""
    with raw_server(OUTCOMES, server_stderr, "2025-06-18") as server:
        call = server.request("tools/call", {"name": "pizza", "arguments": {}})
        ask_id, params = elicitation(server.receive())
        check_params_on_wire(params, "2025-06-18")
        assert params["requestedSchema"] == {
            "type": "object",
            "properties": {
                "toppings__1": {"type": "boolean", "title": "Toppings: cheese", "default": False},
                "toppings__2": {"type": "boolean", "title": "Toppings: olives", "default": False},
                "toppings__3": {"type": "boolean", "title": "Toppings: basil", "default": False},
            },
        }
        # Some clients leave unticked boxes out: false either way.
        answer = {"action": "accept", "content": {"toppings__1": True, "toppings__3": True}}
        server.send({"id": ask_id, "jsonrpc": "2.0", "result": answer})
        response = server.response(call)
    assert response["result"]["content"] == [{"type": "text", "text": "cheese, basil"}]


# --- every form definition error that escapes a tool carries its message ---------------------


def make_broken_server(sdk: str) -> Any:
    server = new_server(sdk, "broken")

    @dataclasses.dataclass
    class Tags:
        tags: list[str]

    @dataclasses.dataclass
    class Login:
        password: str

    @server.tool()
    async def flat_only() -> str:
        await ask(Tags)
        return "unreachable"

    @server.tool()
    async def secret() -> str:
        await ask(Login)
        return "unreachable"

    @server.tool()
    async def schema_only() -> str:
        return str(requested_schema(Tags))  # no ask() at all: still readable

    @server.tool()
    async def caught() -> str:
        try:
            await ask(Tags)
        except FormDefinitionError as error:  # still the class the author knows
            return f"caught: {type(error).__name__}"
        return "unreachable"

    return server


TAGS = (
    "Cannot build a form field for 'tags' of Tags: list[str] has no flat JSON form. Use "
    "list[Literal[...]] or list[SomeEnum] for a multi-select."
)
LOGIN = (
    "Cannot build a form field for 'password' of Login: its name suggests a secret "
    "(password), and MCP forbids asking for secrets (passwords, API keys, tokens, one-time "
    "codes, payment card data) in form mode. Collect it on a page you control, opened with "
    "URL-mode elicitation: 'answer = await elicitkit.url.ask_url(\"Sign in to Acme\", page_url)' "
    "in the tool, then 'await elicitkit.url.complete_url(answer.content)' from the page's "
    "callback, or mark the field FormField(sensitive=False) if it holds no secret."
)


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("tool", "message"),
    [
        pytest.param("flat_only", TAGS, id="ask-unsupported-shape"),
        pytest.param("secret", LOGIN, id="ask-secret"),
        pytest.param("schema_only", TAGS, id="requested_schema-in-a-tool"),
    ],
)
async def test_form_definition_errors_reach_the_client(
    sdk: str, mode: str, version: str, tool: str, message: str
) -> None:
    asked: list[Any] = []

    async def callback(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="cancel")

    server = in_memory(make_broken_server(sdk))
    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        assert client.protocol_version == version
        result = await client.call_tool(tool, {})
    assert result.is_error
    assert text_of(result) == tool_error(sdk, tool, message)
    assert asked == []


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_form_definition_errors_can_still_be_caught(
    sdk: str, mode: str, version: str
) -> None:
    async with Client(in_memory(make_broken_server(sdk)), mode=mode) as client:
        result = await client.call_tool("caught", {})
    assert text_of(result) == "caught: FormDefinitionError"


@pytest.mark.anyio
async def test_a_huge_client_error_message_is_cut_short(sdk: str) -> None:
    server = new_server(sdk, "refusing")

    @server.tool()
    async def greet() -> str:
        return (await ask(Name, "Who?")).unwrap().name

    async def refusing(context: Any, params: Any) -> types.ErrorData:
        return types.ErrorData(code=-32001, message="x" * 1_000_000 + "\ud800")

    async with Client(in_memory(server), mode="legacy", elicitation_callback=refusing) as client:
        result = await client.call_tool("greet", {})
    assert text_of(result) == tool_error(
        sdk,
        "greet",
        "The client answered the form with an error instead of an answer: "
        + "x" * 297
        + "... (code -32001).",
    )
