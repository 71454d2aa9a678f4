"""The scripted user answers a multi-select with a list on every era.

On 2025-06-18 a multi-select arrives as one checkbox per option; the scripted user ticks the
boxes of the options listed and unticks the others, so one script serves every era. Each
test runs the real SDK client against servers of both SDKs, in memory, on every era (the
``elicit_connect`` fixture), unless it is about 2025-06-18 alone.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Literal

import mcp_types as types
import pytest

from elicitkit import Overrides, ask
from elicitkit.testing import ScriptedUser, ScriptError, accept, connect
from tests.sdks import new_server

pytestmark = pytest.mark.anyio

Topping = Literal["olives", "basil", "chili"]


class Spice(enum.Enum):
    RED = "r"
    GREEN = "g"
    BLACK = "b"


Spice.__labels__ = {"RED": "Red pepper"}  # type: ignore[attr-defined]  # the others: humanised


@dataclasses.dataclass
class Pizza:
    size: Literal["s", "l"]
    toppings: list[Topping]


@dataclasses.dataclass
class Spices:
    spices: list[Spice]


def make_server(sdk: str) -> Any:
    server = new_server(sdk, "pizzeria")

    @server.tool()
    async def order() -> str:
        pizza = (await ask(Pizza, "Your pizza?")).unwrap()
        return f"{pizza.size}: {', '.join(pizza.toppings) or 'plain'}"

    @server.tool()
    async def spice() -> str:
        answer = await ask(Spices, "Spices?")
        return ", ".join(member.name for member in answer.unwrap().spices)

    @server.tool()
    async def narrowed() -> str:
        choices = Overrides(choices={"toppings": ["basil", "chili"]})
        pizza = (await ask(Pizza, "Your pizza?", overrides=choices)).unwrap()
        return ", ".join(pizza.toppings)

    return server


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_a_list_answers_a_multi_select_on_every_era(
    sdk: str, elicit_connect: Any, elicit_protocol: str
) -> None:
    user = ScriptedUser(accept(size="l", toppings=["olives", "chili"]))
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("order", {})
    assert text_of(result) == "l: olives, chili"
    [request] = user.requests
    sent = request.sent["content"] if request.sent else None
    if elicit_protocol == "2025-06-18":  # every box, ticked or not, as a person answers
        boxes = {"toppings__1": True, "toppings__2": False, "toppings__3": True}
        assert sent == {"size": "l", **boxes}
        assert request.reply == accept(size="l", **boxes)
    else:
        assert sent == {"size": "l", "toppings": ["olives", "chili"]}


async def test_an_empty_list_unticks_every_box(sdk: str, elicit_connect: Any) -> None:
    user = ScriptedUser(accept(size="s", toppings=[]))
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("order", {})
    assert text_of(result) == "s: plain"


async def test_on_form_ticks_labelled_options_by_value(sdk: str, elicit_connect: Any) -> None:
    user = ScriptedUser().on_form(Spices, accept(spices=["r", "b"]))
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("spice", {})
    assert text_of(result) == "RED, BLACK"


async def test_on_key_takes_a_multi_select_on_every_era(sdk: str, elicit_connect: Any) -> None:
    user = ScriptedUser().on_key("toppings", accept(size="s", toppings=["basil"]))
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("order", {})
    assert text_of(result) == "s: basil"


async def test_a_calls_own_options_are_ticked_by_their_boxes_titles(
    sdk: str, elicit_connect: Any
) -> None:
    user = ScriptedUser(accept(size="s", toppings=["chili"]))
    async with elicit_connect(make_server(sdk), user=user) as client:
        result = await client.call_tool("narrowed", {})
    assert text_of(result) == "chili"


async def test_on_2025_06_18_an_in_order_reply_ticks_a_labelled_option_by_its_label(
    sdk: str,
) -> None:
    user = ScriptedUser(accept(spices=["Red pepper", "Green"]))
    async with connect(make_server(sdk), protocol="2025-06-18", user=user) as client:
        result = await client.call_tool("spice", {})
    assert text_of(result) == "RED, GREEN"


async def test_on_2025_06_18_an_option_no_box_shows_fails_the_test(sdk: str) -> None:
    user = ScriptedUser(accept(spices=["r"]))  # a value only the form type knows
    with pytest.raises(ScriptError) as caught:
        async with connect(make_server(sdk), protocol="2025-06-18", user=user) as client:
            await client.call_tool("spice", {})
    assert str(caught.value) == (
        "The scripted answer to 'Spices?' ticks 'r' for 'spices', which 2025-06-18 asks as "
        "checkboxes, and no box is that option: they are 'Spices: Red pepper', 'Spices: "
        "Green', 'Spices: Black'. Give the option's value or the label its box shows, or "
        "answer with on_form(FormType, ...), which knows the options' values."
    )
