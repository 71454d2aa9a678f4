"""The carried state on 2026-07-28: its size as answers pile up, and the caps on a dialogue."""

from __future__ import annotations

import dataclasses
import random
import string
from typing import Annotated, Any

import mcp_types as types
import pytest
from annotated_types import Ge, Le, MaxLen, MinLen
from mcp import Client
from mcp.server.mcpserver import MCPServer

import elicitkit
from elicitkit import Email, ask
from elicitkit.replay import ReplayLimits
from tests.mrtr import accept, never_called, only_question, retry, text_of

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Contact:
    """A 10-field form, as in the issue's measurement."""

    name: str
    street: str
    city: str
    zip_code: str
    country: str
    email: Annotated[str, Email]
    phone: str
    age: Annotated[int, Ge(0), Le(150)]
    vip: bool
    note: str | None = None


def varied_answer(rng: random.Random) -> dict[str, Any]:
    """A plausible answer with fresh random text, so compression has no easy repeats."""

    def word(n: int) -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(n)).title()

    return {
        "name": f"{word(6)} {word(8)}",
        "street": f"{rng.randint(1, 999)} {word(9)} Street",
        "city": word(7),
        "zip_code": f"{rng.randint(1000, 99999)}",
        "country": rng.choice(["Norway", "Sweden", "Denmark", "Finland", "Iceland"]),
        "email": f"{word(6).lower()}@{word(5).lower()}.example",
        "phone": f"+47 {rng.randint(10000000, 99999999)}",
        "age": rng.randint(18, 99),
        "vip": rng.random() < 0.5,
        "note": f"{word(5)} {word(7)} {word(4)}",
    }


def contacts_server(limits: ReplayLimits | None = None) -> MCPServer:
    server = elicitkit.install(MCPServer("sizes"), limits=limits)

    @server.tool()
    async def collect(count: int) -> str:
        names = []
        for index in range(count):
            answer = await ask(Contact, f"Contact {index + 1}?")
            assert answer.content is not None
            names.append(answer.content.name)
        return f"{len(names)} contacts"

    return server


async def state_sizes(checkpoints: list[int]) -> dict[int, int]:
    """The sealed requestState's length on the wire after each checkpoint's number of answers."""
    rng = random.Random(7)  # noqa: S311  (test data, not secrets)
    sizes: dict[int, int] = {}
    args = {"count": max(checkpoints) + 1}
    async with Client(contacts_server(), elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "collect", args))
        for answered in range(1, max(checkpoints) + 1):
            result = await retry(
                client, "collect", args, {key: accept(**varied_answer(rng))}, state
            )
            key, _, state = only_question(result)
            if answered in checkpoints:
                sizes[answered] = len(state)
    return sizes


async def test_the_state_after_20_answers_of_a_10_field_form_is_at_most_4_kib() -> None:
    sizes = await state_sizes([1, 5, 20, 50])
    assert sizes[1] < sizes[5] < sizes[20] < sizes[50]
    assert sizes[1] <= 700
    assert sizes[20] <= 4096
    # The growth is the answers' own text, not framing: ~160 bytes of random text each.
    assert (sizes[50] - sizes[20]) / 30 <= 180


async def test_only_validated_content_is_carried() -> None:
    """An extra 100 kB key in an answer is dropped: it does not travel in later rounds."""
    rng = random.Random(1)  # noqa: S311  (test data, not secrets)
    args = {"count": 2}
    async with Client(contacts_server(), elicitation_callback=never_called) as client:
        key, _, s1 = only_question(await retry(client, "collect", args))
        padded = {**varied_answer(rng), "junk": "x" * 100_000}
        _, _, s2 = only_question(await retry(client, "collect", args, {key: accept(**padded)}, s1))
    assert len(s2) <= 700


async def test_too_many_rounds_end_the_call_with_a_clear_error() -> None:
    server = contacts_server(ReplayLimits(max_rounds=2))
    rng = random.Random(2)  # noqa: S311  (test data, not secrets)
    args = {"count": 3}
    async with Client(server, elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "collect", args))
        key, _, state = only_question(
            await retry(client, "collect", args, {key: accept(**varied_answer(rng))}, state)
        )
        result = await retry(client, "collect", args, {key: accept(**varied_answer(rng))}, state)
    assert isinstance(result, types.CallToolResult)
    assert result.is_error
    assert text_of(result) == (
        "Error executing tool collect: This call would ask round 3 of questions, over "
        "elicitkit's limit of 2 rounds per call, so it stops here instead of asking forever. "
        "Ask fewer questions per call, batch them with ask_all(), or raise "
        "ReplayLimits(max_rounds=...) in install()."
    )


async def test_a_state_over_the_size_cap_ends_the_call_with_a_clear_error() -> None:
    server = contacts_server(ReplayLimits(max_state_bytes=300))
    rng = random.Random(3)  # noqa: S311  (test data, not secrets)
    args = {"count": 3}
    long_note = "".join(rng.choice(string.ascii_letters) for _ in range(400))
    answer = accept(**{**varied_answer(rng), "note": long_note})
    async with Client(server, elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "collect", args))
        result = await retry(client, "collect", args, {key: answer}, state)
    assert isinstance(result, types.CallToolResult)
    assert result.is_error
    text = text_of(result)
    prefix = "Error executing tool collect: The answers this call carries between rounds take "
    assert text.startswith(prefix)
    size = int(text[len(prefix) :].split(" ", 1)[0])
    assert 300 < size < 1000
    assert text == (
        f"{prefix}{size} bytes, over elicitkit's limit of 300 bytes of requestState, so it "
        "cannot ask another question. Ask for less in one call, or raise "
        "ReplayLimits(max_state_bytes=...) in install()."
    )


@pytest.mark.parametrize(
    ("rounds", "size"), [(0, 1024), (10, 255)], ids=["no-rounds", "tiny-state"]
)
def test_limits_that_would_stop_every_dialogue_are_refused(rounds: int, size: int) -> None:
    with pytest.raises(ValueError) as raised:
        ReplayLimits(max_rounds=rounds, max_state_bytes=size)
    assert str(raised.value) == (
        f"ReplayLimits(max_rounds={rounds}, max_state_bytes={size}) would stop every "
        "dialogue: max_rounds must be at least 1 and max_state_bytes at least 256."
    )


def reasking_server(calls: list[str]) -> MCPServer:
    server = elicitkit.install(MCPServer("reask"))

    @server.tool()
    async def zip_code() -> str:
        problems = ""
        for _ in range(3):
            try:
                answer = await ask(Annotated[str, MinLen(4), MaxLen(10)], problems or None)
            except elicitkit.InvalidContent as error:
                problems = str(error)
                continue
            calls.append(str(answer.content))
            return f"zip {answer.content}"
        return "gave up"

    return server


async def test_an_invalid_answer_is_carried_as_its_errors_and_asked_again() -> None:
    """Round 3 replays round 2's invalid answer as the same error, not as its raw content."""
    calls: list[str] = []
    async with Client(reasking_server(calls), elicitation_callback=never_called) as client:
        first, _, s1 = only_question(await retry(client, "zip_code", {}))
        bad = {first: accept(value="9" * 2000)}
        second, params, s2 = only_question(await retry(client, "zip_code", {}, bad, s1))
        assert second != first
        assert "Must be at most 10 characters long" in params["message"]
        assert len(s2) <= 700  # the 2 kB answer is not carried, only its error
        result = await retry(client, "zip_code", {}, {second: accept(value="0150")}, s2)
    assert text_of(result) == "zip 0150"
    assert calls == ["0150"]
