"""Several questions in one round: ask_all(), and concurrent ask()s in a task group (both SDKs)."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import Client

import elicitkit
from elicitkit import Question, ask, ask_all
from tests.mrtr import accept, never_called, only_question, questions, retry, text_of
from tests.sdks import in_memory, new_server

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Name:
    name: str


@dataclasses.dataclass
class Colour:
    colour: Literal["red", "green", "blue"]


def batch_server(sdk: str, runs: list[int]) -> Any:
    server = new_server(sdk, "batch")

    @server.tool()
    async def profile() -> str:
        runs.append(1)
        name, colour = await ask_all(Name, Question(Colour, "Favourite colour?", key="colour"))
        seats = await ask(int, "Seats?")
        assert name.content is not None
        assert colour.content is not None
        return f"{name.content.name} likes {colour.content.colour}, {seats.content} seats"

    return server


async def test_ask_all_is_one_round_with_several_questions_on_2026_07_28(sdk: str) -> None:
    runs: list[int] = []
    server = in_memory(batch_server(sdk, runs))
    async with Client(server, elicitation_callback=never_called) as client:
        asked, state = questions(await retry(client, "profile", {}))
        assert list(asked) == ["name#1", "colour"]
        assert asked["colour"]["message"] == "Favourite colour?"
        assert asked["name#1"]["requestedSchema"] == elicitkit.requested_schema(Name)
        both = {"name#1": accept(name="Ada"), "colour": accept(colour="blue")}
        key, _, state = only_question(await retry(client, "profile", {}, both, state))
        assert key == "int#1"
        final = await retry(client, "profile", {}, {key: accept(value=2)}, state)
    assert text_of(final) == "Ada likes blue, 2 seats"
    assert len(runs) == 3


async def test_ask_all_asks_again_only_what_is_still_unanswered(sdk: str) -> None:
    runs: list[int] = []
    server = in_memory(batch_server(sdk, runs))
    async with Client(server, elicitation_callback=never_called) as client:
        _, state = questions(await retry(client, "profile", {}))
        half = {"name#1": accept(name="Ada")}
        asked, state = questions(await retry(client, "profile", {}, half, state))
        assert list(asked) == ["colour"]
        key, _, state = only_question(
            await retry(client, "profile", {}, {"colour": accept(colour="red")}, state)
        )
        final = await retry(client, "profile", {}, {key: accept(value=1)}, state)
    assert text_of(final) == "Ada likes red, 1 seats"


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_ask_all_through_the_sdk_client_shows_each_question_once(
    sdk: str, mode: Literal["legacy", "auto"]
) -> None:
    shown: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params.message)
        replies = {
            "Please fill in: Name.": accept(name="Bo"),
            "Favourite colour?": accept(colour="green"),
            "Seats?": accept(value=3),
        }
        return replies[params.message]

    runs: list[int] = []
    server = in_memory(batch_server(sdk, runs))
    async with Client(server, elicitation_callback=answer, mode=mode) as client:
        result = await client.call_tool("profile", {})
    assert text_of(result) == "Bo likes green, 3 seats"
    assert shown == ["Please fill in: Name.", "Favourite colour?", "Seats?"]
    assert len(runs) == (1 if mode == "legacy" else 3)


@pytest.mark.parametrize(
    ("held", "rounds"),
    [
        pytest.param(False, 1, id="both-reach-ask-batched"),
        pytest.param(True, 2, id="one-cancelled"),
    ],
)
async def test_concurrent_asks_in_a_task_group_never_show_a_question_twice(
    sdk: str, held: bool, rounds: int
) -> None:
    """Concurrent ask()s that reach their question before the round ends go out together;
    a sibling cancelled before it reached its ask() asks in a later round. Default keys are
    per form, so the order the tasks run in never changes a key."""
    server = new_server(sdk, "group")
    runs: list[int] = []

    @server.tool()
    async def both() -> str:
        runs.append(1)
        got: dict[str, Any] = {}

        async def get(label: str, tp: Any, hold: bool) -> None:
            if hold and len(runs) == 1:  # the first round ends (and cancels it) meanwhile
                await anyio.sleep_forever()
            got[label] = (await ask(tp)).content

        async with anyio.create_task_group() as group:
            group.start_soon(get, "name", Name, False)
            group.start_soon(get, "colour", Colour, held)
        return f"{got['name'].name}/{got['colour'].colour}"

    shown: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(str(context.request_id))
        return accept(name="Cy") if "Name" in params.message else accept(colour="red")

    async with Client(in_memory(server), elicitation_callback=answer) as client:
        result = await client.call_tool("both", {})
    assert text_of(result) == "Cy/red"
    assert sorted(shown) == ["colour#1", "name#1"]
    assert len(runs) == rounds + 1
