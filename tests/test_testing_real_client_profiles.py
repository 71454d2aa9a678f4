"""The ``fast-agent`` and ``mcp-inspector`` profiles, as a tool author uses them.

What each profile adds to the testing kit (docs/clients.json has the evidence, and
test_testing_profiles_observed.py holds the profiles to it): fast-agent fills optional
fields left alone and stops short text in the form; the Inspector breaks an answer with a
cleared optional choice or number. Every test runs on both server SDKs.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from annotated_types import MinLen
from mcp.shared.exceptions import MCPError

from elicitkit import InvalidContent, ask
from elicitkit.testing import (
    CLEARED,
    KNOWN_CLIENTS,
    ScriptedUser,
    ScriptError,
    accept,
    cancel,
    connect,
)
from tests.sdks import new_server, tool_error

pytestmark = pytest.mark.anyio

FAST_AGENT = KNOWN_CLIENTS["fast-agent"]
INSPECTOR = KNOWN_CLIENTS["mcp-inspector"]
ERAS = ["2025-11-25", "2026-07-28"]


class Size(Enum):
    SMALL = "s"
    LARGE = "l"
    __labels__ = {"SMALL": "Small", "LARGE": "Large"}


@dataclass
class Order:
    name: Annotated[str, MinLen(2)]
    colour: Literal["red", "blue"] | None = None
    size: Size | None = None
    gift: bool | None = None
    extras: set[Literal["wrap", "card"]] | None = None
    count: int | None = None
    note: str | None = None
    speed: Literal["slow", "fast"] = "fast"


def order_server(sdk: str, calls: list[str] | None = None) -> Any:
    server = new_server(sdk, "orders")

    @server.tool()
    async def order() -> str:
        if calls is not None:
            calls.append("order")
        try:
            answer = await ask(Order, "Your order?", retries=1)
        except InvalidContent as problem:
            return "INVALID " + " | ".join(str(error) for error in problem.errors)
        if not answer.is_accepted():
            return f"NO ORDER: {answer.action}"
        return repr(answer.unwrap())

    return server


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("protocol", ERAS)
async def test_fast_agent_sends_optional_fields_left_alone(sdk: str, protocol: str) -> None:
    user = ScriptedUser(accept(name="Ada"))
    async with connect(order_server(sdk), protocol=protocol, user=user, profile=FAST_AGENT) as c:
        result = await c.call_tool("order", {})
    # Choices as their first option, yes/no as false, a multi-select as []; the number and
    # the text stay absent; the default is sent as given.
    assert user.requests[0].sent == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "speed": "fast",
            "colour": "red",
            "size": "s",
            "gift": False,
            "extras": [],
        },
    }
    assert text_of(result) == (
        "Order(name='Ada', colour='red', size=<Size.SMALL: 's'>, gift=False, extras=set(), "
        "count=None, note=None, speed='fast')"
    )


@pytest.mark.parametrize("protocol", ERAS)
async def test_the_inspector_leaves_optional_fields_left_alone_out(sdk: str, protocol: str) -> None:
    user = ScriptedUser(accept(name="Ada"))
    async with connect(order_server(sdk), protocol=protocol, user=user, profile=INSPECTOR) as c:
        await c.call_tool("order", {})
    assert user.requests[0].sent == {
        "action": "accept",
        "content": {"name": "Ada", "speed": "fast"},
    }


async def test_fast_agent_does_not_fill_what_the_user_answered(sdk: str) -> None:
    user = ScriptedUser(accept(name="Ada", colour="blue", gift=True, count=2))
    async with connect(order_server(sdk), user=user, profile=FAST_AGENT) as client:
        await client.call_tool("order", {})
    assert user.requests[0].sent == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "colour": "blue",
            "gift": True,
            "count": 2,
            "speed": "fast",
            "size": "s",
            "extras": [],
        },
    }


async def test_a_profile_without_2025_06_18_speaks_its_newest(sdk: str) -> None:
    user = ScriptedUser(accept(name="Ada"))
    async with connect(
        order_server(sdk), protocol="2025-06-18", user=user, profile=FAST_AGENT
    ) as client:
        assert client.protocol_version == "2026-07-28"
        await client.call_tool("order", {})


@pytest.mark.parametrize("protocol", ERAS)
async def test_fast_agent_stops_short_text_in_the_form(sdk: str, protocol: str) -> None:
    user = ScriptedUser(accept(name="A"), accept(name="Ada"))
    async with connect(order_server(sdk), protocol=protocol, user=user, profile=FAST_AGENT) as c:
        result = await c.call_tool("order", {})
    [request] = user.requests  # one form, answered twice: the first answer never left it
    assert request.stopped == ["'Name': Need 1 more char"]
    assert request.sent is not None
    assert request.sent["content"]["name"] == "Ada"
    assert text_of(result).startswith("Order(name='Ada',")


@pytest.mark.parametrize("protocol", ERAS)
async def test_the_inspector_sends_short_text_and_the_server_asks_again(
    sdk: str, protocol: str
) -> None:
    user = ScriptedUser(accept(name="A"), accept(name="Ada"))
    async with connect(order_server(sdk), protocol=protocol, user=user, profile=INSPECTOR) as c:
        result = await c.call_tool("order", {})
    first, again = user.requests
    assert first.stopped == []
    assert first.sent == {"action": "accept", "content": {"name": "A", "speed": "fast"}}
    assert again.sent is not None
    assert again.sent["content"]["name"] == "Ada"
    assert text_of(result).startswith("Order(name='Ada',")


async def test_a_stopped_form_with_no_reply_left_fails_the_script(sdk: str) -> None:
    user = ScriptedUser(accept(name="A"))
    shown: list[str] = []
    with pytest.raises(ScriptError) as caught:
        async with connect(order_server(sdk), user=user, profile=FAST_AGENT) as client:
            shown.append(text_of(await client.call_tool("order", {})))
    assert shown == ["NO ORDER: cancel"]  # the form was cancelled meanwhile
    assert str(caught.value) == (
        "The scripted user had no answer for the form 'Your order?' (fields name, colour, "
        "size, gift, extras, count, note, speed), so it was cancelled. Add a reply for it "
        "(on_form, on_key, on_message or then)."
    )


async def test_a_person_who_gives_up_on_a_stopped_form_cancels_it(sdk: str) -> None:
    user = ScriptedUser(accept(name="A"), cancel())
    async with connect(order_server(sdk), user=user, profile=FAST_AGENT) as client:
        result = await client.call_tool("order", {})
    assert text_of(result) == "NO ORDER: cancel"
    assert user.requests[0].stopped == ["'Name': Need 1 more char"]


@pytest.mark.parametrize("protocol", ERAS)
@pytest.mark.parametrize("field", ["colour", "count", "note"])
async def test_a_cleared_field_is_left_out_by_a_well_behaved_client(
    sdk: str, protocol: str, field: str
) -> None:
    user = ScriptedUser(accept({"name": "Ada", field: CLEARED}))
    async with connect(order_server(sdk), protocol=protocol, user=user) as client:
        await client.call_tool("order", {})
    assert user.requests[0].sent == {
        "action": "accept",
        "content": {"name": "Ada", "speed": "fast"},
    }


INSPECTOR_REFUSAL = (
    "The client answered the form with an error instead of an answer: Invalid elicitation "
    "result: Invalid input: expected string, received {} (code -32602)."
)


@pytest.mark.parametrize(
    ("field", "received"),
    [pytest.param("colour", "null", id="choice"), pytest.param("count", "undefined", id="number")],
)
async def test_a_cleared_field_in_the_inspector_on_2025_11_25_is_an_error_answer(
    sdk: str, field: str, received: str
) -> None:
    user = ScriptedUser(accept({"name": "Ada", field: CLEARED}))
    async with connect(
        order_server(sdk), protocol="2025-11-25", user=user, profile=INSPECTOR
    ) as client:
        result = await client.call_tool("order", {})
    assert result.is_error
    assert text_of(result) == tool_error(sdk, "order", INSPECTOR_REFUSAL.format(received))
    assert user.requests[0].sent == {
        "error": {
            "code": -32602,
            "message": "Invalid elicitation result: Invalid input: expected string, "
            f"received {received}",
        }
    }


async def test_a_cleared_choice_in_the_inspector_on_2026_07_28_fails_the_call(sdk: str) -> None:
    calls: list[str] = []
    user = ScriptedUser(accept(name="Ada", colour=CLEARED))
    async with connect(
        order_server(sdk, calls), protocol="2026-07-28", user=user, profile=INSPECTOR
    ) as client:
        with pytest.raises(MCPError, match=r"^Protocol value failed schema validation$"):
            await client.call_tool("order", {})
    assert calls == ["order"]  # the tool is never called again


async def test_a_cleared_number_in_the_inspector_on_2026_07_28_arrives_absent(sdk: str) -> None:
    user = ScriptedUser(accept(name="Ada", count=CLEARED))
    async with connect(
        order_server(sdk), protocol="2026-07-28", user=user, profile=INSPECTOR
    ) as client:
        result = await client.call_tool("order", {})
    assert user.requests[0].sent == {
        "action": "accept",
        "content": {"name": "Ada", "speed": "fast"},
    }
    assert "count=None" in text_of(result)


async def test_clearing_a_field_the_inspector_was_not_seen_clearing_fails_the_script(
    sdk: str,
) -> None:
    user = ScriptedUser(accept(name="Ada", note=CLEARED))
    with pytest.raises(ScriptError) as caught:
        async with connect(order_server(sdk), user=user, profile=INSPECTOR) as client:
            await client.call_tool("order", {})
    assert str(caught.value) == (
        "The scripted answer to 'Your order?' clears field 'note', but the mcp-inspector "
        "profile knows only what clearing an optional choice or number does in that client. "
        "Give the field a value, or leave it out."
    )


def test_cleared_reads_as_its_name() -> None:
    assert repr(CLEARED) == "CLEARED"
