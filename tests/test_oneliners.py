"""confirm(), choose() and ask_text() in real tools, real client, both eras, both server SDKs."""

from __future__ import annotations

import enum
from typing import Any

import anyio
import fastmcp
import mcp_types as types
import pytest
from fastmcp import Context as FastMCPContext
from fastmcp.client.elicitation import ElicitResult
from mcp import Client

from elicitkit import (
    FormDefinitionError,
    InvalidContent,
    ask_text,
    choose,
    confirm,
)
from elicitkit.testing import ScriptedUser, connect
from elicitkit.testing import accept as reply_accept
from tests.sdks import ERAS, in_memory, new_server
from tests.spec_check import assert_spec_valid

pytestmark = pytest.mark.anyio


class Colour(enum.Enum):
    RED = "red"
    DARK_BLUE = "dark-blue"


def make_server(sdk: str) -> Any:
    server = new_server(sdk, "oneliners")

    @server.tool()
    async def yes_no(default: bool = False) -> str:
        return repr(await confirm("Delete 3 files?", default=default))

    @server.tool()
    async def pick(kind: str) -> str:
        try:
            if kind == "list":
                return repr(await choose("Which size?", ["s", "m", 3]))
            if kind == "mapping":
                return repr(await choose("Which plan?", {"free": "Free", "team": "Team"}))
            return repr(await choose("Which colour?", Colour))
        except InvalidContent as problem:
            return "invalid: " + " | ".join(f"{e.field}={e.message}" for e in problem.errors)

    @server.tool()
    async def text() -> str:
        try:
            return repr(await ask_text("Your name?", title="Name", default="Ada", max_length=5))
        except InvalidContent as problem:
            return "invalid: " + " | ".join(f"{e.field}={e.message}" for e in problem.errors)

    @server.tool()
    async def bad(which: str) -> str:
        try:
            if which == "confirm":
                await confirm("Sure?", default=1)  # type: ignore[arg-type]
            else:
                await choose("Which?", [])
        except FormDefinitionError as problem:
            return str(problem)
        return "unreachable"

    return server


async def _call(
    sdk: str, mode: str, name: str, args: dict[str, Any], result: types.ElicitResult
) -> tuple[str, list[Any]]:
    seen: list[Any] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return result

    with anyio.fail_after(10):
        server = in_memory(make_server(sdk))
        async with Client(server, mode=mode, elicitation_callback=callback) as client:
            answer = await client.call_tool(name, args)
    [block] = answer.content
    assert isinstance(block, types.TextContent)
    return block.text, seen


def accept(content: dict[str, Any] | None) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("default", "result", "expected"),
    [
        pytest.param(False, accept({"confirm": True}), "True", id="yes"),
        pytest.param(True, accept({"confirm": False}), "False", id="no"),
        pytest.param(False, accept({}), "False", id="empty accept, default no"),
        pytest.param(True, accept({}), "True", id="empty accept, default yes"),
        pytest.param(True, accept(None), "True", id="accept without content"),
        pytest.param(True, types.ElicitResult(action="decline"), "False", id="decline"),
        pytest.param(True, types.ElicitResult(action="cancel"), "False", id="cancel"),
    ],
)
async def test_confirm(
    sdk: str, mode: str, version: str, default: bool, result: types.ElicitResult, expected: str
) -> None:
    text, [params] = await _call(sdk, mode, "yes_no", {"default": default}, result)
    assert text == expected
    assert params.message == "Delete 3 files?"
    assert params.requested_schema == {
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "title": "Confirm", "default": default}},
    }
    assert_spec_valid(params.requested_schema, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("kind", "answer", "expected", "field"),
    [
        pytest.param("list", "3", "3", {"enum": ["s", "m", "3"]}, id="list"),
        pytest.param(
            "mapping",
            "team",
            "'team'",
            {"oneOf": [{"const": "free", "title": "Free"}, {"const": "team", "title": "Team"}]},
            id="mapping",
        ),
        pytest.param(
            "enum",
            "dark-blue",
            "<Colour.DARK_BLUE: 'dark-blue'>",
            {"enum": ["red", "dark-blue"]},
            id="enum",
        ),
        pytest.param(
            "list",
            "xl",
            "invalid: value=Must be one of 's', 'm', '3'; got 'xl'.",
            {},
            id="not an option",
        ),
    ],
)
async def test_choose(
    sdk: str, mode: str, version: str, kind: str, answer: str, expected: str, field: dict[str, Any]
) -> None:
    text, asked = await _call(sdk, mode, "pick", {"kind": kind}, accept({"value": answer}))
    assert text == expected
    # Not an option: asked again twice (ask()'s default retries=2), then it gives up.
    assert len(asked) == (3 if expected.startswith("invalid") else 1)
    params = asked[0]
    schema = params.requested_schema
    assert schema["required"] == ["value"]
    assert {key: schema["properties"]["value"][key] for key in field} == field
    assert_spec_valid(schema, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_choose_and_ask_text_not_accepted(
    sdk: str, mode: str, version: str, action: Any
) -> None:
    text, _ = await _call(sdk, mode, "pick", {"kind": "enum"}, types.ElicitResult(action=action))
    assert text == "None"
    text, _ = await _call(sdk, mode, "text", {}, types.ElicitResult(action=action))
    assert text == "None"


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_ask_text(sdk: str, mode: str, version: str) -> None:
    text, [params] = await _call(sdk, mode, "text", {}, accept({"value": "Grace"}))
    assert text == "'Grace'"
    assert params.requested_schema == {
        "type": "object",
        "properties": {
            "value": {"type": "string", "title": "Name", "maxLength": 5, "default": "Ada"}
        },
        "required": ["value"],
    }
    assert_spec_valid(params.requested_schema, version)
    text, _ = await _call(sdk, mode, "text", {}, accept({"value": "Augusta"}))
    assert text == "invalid: value=Must be at most 5 characters long."


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("which", "message"),
    [
        pytest.param(
            "confirm",
            "Cannot ask confirm() with the default 1: a yes/no question takes True or False. "
            "Pass default=True or default=False.",
            id="confirm",
        ),
        pytest.param(
            "choose",
            "Cannot ask choose() without options: there is nothing to choose. Pass at least "
            "one option.",
            id="choose",
        ),
    ],
)
async def test_refused_before_anything_is_sent(
    sdk: str, mode: str, version: str, which: str, message: str
) -> None:
    text, seen = await _call(sdk, mode, "bad", {"which": which}, accept({}))
    assert text == message
    assert seen == []


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("name", "args", "reply", "expected"),
    [
        pytest.param("yes_no", {"default": True}, {}, "True", id="confirm, empty accept"),
        pytest.param("yes_no", {"default": False}, {"confirm": True}, "True", id="confirm"),
        pytest.param("yes_no", {"default": True}, "decline", "False", id="confirm, decline"),
        pytest.param("pick", {"kind": "mapping"}, {"value": "team"}, "'team'", id="choose"),
        pytest.param("pick", {"kind": "enum"}, "cancel", "None", id="choose, cancel"),
        pytest.param("text", {}, {"value": "Grace"}, "'Grace'", id="ask_text"),
    ],
)
async def test_fastmcp_client_on_a_fastmcp_server(
    mode: str, version: str, name: str, args: dict[str, Any], reply: Any, expected: str
) -> None:
    """fastmcp's own client (which checks answers against the schema) gets the same results."""
    messages: list[str] = []

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        messages.append(message)
        return (
            ElicitResult(action=reply)
            if isinstance(reply, str)
            else ElicitResult(action="accept", content=reply)
        )

    with anyio.fail_after(10):
        async with fastmcp.Client(
            make_server("fastmcp"), mode=mode, elicitation_handler=handler
        ) as client:
            assert client.protocol_version == version
            result = await client.call_tool(name, args, raise_on_error=False)
    assert not result.is_error
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert block.text == expected
    assert len(messages) == 1


# The SDKs warn that logging is deprecated on 2026-07-28; ctx.info is what the tool uses.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_fastmcp_tool_using_its_context_around_a_question(mode: str, version: str) -> None:
    server = make_server("fastmcp")

    @server.tool()
    async def delete(ctx: FastMCPContext) -> str:
        await ctx.info("about to ask")
        sure = await confirm("Delete 3 files?")
        await ctx.info(f"answered {sure}")
        return f"{sure} {ctx.request_id is not None}"

    logs: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data["msg"])

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return accept({"confirm": True})

    with anyio.fail_after(10):
        async with Client(
            in_memory(server), mode=mode, elicitation_callback=callback, logging_callback=on_log
        ) as client:
            result = await client.call_tool("delete", {})
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert block.text == "True True"
    # On 2025-11-25 the log lines reach the client in order around the question; 2026-07-28
    # has no log notifications.
    assert logs == (["about to ask", "answered True"] if version == "2025-11-25" else [])


def titles_server(sdk: str) -> Any:
    server = new_server(sdk, "titles")

    @server.tool()
    async def asked(which: str) -> str:
        if which == "text":
            return repr(await ask_text("Your name?"))
        if which == "text, untitled":
            return repr(await ask_text("Your name?", title=None))
        if which == "text, titled":
            return repr(await ask_text("Your name?", title="Name"))
        if which == "list":
            return repr(await choose("Which size?", ["s", "m"]))
        if which == "list, untitled":
            return repr(await choose("Which size?", ["s", "m"], title=None))
        if which == "mapping, titled":
            return repr(await choose("Which size?", {"s": "Small", "m": "Medium"}, title="Size"))
        if which == "enum":
            return repr(await choose("Which colour?", Colour))
        if which == "enum, untitled":
            return repr(await choose("Which colour?", Colour, title=None))
        return repr(await choose("Which colour?", Colour, title="Paint"))

    @server.tool()
    async def empty_title(which: str) -> str:
        try:
            if which == "text":
                await ask_text("Your name?", title="")
            else:
                await choose("Which?", Colour, title="")
        except FormDefinitionError as problem:
            return str(problem)
        return "unreachable"

    return server


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("which", "answer", "field"),
    [
        pytest.param("text", "Ada", {"type": "string", "title": "Answer"}, id="text"),
        pytest.param("text, untitled", "Ada", {"type": "string"}, id="text, title=None"),
        pytest.param("text, titled", "Ada", {"type": "string", "title": "Name"}, id="text, title"),
        pytest.param(
            "list", "m", {"type": "string", "title": "Answer", "enum": ["s", "m"]}, id="list"
        ),
        pytest.param(
            "list, untitled", "m", {"type": "string", "enum": ["s", "m"]}, id="list, title=None"
        ),
        pytest.param(
            "mapping, titled",
            "m",
            {
                "type": "string",
                "title": "Size",
                "enum": ["s", "m"],
                "enumNames": ["Small", "Medium"],
            },
            id="mapping, title",
        ),
        pytest.param(
            "enum",
            "red",
            {"type": "string", "title": "Colour", "enum": ["red", "dark-blue"]},
            id="Enum: its name",
        ),
        pytest.param(
            "enum, untitled",
            "red",
            {"type": "string", "enum": ["red", "dark-blue"]},
            id="Enum, title=None",
        ),
        pytest.param(
            "enum, titled",
            "red",
            {"type": "string", "title": "Paint", "enum": ["red", "dark-blue"]},
            id="Enum, title",
        ),
    ],
)
async def test_one_liner_titles(
    sdk: str, version: str, which: str, answer: str, field: dict[str, Any]
) -> None:
    user = ScriptedUser(reply_accept(value=answer))
    async with connect(titles_server(sdk), protocol=version, user=user) as client:
        result = await client.call_tool("asked", {"which": which})
    [schema] = user.schemas
    field = _as_one_of(field, version)
    assert schema == {"type": "object", "properties": {"value": field}, "required": ["value"]}
    assert_spec_valid(schema, version)
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text == (repr(Colour(answer)) if which.startswith("enum") else repr(answer))


def _as_one_of(field: dict[str, Any], version: str) -> dict[str, Any]:
    """Labels travel as oneOf from 2025-11-25 on (enumNames on 2025-06-18)."""
    if "enumNames" not in field or version == "2025-06-18":
        return field
    out = {key: value for key, value in field.items() if key not in {"enum", "enumNames"}}
    out["oneOf"] = [
        {"const": const, "title": title}
        for const, title in zip(field["enum"], field["enumNames"], strict=True)
    ]
    return out


@pytest.mark.parametrize("which", ["text", "choose"])
async def test_an_empty_title_is_refused_before_anything_is_sent(sdk: str, which: str) -> None:
    function = "ask_text" if which == "text" else "choose"
    user = ScriptedUser()
    async with connect(titles_server(sdk), user=user) as client:
        result = await client.call_tool("empty_title", {"which": which})
    assert result.content[0].text == (  # type: ignore[union-attr]
        f"Cannot ask {function}() with the title '': a title is text the client shows above "
        "the field. Pass a non-empty str, or title=None to send none."
    )
    assert user.schemas == []
