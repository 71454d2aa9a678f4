"""Question keys on 2026-07-28: explicit keys on the wire, readable defaults, duplicates refused.

Every case runs on both server SDKs (the ``sdk`` fixture).
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

import pytest
from mcp import Client

from elicitkit import FormDefinitionError, FormField, ask, ask_text, choose
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.sdks import in_memory, new_server

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class ShippingAddress:
    street: str
    city: str


async def first_keys(sdk: str, tool: Any, answers: list[Any]) -> list[str]:
    """Run ``tool`` round by hand, answering in order; return each round's question key."""
    server = new_server(sdk, "keys")
    server.tool(name="t")(tool)
    keys: list[str] = []
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        result = await retry(client, "t", {})
        state = None
        for answer in answers:
            key, _, state = only_question(result)
            keys.append(key)
            result = await retry(client, "t", {}, {key: answer}, state)
        assert text_of(result) == "done"
    return keys


async def test_explicit_keys_go_on_the_wire_as_given(sdk: str) -> None:
    async def tool() -> str:
        await ask(str, "Your name?", key="user_name")
        await ask(bool, "Sure?", key="step1.confirm")
        return "done"

    keys = await first_keys(sdk, tool, [accept(value="Ada"), accept(value=True)])
    assert keys == ["user_name", "step1.confirm"]


async def test_default_keys_name_the_form_and_count_its_asks(sdk: str) -> None:
    async def tool() -> str:
        await ask(ShippingAddress, "From?")
        await ask(ShippingAddress, "To?")
        await ask(int, "How many?")
        await ask(Literal["red", "blue"], "Colour?")
        await ask(bool, "Sure?", key="shipping_address")  # an explicit key cannot collide
        return "done"

    address = accept(street="1 Main St", city="Oslo")
    answers = [address, address, accept(value=2), accept(value="red"), accept(value=True)]
    keys = await first_keys(sdk, tool, answers)
    assert keys == [
        "shipping_address#1",
        "shipping_address#2",
        "int#1",
        "literal_red_blue#1",
        "shipping_address",
    ]


async def test_default_keys_of_one_liners_leave_their_metadata_out(sdk: str) -> None:
    async def tool() -> str:
        await choose("Size?", ["s", "m"])
        await ask_text("Name?")
        await ask(Annotated[int, FormField(title="Seats")], "How many?")
        return "done"

    answers = [accept(value="s"), accept(value="Ada"), accept(value=2)]
    keys = await first_keys(sdk, tool, answers)
    assert keys == ["literal_s_m#1", "str#1", "int#1"]


@pytest.mark.parametrize(
    ("key", "message"),
    [
        pytest.param(
            "",
            "Cannot use '' as the key of a question to str: a key is 1 to 64 letters, digits, "
            "'_', '-' or '.'. Choose a key like 'user_name'.",
            id="empty",
        ),
        pytest.param(
            "a#1",
            "Cannot use 'a#1' as the key of a question to str: a key is 1 to 64 letters, "
            "digits, '_', '-' or '.'. Choose a key like 'user_name'.",
            id="hash-is-for-defaults",
        ),
        pytest.param(
            "k" * 65,
            f"Cannot use '{'k' * 65}' as the key of a question to str: a key is 1 to 64 "
            "letters, digits, '_', '-' or '.'. Choose a key like 'user_name'.",
            id="too-long",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_a_malformed_key_is_refused_before_anything_is_sent(
    sdk: str, key: str, message: str, mode: Literal["legacy", "auto"]
) -> None:
    server = new_server(sdk, "keys")
    refused: list[str] = []

    @server.tool()
    async def t() -> str:
        try:
            await ask(str, "Name?", key=key)
        except FormDefinitionError as error:
            refused.append(str(error))
        return "done"

    async with Client(in_memory(server), elicitation_callback=never_called, mode=mode) as client:
        assert text_of(await client.call_tool("t", {})) == "done"
    assert refused == [message]


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_a_key_used_twice_in_one_call_is_refused(
    sdk: str, mode: Literal["legacy", "auto"]
) -> None:
    server = new_server(sdk, "keys")
    refused: list[str] = []

    @server.tool()
    async def t() -> str:
        await ask(str, "Name?", key="item")
        try:
            await ask(int, "Count?", key="item")
        except FormDefinitionError as error:
            refused.append(str(error))
        return "done"

    async def answer(context: Any, params: Any) -> Any:
        return accept(value="Ada")

    async with Client(in_memory(server), elicitation_callback=answer, mode=mode) as client:
        assert text_of(await client.call_tool("t", {})) == "done"
    assert refused == [
        (
            "Two questions in one call use the key 'item', so their answers could not be told "
            "apart. Give each ask() its own key, e.g. key=f'item_{i}' in a loop."
        )
    ]
