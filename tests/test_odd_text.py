"""Lone surrogates and other odd code points, end to end on both eras with the real SDK.

A JSON string can spell a lone surrogate ("\\ud800"); Python keeps it, and no UTF-8 encoder
accepts it. elicitkit makes what it sends encodable (U+FFFD in its place) and refuses it in
what comes back, so a call never ends in a bare "Error executing tool".
"""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, ask, install
from tests.sdks import ERAS

pytestmark = pytest.mark.anyio

LONE = "\ud800"
REPLACED = "\ufffd"


@dataclasses.dataclass
class Name:
    name: str


def make_server() -> MCPServer:
    server = install(MCPServer("odd"))

    @server.tool()
    async def greet(item: str) -> str:
        answer = await ask(Name, f"Who gets {item}?")
        return f"{answer.action}:{answer.content}"

    @server.tool()
    async def titled(item: str) -> str:
        # A form built for this call, its title quoting the argument.
        form_type = dataclasses.make_dataclass(
            "Gift", [("count", Annotated[int, FormField(title=f"How many {item}?")])]
        )
        answer = await ask(form_type)
        return f"{answer.action}:{answer.content}"

    @server.tool()
    async def choose(item: str) -> str:
        # The argument becomes an option, which must come back exactly as sent: refused.
        options: Any = Literal[(item, "other")]
        answer = await ask(options, "Which one?")
        return f"{answer.action}:{answer.content}"

    return server


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def recording(content: dict[str, Any], seen: list[Any]) -> Any:
    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="accept", content=content)

    return callback


def encodable(params: Any) -> None:
    # What the stdio and HTTP transports do to every message: it must not raise.
    json.dumps(params.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_lone_surrogate_in_the_message_is_replaced(mode: str, version: str) -> None:
    seen: list[Any] = []
    callback = recording({"name": "Ada"}, seen)
    async with Client(make_server(), mode=mode, elicitation_callback=callback) as client:
        assert client.protocol_version == version
        result = await client.call_tool("greet", {"item": f"a{LONE}b"})
    assert not result.is_error
    assert text_of(result) == "accept:Name(name='Ada')"
    [params] = seen
    assert params.message == f"Who gets a{REPLACED}b?"
    encodable(params)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_surrogate_pair_written_as_two_code_points_is_joined(
    mode: str, version: str
) -> None:
    seen: list[Any] = []
    callback = recording({"name": "Ada"}, seen)
    async with Client(make_server(), mode=mode, elicitation_callback=callback) as client:
        await client.call_tool("greet", {"item": "\ud83c\udf81"})
    assert seen[0].message == "Who gets \U0001f381?"


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_lone_surrogate_in_a_run_time_title_is_replaced(mode: str, version: str) -> None:
    seen: list[Any] = []
    callback = recording({"count": 2}, seen)
    async with Client(make_server(), mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("titled", {"item": f"x{LONE}"})
    assert text_of(result) == "accept:Gift(count=2)"
    [params] = seen
    assert params.requested_schema["properties"]["count"]["title"] == f"How many x{REPLACED}?"
    encodable(params)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_lone_surrogate_in_an_answer_is_a_field_error(mode: str, version: str) -> None:
    callback = recording({"name": f"A{LONE}da"}, [])
    async with Client(make_server(), mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("greet", {"item": "cake"})
    assert result.is_error
    assert text_of(result) == (
        "Error executing tool greet: The answer to Name has 1 problem: name: Contains a "
        "surrogate code point (U+D800 to U+DFFF), which is not text; send valid Unicode."
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_lone_surrogate_in_an_option_is_refused_with_its_reason(
    mode: str, version: str
) -> None:
    seen: list[Any] = []
    async with Client(make_server(), mode=mode, elicitation_callback=recording({}, seen)) as client:
        result = await client.call_tool("choose", {"item": f"a{LONE}"})
    assert result.is_error
    assert text_of(result) == (
        "Error executing tool choose: Cannot build a one-field form from Literal['a\\ud800', "
        "'other']: the option 'a\\ud800' holds a surrogate code point, which no JSON encoder "
        "accepts, and an option must come back exactly as it was sent. Use options of valid "
        "Unicode text."
    )
    assert seen == []


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    "odd",
    [
        pytest.param("\x00", id="NUL"),
        pytest.param("\u202e", id="right-to-left-override"),
        pytest.param("\ufffe", id="noncharacter"),
        pytest.param("\U0010ffff", id="last-code-point"),
    ],
)
async def test_other_odd_code_points_travel_unchanged(mode: str, version: str, odd: str) -> None:
    seen: list[Any] = []
    callback = recording({"name": f"A{odd}"}, seen)
    async with Client(make_server(), mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("greet", {"item": f"x{odd}"})
    assert text_of(result) == f"accept:Name(name={f'A{odd}'!r})"
    assert seen[0].message == f"Who gets x{odd}?"
    encodable(seen[0])


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_lone_surrogate_under_an_unknown_key_is_carried_safely(
    mode: str, version: str
) -> None:
    # On 2026-07-28 the first answer travels on in the sealed requestState while the second
    # question is asked; the unknown key is ignored by decoding but still carried.
    server = install(MCPServer("carried"))

    @server.tool()
    async def two_questions() -> str:
        first = await ask(Name, "First?")
        second = await ask(bool, "Sure?")
        return f"{first.content}:{second.content}"

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        if params.message == "First?":
            return types.ElicitResult(action="accept", content={"name": "Ada", "x": LONE})
        return types.ElicitResult(action="accept", content={"value": True})

    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        assert client.protocol_version == version
        result = await client.call_tool("two_questions", {})
    assert text_of(result) == "Name(name='Ada'):True"
