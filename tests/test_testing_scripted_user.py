"""`ScriptedUser` and `connect`: matching rules, re-asks, delays, records, script errors.

Every test that connects runs on both server SDKs (the ``sdk`` fixture): ``connect()`` takes
a fastmcp server as it takes an official one.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from annotated_types import MinLen
from fastmcp import Context as FastMCPContext
from mcp.server.mcpserver import Context as MCPContext

from elicitkit import InvalidContent, ask
from elicitkit._client.spec_keys import unknown_key
from elicitkit.testing import (
    PROFILES,
    ScriptedUser,
    ScriptError,
    accept,
    cancel,
    connect,
    decline,
    delay,
    invalid,
)
from tests.sdks import new_server

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Zip:
    zip_code: Annotated[str, MinLen(4)]


@dataclasses.dataclass
class Colour:
    colour: Literal["red", "green"] = "red"


def make_server(sdk: str) -> Any:
    server = new_server(sdk, "kit")

    @server.tool()
    async def zip_until_valid() -> str:
        """ask() re-asks until the answer fits: the path an invalid() reply exercises."""
        try:
            answer = await ask(Zip, "Zip code?")
        except InvalidContent:
            return "gave up"
        return f"{answer.action}:{answer.content}"

    @server.tool()
    async def three_questions() -> str:
        first = await ask(bool, "Proceed?")
        colour = await ask(Colour, "Which colour?")
        last = await ask(bool, "Really?")
        return f"{first.content} {colour.action}:{colour.content} {last.action}"

    if sdk == "fastmcp":

        @server.tool()
        async def capabilities(ctx: FastMCPContext) -> str:
            return declared_elicitation(ctx.session.client_capabilities)

    else:

        @server.tool()
        async def capabilities(ctx: MCPContext) -> str:
            return declared_elicitation(ctx.session.client_capabilities)

    return server


def declared_elicitation(declared: types.ClientCapabilities | None) -> str:
    assert declared is not None
    elicitation = declared.elicitation
    return "none" if elicitation is None else elicitation.model_dump_json(exclude_none=True)


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_invalid_answer_then_a_valid_one_exercises_a_reask(
    sdk: str, elicit_connect: Any
) -> None:
    user = ScriptedUser().on_form(Zip, invalid(zip_code="1"), accept(zip_code="0150"))
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("zip_until_valid", {})
    assert text_of(result) == "accept:Zip(zip_code='0150')"
    assert user.messages == [
        "Zip code?",
        "Zip code?\n\nPlease correct your answer. Zip code: Must be at least 4 characters long.",
    ]


async def test_rules_by_form_key_message_and_order(sdk: str, elicit_connect: Any) -> None:
    user = (
        ScriptedUser(accept(value=False))  # in order, for whatever no rule takes
        .on_message("^Proceed", accept(value=True))
        .on_form(Colour, accept(colour="green"))
    )
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("three_questions", {})
    assert text_of(result) == "True accept:Colour(colour='green') accept"
    assert [request.reply for request in user.requests] == [
        accept(value=True),
        accept(colour="green"),
        accept(value=False),
    ]


async def test_a_rule_is_used_up_by_its_replies(sdk: str, elicit_connect: Any) -> None:
    user = ScriptedUser().on_key("value", accept(value=True), decline()).then(cancel())
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("three_questions", {})
    assert text_of(result) == "True cancel:None decline"


async def test_delay_waits_before_answering(sdk: str) -> None:
    user = ScriptedUser(delay(0.2, accept(value=True)), accept(colour="red"), decline())
    started = time.monotonic()
    async with connect(make_server(sdk), protocol="2025-11-25", user=user) as client:
        result = await client.call_tool("three_questions", {})
    assert time.monotonic() - started >= 0.2
    assert text_of(result) == "True accept:Colour(colour='red') decline"


async def test_a_form_without_a_scripted_answer_fails_the_test(sdk: str) -> None:
    user = ScriptedUser(accept(value=True))
    with pytest.raises(ScriptError) as caught:
        async with connect(make_server(sdk), user=user) as client:
            await client.call_tool("three_questions", {})
    assert str(caught.value) == (
        "The scripted user had no answer for the form 'Which colour?' (fields colour), so it "
        "was cancelled. Add a reply for it (on_form, on_key, on_message or then)."
    )


async def test_a_typo_in_a_scripted_answer_fails_loudly(sdk: str) -> None:
    user = ScriptedUser(accept(zip="0150"))
    with pytest.raises(ScriptError) as caught:
        async with connect(make_server(sdk), user=user) as client:
            await client.call_tool("zip_until_valid", {})
    assert str(caught.value) == (
        "The scripted answer to 'Zip code?' has field 'zip', which the form does not have: "
        "its fields are zip_code. Fix the key, or use invalid(...) to send it on purpose."
    )


@pytest.mark.parametrize(
    ("profile", "declared"),
    [
        pytest.param(None, '{"form":{},"url":{}}', id="default"),
        pytest.param("form-only", '{"form":{}}', id="form-only"),
        pytest.param("no-elicitation", "none", id="no-elicitation"),
    ],
)
async def test_profiles_declare_their_capabilities(
    sdk: str, elicit_connect: Any, profile: str | None, declared: str
) -> None:
    chosen = None if profile is None else PROFILES[profile]
    async with elicit_connect(make_server(sdk), profile=chosen) as client:
        result = await client.call_tool("capabilities", {})
    assert text_of(result) == declared


async def test_2025_06_18_is_negotiated_by_the_real_client(sdk: str) -> None:
    user = ScriptedUser(accept(value=True), accept(colour="green"), accept(value=True))
    async with connect(make_server(sdk), protocol="2025-06-18", user=user) as client:
        assert client.protocol_version == "2025-06-18"
        await client.call_tool("three_questions", {})
    # 2025-06-18 has no default except on booleans.
    assert user.schemas[1] == {
        "type": "object",
        "properties": {"colour": {"type": "string", "title": "Colour", "enum": ["red", "green"]}},
    }


@pytest.mark.parametrize(
    ("schema", "protocol", "unknown"),
    [
        pytest.param(
            {"type": "object", "properties": {"a": {"type": "string"}}},
            "2025-11-25",
            None,
            id="fine",
        ),
        pytest.param(
            {"type": "object", "title": "Form", "properties": {}},
            "2025-11-25",
            "title",
            id="top-level-title",
        ),
        pytest.param(
            {"type": "object", "properties": {"a": {"type": "integer", "format": "int32"}}},
            "2025-11-25",
            "properties.a.format",
            id="int32",
        ),
        pytest.param(
            {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}},
            "2025-11-25",
            "properties.a.type",
            id="anyOf",
        ),
        pytest.param(
            {"type": "object", "properties": {"a": {"type": "array", "items": {}}}},
            "2025-06-18",
            "properties.a.type",
            id="array-on-2025-06-18",
        ),
        pytest.param(
            {"type": "object", "properties": {"a": {"type": "string", "oneOf": []}}},
            "2025-06-18",
            "properties.a.oneOf",
            id="oneOf-on-2025-06-18",
        ),
        pytest.param(
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "oneOf": [{"const": "x", "title": "X", "x": 1}]}
                },
            },
            "2026-07-28",
            "properties.a.x",
            id="option-key",
        ),
        pytest.param(
            {
                "type": "object",
                "properties": {"a": {"type": "array", "items": {"type": "string", "x": 1}}},
            },
            "2026-07-28",
            "properties.a.items.x",
            id="items-key",
        ),
    ],
)
def test_strict_keys(schema: dict[str, Any], protocol: str, unknown: str | None) -> None:
    assert unknown_key(schema, protocol) == unknown


def test_strict_keys_profile_refuses_an_unknown_key() -> None:
    # MCPServer's own ctx.elicit() is not used by elicitkit; a raw schema shows the refusal.
    import anyio  # noqa: PLC0415

    from elicitkit.testing._connect import ClientBehaviour  # noqa: PLC0415

    user = ScriptedUser(accept())
    behaviour = ClientBehaviour(user, PROFILES["strict-keys"], "2025-11-25", 0)
    params = types.ElicitRequestFormParams(
        message="m",
        requested_schema={"type": "object", "title": "T", "properties": {}},  # type: ignore[arg-type]
    )
    answer = anyio.run(behaviour.on_elicit, None, params)  # type: ignore[arg-type]
    assert answer == types.ErrorData(
        code=types.INVALID_PARAMS, message="Invalid requestedSchema: unknown field 'title'"
    )
    assert user.requests[0].reply is None
