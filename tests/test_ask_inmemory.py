"""ask() inside real MCPServer tools, with the real mcp.Client, in memory, on both eras."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

import anyio
import mcp_types as types
import pytest
from annotated_types import MinLen
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit import (
    ElicitationUnsupported,
    ElicitError,
    InvalidContent,
    ask,
    form,
    install,
    requested_schema,
)

pytestmark = pytest.mark.anyio

ERAS = [
    pytest.param("legacy", "2025-11-25", id="2025-11-25"),
    pytest.param("auto", "2026-07-28", id="2026-07-28"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@form(message="Where should we ship it?")
@dataclasses.dataclass
class Address:
    street: str
    city: str
    zip_code: Annotated[str, MinLen(4)]


Callback = Callable[[Any, types.ElicitRequestParams], Any]


def answering(*results: types.ElicitResult, seen: list[Any] | None = None) -> Callback:
    """A client callback that gives the results in order and records what it was asked."""
    queue = list(results)

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        if seen is not None:
            seen.append(params)
        return queue.pop(0)

    return callback


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


GOOD = {"street": "1 Main St", "city": "Oslo", "zip_code": "0150"}


def make_server() -> MCPServer:
    server = install(MCPServer("test"))

    @server.tool()
    async def ship(item: str) -> str:
        answer = await ask(Address, retries=0)  # re-asking: tests/test_retry.py
        if answer.is_accepted():
            assert answer.content is not None
            return f"{item} to {answer.content.city}"
        return f"no address ({answer.action})"

    @server.tool()
    async def ship_or_explain(item: str) -> str:
        try:
            answer = await ask(Address, f"Where should we ship {item}?", retries=0)
        except ElicitationUnsupported as problem:
            return f"fallback: {problem}"
        except InvalidContent as problem:
            return "invalid: " + " | ".join(f"{e.field}={e.message}" for e in problem.errors)
        return answer.unwrap().city

    @server.tool()
    async def must_accept() -> str:
        return (await ask(Address, retries=0)).unwrap().city

    @server.tool()
    async def confirm(question: str) -> str:
        answer = await ask(bool, question)
        return f"{answer.action}:{answer.content}"

    return server


@pytest.fixture
def server() -> MCPServer:
    return make_server()


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_accept(server: MCPServer, mode: str, version: str) -> None:
    seen: list[Any] = []
    async with Client(
        server, mode=mode, elicitation_callback=answering(accept(**GOOD), seen=seen)
    ) as client:
        assert client.protocol_version == version
        result = await client.call_tool("ship", {"item": "book"})
    assert not result.is_error
    assert text_of(result) == "book to Oslo"
    [params] = seen
    assert params.message == "Where should we ship it?"  # the @form default
    assert params.requested_schema == requested_schema(Address, protocol=version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_decline_and_cancel_are_results(
    server: MCPServer, mode: str, version: str, action: str
) -> None:
    callback = answering(types.ElicitResult(action=action))  # type: ignore[arg-type]
    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert text_of(result) == f"no address ({action})"


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_bare_type_form(server: MCPServer, mode: str, version: str) -> None:
    seen: list[Any] = []
    callback = answering(accept(value=True), seen=seen)
    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("confirm", {"question": "Delete 3 files?"})
    assert text_of(result) == "accept:True"
    assert seen[0].message == "Delete 3 files?"
    assert seen[0].requested_schema == {
        "type": "object",
        "properties": {"value": {"type": "boolean", "title": "Confirm", "default": False}},
        "required": ["value"],
    }


UNSUPPORTED = (
    "This client cannot show forms (it did not declare the elicitation capability), so the "
    "tool could not ask the user for Address."
)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_missing_capability_can_be_caught(server: MCPServer, mode: str, version: str) -> None:
    async with Client(server, mode=mode) as client:  # no callback: no elicitation capability
        result = await client.call_tool("ship_or_explain", {"item": "book"})
    assert text_of(result) == f"fallback: {UNSUPPORTED}"


async def test_missing_capability_uncaught_on_2025_11_25(server: MCPServer) -> None:
    async with Client(server, mode="legacy") as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == f"Error executing tool ship: {UNSUPPORTED}"


async def test_missing_capability_uncaught_on_2026_07_28_is_the_spec_error(
    server: MCPServer,
) -> None:
    async with Client(server) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("ship", {"item": "book"})
    assert caught.value.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY == -32021
    assert caught.value.message == UNSUPPORTED
    assert caught.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}


BAD = {"street": "1 Main St", "zip_code": "1"}


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_invalid_answer_uncaught_reads_as_field_errors(
    server: MCPServer, mode: str, version: str
) -> None:
    async with Client(server, mode=mode, elicitation_callback=answering(accept(**BAD))) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == (
        "Error executing tool ship: The answer to Address has 2 problems: city: This field is "
        "required. zip_code: Must be at least 4 characters long."
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_invalid_answer_can_be_caught(server: MCPServer, mode: str, version: str) -> None:
    async with Client(server, mode=mode, elicitation_callback=answering(accept(**BAD))) as client:
        result = await client.call_tool("ship_or_explain", {"item": "book"})
    assert text_of(result) == (
        "invalid: city=This field is required. | zip_code=Must be at least 4 characters long."
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("decline", "The user declined the form."),
        ("cancel", "The user dismissed the form without answering."),
    ],
)
async def test_unwrap_of_a_refusal_reads_well_uncaught(
    server: MCPServer, mode: str, version: str, action: str, message: str
) -> None:
    callback = answering(types.ElicitResult(action=action))  # type: ignore[arg-type]
    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("must_accept", {})
    assert result.is_error
    assert text_of(result) == f"Error executing tool must_accept: {message}"


async def test_client_error_answer_on_2025_11_25(server: MCPServer) -> None:
    async def refusing(context: Any, params: Any) -> types.ErrorData:
        return types.ErrorData(code=-32001, message="the user closed the window")

    async with Client(server, mode="legacy", elicitation_callback=refusing) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == (
        "Error executing tool ship: The client answered the form with an error instead of an "
        "answer: the user closed the window (code -32001)."
    )


async def test_accept_without_content_reports_required_fields(server: MCPServer) -> None:
    callback = answering(types.ElicitResult(action="accept"))
    async with Client(server, mode="legacy", elicitation_callback=callback) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert text_of(result) == (
        "Error executing tool ship: The answer to Address has 3 problems: street: This field "
        "is required. city: This field is required. zip_code: This field is required."
    )


async def test_caught_errors_are_still_elicitkit_errors(server: MCPServer) -> None:
    caught: list[BaseException] = []
    app = install(MCPServer("catching"))

    @app.tool()
    async def probe() -> str:
        try:
            await ask(Address, retries=0)
        except ElicitError as error:
            caught.append(error)
        return "done"

    async with Client(app, mode="legacy", elicitation_callback=answering(accept(**BAD))) as client:
        await client.call_tool("probe", {})
    [error] = caught
    assert isinstance(error, InvalidContent)
    assert [e.field for e in error.errors] == ["city", "zip_code"]


async def test_ask_outside_a_tool() -> None:
    with pytest.raises(ElicitError) as caught:
        await ask(Address)
    assert str(caught.value) == (
        "ask() was called outside a tool call of a server elicitkit is installed on, so there "
        "is no client to ask. Call elicitkit.install(server) once after creating the server, "
        "and call ask() only inside its tools."
    )


async def test_install_twice_is_harmless() -> None:
    server = MCPServer("twice")
    assert install(server) is server
    before = list(server.middleware)
    assert install(server) is server
    assert server.middleware == before
    middleware = elicitkit.integrations.mcp.ElicitkitMiddleware
    assert sum(isinstance(m, middleware) for m in server.middleware) == 1


def test_install_refuses_other_objects() -> None:
    with pytest.raises(TypeError) as caught:
        install(object())
    assert str(caught.value) == (
        "Cannot install elicitkit on a builtins.object: install() takes the official SDK's "
        "server, mcp.server.mcpserver.MCPServer, or fastmcp's, fastmcp.FastMCP. Pass one of "
        "those."
    )


def test_install_refuses_a_server_without_its_state_boundary() -> None:
    server = MCPServer("bare")
    server.middleware.clear()
    with pytest.raises(TypeError, match=r"^Cannot install elicitkit on this MCPServer"):
        install(server)


async def test_tools_without_ask_and_other_requests_are_untouched(server: MCPServer) -> None:
    @server.tool()
    async def add(a: int, b: int) -> int:
        return a + b

    for mode in ("legacy", "auto"):
        async with Client(server, mode=mode) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {
                "result": 5
            }
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"ship", "add"} <= names


async def test_form_definition_error_is_raised_before_anything_is_sent() -> None:
    app = install(MCPServer("broken"))
    asked: list[Any] = []

    @app.tool()
    async def broken() -> str:
        @dataclasses.dataclass
        class Tags:
            tags: list[str]

        await ask(Tags)
        return "unreachable"

    async with Client(app, mode="legacy", elicitation_callback=answering(seen=asked)) as client:
        result = await client.call_tool("broken", {})
    assert result.is_error
    assert asked == []


async def test_concurrent_legacy_calls_keep_their_own_answers() -> None:
    app = install(MCPServer("concurrent"))

    @app.tool()
    async def city_of(person: str) -> str:
        answer = await ask(Address, f"Address of {person}?")
        return answer.unwrap().city

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        person = params.message.removeprefix("Address of ").removesuffix("?")
        await anyio.sleep(0.01 if person == "ann" else 0)
        return accept(street="x", city=f"{person}-town", zip_code="0000")

    results: dict[str, str] = {}
    async with Client(app, mode="legacy", elicitation_callback=callback) as client:

        async def one(person: str) -> None:
            results[person] = text_of(await client.call_tool("city_of", {"person": person}))

        async with anyio.create_task_group() as group:
            for person in ("ann", "bob", "cy"):
                group.start_soon(one, person)
    assert results == {"ann": "ann-town", "bob": "bob-town", "cy": "cy-town"}
