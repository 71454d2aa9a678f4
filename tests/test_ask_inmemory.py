"""ask() inside real tools of both server SDKs, with the real mcp.Client, in memory, on both eras.

Every test that takes ``sdk`` runs on the official ``MCPServer`` and on fastmcp's ``FastMCP``;
the fastmcp-only cases (its own client, ``mask_error_details``, its guard pattern) are at the end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

import anyio
import anyio.lowlevel
import mcp_types as types
import pytest
from annotated_types import MinLen
from fastmcp import Client as FastMCPClient
from fastmcp import Context, FastMCP
from fastmcp.client.elicitation import ElicitResult
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit import ElicitError, InvalidContent, ask, form, install, requested_schema
from elicitkit.errors import ElicitationUnsupported
from elicitkit.stores import MemoryStore
from elicitkit.testing import FakeClock
from tests.mrtr import never_called, only_question, retry
from tests.sdks import ERAS, in_memory, new_server, tool_error

pytestmark = pytest.mark.anyio


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


def make_server(sdk: str, **options: Any) -> Any:
    server = new_server(sdk, **options)

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
def server(sdk: str) -> Any:
    return make_server(sdk)


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_accept(server: Any, mode: str, version: str) -> None:
    seen: list[Any] = []
    async with Client(
        in_memory(server), mode=mode, elicitation_callback=answering(accept(**GOOD), seen=seen)
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
    server: Any, mode: str, version: str, action: str
) -> None:
    callback = answering(types.ElicitResult(action=action))  # type: ignore[arg-type]
    async with Client(in_memory(server), mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert text_of(result) == f"no address ({action})"


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_bare_type_form(server: Any, mode: str, version: str) -> None:
    seen: list[Any] = []
    callback = answering(accept(value=True), seen=seen)
    async with Client(in_memory(server), mode=mode, elicitation_callback=callback) as client:
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
async def test_missing_capability_can_be_caught(server: Any, mode: str, version: str) -> None:
    # No callback: no elicitation capability.
    async with Client(in_memory(server), mode=mode) as client:
        result = await client.call_tool("ship_or_explain", {"item": "book"})
    assert text_of(result) == f"fallback: {UNSUPPORTED}"


async def test_missing_capability_uncaught_on_2025_11_25(server: Any, sdk: str) -> None:
    async with Client(in_memory(server), mode="legacy") as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == tool_error(sdk, "ship", UNSUPPORTED)


async def test_missing_capability_uncaught_on_2026_07_28_is_the_spec_error(
    server: Any,
) -> None:
    async with Client(in_memory(server)) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("ship", {"item": "book"})
    assert caught.value.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY == -32021
    assert caught.value.message == UNSUPPORTED
    assert caught.value.data == {"requiredCapabilities": {"elicitation": {"form": {}}}}


BAD = {"street": "1 Main St", "zip_code": "1"}


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_invalid_answer_uncaught_reads_as_field_errors(
    server: Any, sdk: str, mode: str, version: str
) -> None:
    async with Client(
        in_memory(server), mode=mode, elicitation_callback=answering(accept(**BAD))
    ) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "ship",
        "The answer to Address has 2 problems: city: This field is required. zip_code: Must be "
        "at least 4 characters long.",
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_invalid_answer_can_be_caught(server: Any, mode: str, version: str) -> None:
    async with Client(
        in_memory(server), mode=mode, elicitation_callback=answering(accept(**BAD))
    ) as client:
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
    server: Any, sdk: str, mode: str, version: str, action: str, message: str
) -> None:
    callback = answering(types.ElicitResult(action=action))  # type: ignore[arg-type]
    async with Client(in_memory(server), mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("must_accept", {})
    assert result.is_error
    assert text_of(result) == tool_error(sdk, "must_accept", message)


async def test_client_error_answer_on_2025_11_25(server: Any, sdk: str) -> None:
    async def refusing(context: Any, params: Any) -> types.ErrorData:
        return types.ErrorData(code=-32001, message="the user closed the window")

    async with Client(in_memory(server), mode="legacy", elicitation_callback=refusing) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "ship",
        "The client answered the form with an error instead of an answer: the user closed the "
        "window (code -32001).",
    )


async def test_accept_without_content_reports_required_fields(server: Any, sdk: str) -> None:
    callback = answering(types.ElicitResult(action="accept"))
    async with Client(in_memory(server), mode="legacy", elicitation_callback=callback) as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert text_of(result) == tool_error(
        sdk,
        "ship",
        "The answer to Address has 3 problems: street: This field is required. city: This "
        "field is required. zip_code: This field is required.",
    )


async def test_caught_errors_are_still_elicitkit_errors(sdk: str) -> None:
    caught: list[BaseException] = []
    app = new_server(sdk, "catching")

    @app.tool()
    async def probe() -> str:
        try:
            await ask(Address, retries=0)
        except ElicitError as error:
            caught.append(error)
        return "done"

    callback = answering(accept(**BAD))
    async with Client(in_memory(app), mode="legacy", elicitation_callback=callback) as client:
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
    """MCPServer; the FastMCP case is test_install_on_fastmcp_twice_is_harmless."""
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


def test_install_refuses_a_server_without_its_state_boundary(sdk: str) -> None:
    server: Any = MCPServer("bare") if sdk == "mcp" else FastMCP("bare")
    host = "MCPServer" if sdk == "mcp" else "FastMCP server"
    chain = server.middleware if sdk == "mcp" else server._mcp_server.middleware
    chain.clear()
    with pytest.raises(TypeError) as caught:
        install(server)
    assert str(caught.value) == (
        f"Cannot install elicitkit on this {host}: its middleware has no RequestStateBoundary, "
        f"so answers carried between rounds would travel unsealed. Keep the boundary {host} "
        "installs by default."
    )


async def test_tools_without_ask_and_other_requests_are_untouched(server: Any) -> None:
    @server.tool()
    async def add(a: int, b: int) -> int:
        return a + b

    for mode in ("legacy", "auto"):
        async with Client(in_memory(server), mode=mode) as client:
            assert (await client.call_tool("add", {"a": 2, "b": 3})).structured_content == {
                "result": 5
            }
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"ship", "add"} <= names


async def test_form_definition_error_is_raised_before_anything_is_sent(sdk: str) -> None:
    app = new_server(sdk, "broken")
    asked: list[Any] = []

    @app.tool()
    async def broken() -> str:
        @dataclasses.dataclass
        class Tags:
            tags: list[str]

        await ask(Tags)
        return "unreachable"

    callback = answering(seen=asked)
    async with Client(in_memory(app), mode="legacy", elicitation_callback=callback) as client:
        result = await client.call_tool("broken", {})
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "broken",
        "Cannot build a form field for 'tags' of Tags: list[str] has no flat JSON form. Use "
        "list[Literal[...]] or list[SomeEnum] for a multi-select.",
    )
    assert asked == []


async def test_concurrent_legacy_calls_keep_their_own_answers(sdk: str) -> None:
    app = new_server(sdk, "concurrent")

    @app.tool()
    async def city_of(person: str) -> str:
        answer = await ask(Address, f"Address of {person}?")
        return answer.unwrap().city

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        person = params.message.removeprefix("Address of ").removesuffix("?")
        for _ in range(10 if person == "ann" else 0):  # ann answers after the others
            await anyio.lowlevel.checkpoint()
        return accept(street="x", city=f"{person}-town", zip_code="0000")

    results: dict[str, str] = {}
    async with Client(in_memory(app), mode="legacy", elicitation_callback=callback) as client:

        async def one(person: str) -> None:
            results[person] = text_of(await client.call_tool("city_of", {"person": person}))

        async with anyio.create_task_group() as group:
            for person in ("ann", "bob", "cy"):
                group.start_soon(one, person)
    assert results == {"ann": "ann-town", "bob": "bob-town", "cy": "cy-town"}


# --- fastmcp only: its install, its masking, its guard tools, its own client ---------------


def test_install_on_fastmcp_twice_is_harmless() -> None:
    server = FastMCP("twice")
    assert install(server) is server
    chain = list(server._mcp_server.middleware)
    passages = list(server.middleware)
    assert install(server) is server
    assert server._mcp_server.middleware == chain
    assert server.middleware == passages
    middleware = elicitkit.integrations.mcp.ElicitkitMiddleware
    assert sum(isinstance(m, middleware) for m in server._mcp_server.middleware) == 1


def test_installing_on_fastmcp_again_with_another_store_is_refused() -> None:
    store = MemoryStore()
    server = install(FastMCP("twice"), store=store)
    assert install(server, store=store) is server
    with pytest.raises(TypeError) as raised:
        install(server, store=MemoryStore())
    assert str(raised.value) == (
        "Cannot install elicitkit on this FastMCP server again with another store or limits: "
        "it is already installed, and its dialogues are recorded in the first store. Call "
        "install(server, store=..., limits=...) once, before serving."
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_masked_fastmcp_errors_still_show_elicitkit_texts(mode: str, version: str) -> None:
    """mask_error_details=True hides a crash's text, but not what elicitkit has to say."""
    server = make_server("fastmcp", mask_error_details=True)

    @server.tool()
    async def boom() -> str:
        raise RuntimeError("a secret detail")

    callback = answering(accept(**BAD), types.ElicitResult(action="decline"))
    async with Client(in_memory(server), mode=mode, elicitation_callback=callback) as client:
        invalid = await client.call_tool("ship", {"item": "book"})
        declined = await client.call_tool("must_accept", {})
        crashed = await client.call_tool("boom", {})
    assert (invalid.is_error, declined.is_error, crashed.is_error) == (True, True, True)
    assert text_of(invalid) == (
        "The answer to Address has 2 problems: city: This field is required. zip_code: Must be "
        "at least 4 characters long."
    )
    assert text_of(declined) == "The user declined the form."
    assert text_of(crashed) == "Error calling tool 'boom'"  # masking is on


async def test_masked_fastmcp_missing_capability_on_2025_11_25() -> None:
    server = make_server("fastmcp", mask_error_details=True)
    async with Client(in_memory(server), mode="legacy") as client:
        result = await client.call_tool("ship", {"item": "book"})
    assert result.is_error
    assert text_of(result) == UNSUPPORTED


async def test_masked_fastmcp_missing_capability_on_2026_07_28_is_the_spec_error() -> None:
    server = make_server("fastmcp", mask_error_details=True)
    async with Client(in_memory(server)) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("ship", {"item": "book"})
    assert caught.value.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert caught.value.message == UNSUPPORTED


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_masked_fastmcp_form_definition_error_and_timeout(
    mode: str, version: str, elicit_clock: FakeClock
) -> None:
    """A FormDefinitionError (not an ElicitError) and a timeout read as well when masked."""
    server = new_server("fastmcp", mask_error_details=True)

    @server.tool()
    async def broken() -> str:
        @dataclasses.dataclass
        class Tags:
            tags: list[str]

        await ask(Tags)
        return "unreachable"

    @server.tool()
    async def impatient() -> str:
        return str((await ask(bool, "Go?", timeout=0.05)).content)

    async def slow(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        elicit_clock.jump(0.2)  # late by elicitkit's clock, which judges a carried answer
        if mode == "legacy":  # mid-call, the server's own wait ends first and withdraws it
            await anyio.sleep_forever()
        return accept(value=True)

    async with Client(in_memory(server), mode=mode, elicitation_callback=slow) as client:
        broke = await client.call_tool("broken", {})
        late = await client.call_tool("impatient", {})
    assert (broke.is_error, late.is_error) == (True, True)
    assert text_of(broke) == (
        "Cannot build a form field for 'tags' of Tags: list[str] has no flat JSON form. Use "
        "list[Literal[...]] or list[SomeEnum] for a multi-select."
    )
    assert text_of(late) == (
        "The user did not answer the form within 0.05 seconds, so the question was withdrawn. "
        "Ask again if the answer is still needed, or pass a longer timeout= to ask()."
    )


YES_NO = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def add_guard_tool(server: FastMCP[Any], runs: list[str]) -> None:
    """A fastmcp guard tool: it asks by returning an InputRequiredResult itself (SEP-2322)."""

    @server.tool()
    async def guarded(ctx: Context) -> str | types.InputRequiredResult:
        responses = ctx.input_responses
        runs.append("round")
        if responses is None or "ok" not in responses:
            question = types.ElicitRequest.model_validate(
                {
                    "method": "elicitation/create",
                    "params": {"mode": "form", "message": "Proceed?", "requestedSchema": YES_NO},
                }
            )
            return types.InputRequiredResult(
                input_requests={"ok": question}, request_state="guard-state-1"
            )
        answer = responses["ok"]
        assert isinstance(answer, types.ElicitResult)
        return f"{answer.action}:{answer.content} (state {ctx.request_state})"


async def test_a_fastmcp_guard_tool_still_works_with_elicitkit_installed() -> None:
    server = make_server("fastmcp")
    runs: list[str] = []
    add_guard_tool(server, runs)
    shown: list[str] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params.message)
        if params.message == "Proceed?":
            return types.ElicitResult(action="accept", content={"ok": True})
        return accept(**GOOD)

    async with Client(in_memory(server), elicitation_callback=callback) as client:
        assert client.protocol_version == "2026-07-28"
        guarded = await client.call_tool("guarded", {})
        asked = await client.call_tool("ship", {"item": "book"})  # elicitkit beside it
        again = await client.call_tool("guarded", {})
    assert text_of(guarded) == text_of(again) == "accept:{'ok': True} (state guard-state-1)"
    assert text_of(asked) == "book to Oslo"
    assert runs == ["round"] * 4
    assert shown == ["Proceed?", "Where should we ship it?", "Proceed?"]


async def test_a_fastmcp_guard_round_is_not_taken_for_an_elicitkit_dialogue() -> None:
    """A guard tool's own state carries no elicitkit dialogue: a resent round runs again."""
    server = make_server("fastmcp")
    runs: list[str] = []
    add_guard_tool(server, runs)
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        first = await retry(client, "guarded", {})
        key, params, state = only_question(first)
        assert (key, params["message"]) == ("ok", "Proceed?")
        answers = {"ok": types.ElicitResult(action="decline")}
        results = [await retry(client, "guarded", {}, answers, state) for _ in range(2)]
    assert [text_of(result) for result in results] == ["decline:None (state guard-state-1)"] * 2
    assert runs == ["round"] * 3


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_the_fastmcp_client_accepts_and_declines(sdk: str, mode: str, version: str) -> None:
    """fastmcp's own client drives the round trips too (it validates answers before sending)."""
    server = make_server(sdk)
    seen: list[tuple[str, Any]] = []
    replies: list[Any] = [dict(GOOD), ElicitResult(action="decline")]

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        seen.append((message, params.requested_schema))
        return replies.pop(0)

    async with FastMCPClient(server, mode=mode, elicitation_handler=handler) as client:
        assert client.protocol_version == version
        accepted = await client.call_tool("ship", {"item": "book"}, raise_on_error=False)
        declined = await client.call_tool("ship", {"item": "lamp"}, raise_on_error=False)
    assert [block.text for block in accepted.content] == ["book to Oslo"]  # type: ignore[union-attr]
    assert [block.text for block in declined.content] == ["no address (decline)"]  # type: ignore[union-attr]
    schema = requested_schema(Address, protocol=version)
    assert seen == [("Where should we ship it?", schema)] * 2
