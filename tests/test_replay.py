"""Replay on MCP 2026-07-28, end to end: the real mcp.Client against a real MCPServer, in memory.

On 2026-07-28 the first unanswered ``ask()`` ends the run with an ``InputRequiredResult``
holding that one question; the client retries the same ``tools/call`` with the answer and
the sealed ``requestState``, and the tool runs again from the top. These tests check that
each question reaches the user exactly once, that answers stay with their question and their
call, and that the SDK's request-state boundary really guards the carried answers.
"""

from __future__ import annotations

import base64
import dataclasses
import re
import tempfile
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Annotated, Any

import anyio
import anyio.lowlevel
import mcp_types as types
import pytest
from annotated_types import MinLen
from mcp import Client, InputRequiredRoundsExceededError
from mcp.server import request_state as request_state_module
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit import ask
from elicitkit._compat import BaseExceptionGroup
from elicitkit._replay.state import NeedInput

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
KEY = re.compile(r"([a-z0-9_]+)#(\d+)")
BAD_STATE = (-32602, "Invalid or expired requestState")


@dataclasses.dataclass
class Person:
    name: str
    age: int


@dataclasses.dataclass
class Address:
    street: str
    city: str


@dataclasses.dataclass
class Zip:
    zip_code: Annotated[str, MinLen(4)]
    floor: int


ADA = {"name": "Ada", "age": 36}


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


def new_server(name: str = "replay", **kwargs: Any) -> MCPServer:
    server = MCPServer(name, **kwargs)
    elicitkit.install(server)
    return server


class Asked:
    """An elicitation callback: answers with ``answer(key, message)``; records what it saw."""

    def __init__(self, answer: Callable[[str, str], types.ElicitResult]) -> None:
        self.answer = answer
        self.shown: list[tuple[str, str]] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        key = str(context.request_id)
        self.shown.append((key, params.message))
        return self.answer(key, params.message)

    @property
    def keys(self) -> list[str]:
        return [key for key, _ in self.shown]

    @property
    def messages(self) -> list[str]:
        return [message for _, message in self.shown]


def by_message(answers: dict[str, types.ElicitResult]) -> Asked:
    return Asked(lambda key, message: answers[message])


async def never_called(context: Any, params: Any) -> types.ElicitResult:
    """Declares the elicitation capability; rounds driven by hand never reach it."""
    raise AssertionError("the callback must not be called when rounds are driven by hand")


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def number(key: str) -> int:
    """The default key's number: how many times the call has asked this form so far."""
    match = KEY.fullmatch(key)
    assert match is not None, key
    return int(match.group(2))


async def call(client: Client, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """``client.call_tool`` (the SDK drives the rounds), failing plainly if a signal leaks.

    elicitkit's run-ending signal is a BaseException: should it ever escape the server, it
    would come out of the in-memory client as is; a plain failure keeps the report readable.
    """
    try:
        return await client.call_tool(name, arguments)
    except (NeedInput, BaseExceptionGroup) as leaked:
        raise AssertionError(f"escaped the server unconverted: {leaked!r}") from None


async def retry(
    client: Client,
    name: str,
    arguments: dict[str, Any],
    answers: types.InputResponses | None = None,
    state: str | None = None,
) -> types.CallToolResult | types.InputRequiredResult:
    """One round driven by hand: ``tools/call`` with these answers and this state."""
    try:
        return await client.session.call_tool(
            name,
            arguments,
            input_responses=answers,
            request_state=state,
            allow_input_required=True,
        )
    except (NeedInput, BaseExceptionGroup) as leaked:
        raise AssertionError(f"escaped the server unconverted: {leaked!r}") from None


def only_question(result: object) -> tuple[str, dict[str, Any], str]:
    """The key, wire params and requestState of an InputRequiredResult with one question."""
    assert isinstance(result, types.InputRequiredResult), result
    assert result.input_requests is not None
    assert len(result.input_requests) == 1
    ((key, request),) = result.input_requests.items()
    wire = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire["method"] == "elicitation/create"
    assert result.request_state is not None
    return key, wire["params"], result.request_state


# -- 1. Several asks in one tool ------------------------------------------------------------


async def test_three_asks_each_shown_once_and_the_body_runs_four_times() -> None:
    server = new_server()
    runs: list[str] = []
    finals: list[tuple[Any, Any, Any]] = []

    @server.tool()
    async def sign_up(plan: str) -> str:
        runs.append(plan)
        person = await ask(Person, f"Who signs up for {plan}?")
        confirm = await ask(bool, f"Sign up for {plan}?")
        seats = await ask(int, "How many seats?")
        finals.append((person.content, confirm.content, seats.content))
        return f"{person.content} {confirm.content} {seats.content}"

    asked = by_message(
        {
            "Who signs up for pro?": accept(**ADA),
            "Sign up for pro?": accept(value=True),
            "How many seats?": accept(value=3),
        }
    )
    async with Client(server, elicitation_callback=asked) as client:
        assert client.protocol_version == MODERN
        result = await call(client, "sign_up", {"plan": "pro"})

    assert not result.is_error, text_of(result)
    assert asked.messages == ["Who signs up for pro?", "Sign up for pro?", "How many seats?"]
    assert asked.keys == ["person#1", "bool#1", "int#1"]
    assert runs == ["pro"] * 4
    assert finals == [(Person("Ada", 36), True, 3)]
    person, confirm, seats = finals[0]
    assert type(person) is Person
    assert type(confirm) is bool
    assert type(seats) is int
    assert text_of(result) == "Person(name='Ada', age=36) True 3"


# -- 2. A refusal in round two --------------------------------------------------------------


@pytest.mark.parametrize("action", ["decline", "cancel"], ids=["decline", "cancel"])
async def test_refusal_in_round_two_ends_the_tool_and_the_third_question_is_never_asked(
    action: str,
) -> None:
    server = new_server()
    runs: list[int] = []
    outcomes: list[elicitkit.ElicitResultTyped[bool]] = []

    @server.tool()
    async def delete_account(user: str) -> str:
        runs.append(1)
        person = await ask(Person, f"Who is deleting {user}?")
        confirm = await ask(bool, f"Really delete {user}?")
        outcomes.append(confirm)
        if not confirm.is_accepted():
            return f"kept {user} ({confirm.action})"
        await ask(str, "Why are you leaving?")
        return f"deleted {user} for {person.content}"

    asked = by_message(
        {
            "Who is deleting bob?": accept(**ADA),
            "Really delete bob?": types.ElicitResult(action=action),  # type: ignore[arg-type]
            "Why are you leaving?": accept(value="never asked"),
        }
    )
    async with Client(server, elicitation_callback=asked) as client:
        result = await call(client, "delete_account", {"user": "bob"})

    assert not result.is_error, text_of(result)
    assert text_of(result) == f"kept bob ({action})"
    assert asked.messages == ["Who is deleting bob?", "Really delete bob?"]
    assert len(runs) == 3
    assert len(outcomes) == 1
    assert outcomes[0].is_declined() is (action == "decline")
    assert outcomes[0].is_cancelled() is (action == "cancel")
    assert outcomes[0].content is None


# -- 3. The same form asked twice -----------------------------------------------------------


async def test_the_same_form_asked_twice_is_two_questions_with_their_own_answers() -> None:
    server = new_server()
    runs: list[int] = []
    finals: list[tuple[Any, Any]] = []

    @server.tool()
    async def move() -> str:
        runs.append(1)
        old = await ask(Address, "Which address?")
        new = await ask(Address, "Which address?")
        finals.append((old.content, new.content))
        return "moved"

    old_answer = accept(street="1 Old Road", city="Oslo")
    new_answer = accept(street="2 New Street", city="Bergen")
    asked = Asked(lambda key, message: old_answer if number(key) == 1 else new_answer)
    async with Client(server, elicitation_callback=asked) as client:
        result = await call(client, "move", {})

    assert not result.is_error, text_of(result)
    assert asked.messages == ["Which address?", "Which address?"]
    first, second = asked.keys
    assert first != second
    assert (first, second) == ("address#1", "address#2")
    assert len(runs) == 3
    assert finals == [(Address("1 Old Road", "Oslo"), Address("2 New Street", "Bergen"))]


# -- 4. Rounds driven by hand ---------------------------------------------------------------


class Booking:
    """A server with a three-question tool and a second tool that asks the same first question."""

    def __init__(self, name: str = "replay", **kwargs: Any) -> None:
        self.server = new_server(name, **kwargs)
        self.runs: list[str] = []
        self.finals: list[tuple[Any, Any, Any]] = []

        @self.server.tool()
        async def book(room: str) -> str:
            self.runs.append(f"book {room}")
            person = await ask(Person, f"Who is booking {room}?")
            confirm = await ask(bool, "Confirm the booking?")
            nights = await ask(int, "How many nights?")
            self.finals.append((person.content, confirm.content, nights.content))
            return f"{person.content} booked {room}: {confirm.content}, {nights.content} nights"

        @self.server.tool()
        async def unbook(room: str) -> str:
            self.runs.append(f"unbook {room}")
            person = await ask(Person, f"Who is booking {room}?")
            return f"{person.content} unbooked {room}"


async def test_input_required_result_shape() -> None:
    booking = Booking()
    async with Client(booking.server, elicitation_callback=never_called) as client:
        first = await retry(client, "book", {"room": "101"})

    key, params, state = only_question(first)
    assert key == "person#1"
    assert params == {
        "mode": "form",
        "message": "Who is booking 101?",
        "requestedSchema": elicitkit.requested_schema(Person, protocol=MODERN),
    }
    wire = first.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire["resultType"] == "input_required"
    assert set(wire) == {"resultType", "inputRequests", "requestState"}
    # Sealed: nothing of elicitkit's plaintext state is readable.
    assert state.startswith("v1.")
    body = state[len("v1.") :]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    assert b"person" not in raw
    assert b'"d"' not in raw
    assert booking.runs == ["book 101"]


async def test_rounds_by_hand_complete_with_every_answer() -> None:
    booking = Booking()
    async with Client(booking.server, elicitation_callback=never_called) as client:
        args = {"room": "101"}
        k0, _, s1 = only_question(await retry(client, "book", args))
        k1, p1, s2 = only_question(await retry(client, "book", args, {k0: accept(**ADA)}, s1))
        k2, p2, s3 = only_question(await retry(client, "book", args, {k1: accept(value=True)}, s2))
        final = await retry(client, "book", args, {k2: accept(value=2)}, s3)

    assert [k0, k1, k2] == ["person#1", "bool#1", "int#1"]
    assert (p1["message"], p2["message"]) == ("Confirm the booking?", "How many nights?")
    assert isinstance(final, types.CallToolResult)
    assert not final.is_error, text_of(final)
    assert booking.finals == [(Person("Ada", 36), True, 2)]
    assert len(booking.runs) == 4


async def _tampered(client: Client, booking: Booking, key: str, state: str) -> None:
    middle = len(state) // 2
    flipped = "B" if state[middle] == "A" else "A"
    await retry(
        client,
        "book",
        {"room": "101"},
        {key: accept(**ADA)},
        state[:middle] + flipped + state[middle + 1 :],
    )


async def _expired(client: Client, booking: Booking, key: str, state: str) -> None:
    later = time.time() + 601  # the default TTL is 600 s
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(request_state_module, "time", SimpleNamespace(time=lambda: later))
        await retry(client, "book", {"room": "101"}, {key: accept(**ADA)}, state)


async def _other_arguments(client: Client, booking: Booking, key: str, state: str) -> None:
    await retry(client, "book", {"room": "102"}, {key: accept(**ADA)}, state)


async def _other_tool(client: Client, booking: Booking, key: str, state: str) -> None:
    # `unbook` asks the very same first question, so only the binding can refuse this.
    await retry(client, "unbook", {"room": "101"}, {key: accept(**ADA)}, state)


async def _other_machine(client: Client, booking: Booking, key: str, state: str) -> None:
    # Same name and tools, on another machine: its own state folder, so its own key file.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", tempfile.mkdtemp(prefix="elicitkit-other-machine-"))
        other = Booking()
    refused: MCPError | None = None
    async with Client(other.server, elicitation_callback=never_called) as other_client:
        try:
            await retry(other_client, "book", {"room": "101"}, {key: accept(**ADA)}, state)
        except MCPError as error:  # re-raised outside, where no task group wraps it
            refused = error
    assert other.runs == []
    if refused is not None:
        raise refused


REJECTED = [
    pytest.param(_tampered, id="tampered"),
    pytest.param(_expired, id="expired"),
    pytest.param(_other_arguments, id="other-arguments"),
    pytest.param(_other_tool, id="other-tool"),
    pytest.param(_other_machine, id="other-machine"),
]


@pytest.mark.parametrize("bad_retry", REJECTED)
async def test_a_request_state_that_does_not_fit_is_rejected_before_the_tool_runs(
    bad_retry: Callable[..., Any],
) -> None:
    booking = Booking()
    async with Client(booking.server, elicitation_callback=never_called) as client:
        first = await retry(client, "book", {"room": "101"})
        key, _, state = only_question(first)
        assert booking.runs == ["book 101"]
        with pytest.raises(MCPError) as raised:
            await bad_retry(client, booking, key, state)
        assert (raised.value.code, raised.value.message) == BAD_STATE
        assert booking.runs == ["book 101"]  # the tool body did not run again
        # The genuine retry still works afterwards.
        second = await retry(client, "book", {"room": "101"}, {key: accept(**ADA)}, state)
    next_key, params, _ = only_question(second)
    assert next_key == "bool#1"
    assert params["message"] == "Confirm the booking?"


async def test_a_request_state_past_a_short_ttl_is_rejected() -> None:
    booking = Booking(request_state_security=RequestStateSecurity.ephemeral(ttl=0.2))
    async with Client(booking.server, elicitation_callback=never_called) as client:
        first = await retry(client, "book", {"room": "101"})
        key, _, state = only_question(first)
        await anyio.sleep(0.3)  # the SDK seals the state and judges its age by time.time
        with pytest.raises(MCPError) as raised:
            await retry(client, "book", {"room": "101"}, {key: accept(**ADA)}, state)
    assert (raised.value.code, raised.value.message) == BAD_STATE
    assert booking.runs == ["book 101"]


def _wrong_form(key: str) -> str:
    return "bool#1"


def _wrong_number(key: str) -> str:
    return "person#2"


def _not_ours(key: str) -> str:
    return "person"


@pytest.mark.parametrize(
    "misdirect",
    [
        pytest.param(_wrong_form, id="wrong-form"),
        pytest.param(_wrong_number, id="wrong-number"),
        pytest.param(_not_ours, id="foreign-key"),
    ],
)
async def test_an_answer_under_another_key_is_never_taken_for_the_question(
    misdirect: Callable[[str], str],
) -> None:
    booking = Booking()
    mallory = accept(name="Mallory", age=99)
    async with Client(booking.server, elicitation_callback=never_called) as client:
        args = {"room": "101"}
        k0, p0, s1 = only_question(await retry(client, "book", args))
        again = await retry(client, "book", args, {misdirect(k0): mallory}, s1)
        k0_again, p0_again, s2 = only_question(again)
        assert (k0_again, p0_again) == (k0, p0)  # the same question, asked again
        # Answered properly now, the run goes on; Mallory's answer never shows up.
        k1, _, s3 = only_question(await retry(client, "book", args, {k0: accept(**ADA)}, s2))
        k2, _, s4 = only_question(await retry(client, "book", args, {k1: accept(value=True)}, s3))
        final = await retry(client, "book", args, {k2: accept(value=1)}, s4)
    assert isinstance(final, types.CallToolResult)
    assert not final.is_error, text_of(final)
    assert booking.finals == [(Person("Ada", 36), True, 1)]


async def test_an_answer_sent_before_its_question_was_asked_is_ignored() -> None:
    booking = Booking()
    k0, k1 = "person#1", "bool#1"  # default keys are readable and predictable
    async with Client(booking.server, elicitation_callback=never_called) as client:
        args = {"room": "101"}
        # Round one, no state: even the right key is not taken.
        first, _, s1 = only_question(await retry(client, "book", args, {k0: accept(**ADA)}))
        assert first == k0
        # Round two answers the first question and, ahead of time, the second.
        second, _, s2 = only_question(
            await retry(client, "book", args, {k0: accept(**ADA), k1: accept(value=False)}, s1)
        )
        assert second == k1  # asked all the same
        k2, _, s3 = only_question(await retry(client, "book", args, {k1: accept(value=True)}, s2))
        final = await retry(client, "book", args, {k2: accept(value=1)}, s3)
    assert isinstance(final, types.CallToolResult)
    assert booking.finals == [(Person("Ada", 36), True, 1)]


async def test_a_later_retry_cannot_replace_a_carried_answer() -> None:
    booking = Booking()
    mallory = accept(name="Mallory", age=99)
    async with Client(booking.server, elicitation_callback=never_called) as client:
        args = {"room": "101"}
        k0, _, s1 = only_question(await retry(client, "book", args))
        k1, _, s2 = only_question(await retry(client, "book", args, {k0: accept(**ADA)}, s1))
        k2, _, s3 = only_question(
            await retry(client, "book", args, {k1: accept(value=True), k0: mallory}, s2)
        )
        final = await retry(client, "book", args, {k2: accept(value=1), k0: mallory}, s3)
    assert isinstance(final, types.CallToolResult)
    assert not final.is_error, text_of(final)
    assert booking.finals == [(Person("Ada", 36), True, 1)]


@pytest.mark.parametrize("responses", [None, {}], ids=["no-input-responses", "empty-responses"])
async def test_a_retry_without_the_answer_asks_the_question_again(
    responses: types.InputResponses | None,
) -> None:
    booking = Booking()
    async with Client(booking.server, elicitation_callback=never_called) as client:
        k0, p0, s1 = only_question(await retry(client, "book", {"room": "101"}))
        again = await retry(client, "book", {"room": "101"}, responses, s1)
    k0_again, p0_again, _ = only_question(again)
    assert (k0_again, p0_again) == (k0, p0)
    assert booking.runs == ["book 101", "book 101"]
    assert booking.finals == []


async def test_an_answer_carried_in_the_state_is_not_asked_again() -> None:
    booking = Booking()
    async with Client(booking.server, elicitation_callback=never_called) as client:
        args = {"room": "101"}
        k0, _, s1 = only_question(await retry(client, "book", args))
        k1, _, s2 = only_question(await retry(client, "book", args, {k0: accept(**ADA)}, s1))
        # Round 3 sends only round 2's answer: the first answer travels in s2.
        k2, p2, s3 = only_question(await retry(client, "book", args, {k1: accept(value=False)}, s2))
        assert k2 == "int#1"
        assert p2["message"] == "How many nights?"
        # Control: with round 1's state instead, round 2's answer alone cannot stand in for
        # the first question, which is asked again.
        back, _, _ = only_question(await retry(client, "book", args, {k1: accept(value=False)}, s1))
        assert back == k0
        final = await retry(client, "book", args, {k2: accept(value=4)}, s3)
    assert isinstance(final, types.CallToolResult)
    assert not final.is_error, text_of(final)
    assert booking.finals == [(Person("Ada", 36), False, 4)]


# -- 5. Concurrent calls --------------------------------------------------------------------


async def test_concurrent_calls_on_one_client_keep_their_own_answers() -> None:
    server = new_server()
    runs: list[str] = []

    @server.tool()
    async def order(item: str) -> str:
        runs.append(item)
        code = await ask(str, f"Code for {item}?")
        quantity = await ask(int, f"Quantity of {item}?")
        return f"{item}:{code.content}:{quantity.content}"

    items = ["apple", "kiwi", "banana", "fig", "cherry"]

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        item = params.message.rsplit(" ", 1)[1].rstrip("?")
        for _ in range(len(item) % 3):  # interleave the rounds of the calls
            await anyio.lowlevel.checkpoint()
        if params.message.startswith("Code"):
            return accept(value=f"{item}-code")
        return accept(value=len(item))

    results: dict[str, str] = {}
    async with Client(server, elicitation_callback=answer) as client:

        async def one(item: str) -> None:
            result = await call(client, "order", {"item": item})
            assert not result.is_error, text_of(result)
            results[item] = text_of(result)

        async with anyio.create_task_group() as group:
            for item in items:
                group.start_soon(one, item)

    assert results == {item: f"{item}:{item}-code:{len(item)}" for item in items}
    assert sorted(runs) == sorted(items * 3)


async def test_concurrent_calls_asking_the_identical_question_keep_their_own_answers() -> None:
    """Every call asks the very same questions (same keys); only the call tells them apart."""
    server = new_server()

    @server.tool()
    async def pick() -> str:
        colour = await ask(str, "Your colour?")
        number = await ask(int, "Your number?")
        return f"{colour.content}/{number.content}"

    users = {"ann": 1, "bob": 22, "cid": 333, "dee": 4444}
    seen_keys: set[str] = set()
    results: dict[str, str] = {}

    async def one(user: str, number: int) -> None:
        async def answer(context: Any, params: Any) -> types.ElicitResult:
            seen_keys.add(str(context.request_id))
            for _ in range(number % 4):  # interleave the calls' rounds
                await anyio.lowlevel.checkpoint()
            if params.message == "Your colour?":
                return accept(value=f"{user}-colour")
            return accept(value=number)

        async with Client(server, elicitation_callback=answer) as client:
            result = await call(client, "pick", {})
        assert not result.is_error, text_of(result)
        results[user] = text_of(result)

    async with anyio.create_task_group() as group:
        for user, number in users.items():
            group.start_soon(one, user, number)

    assert len(seen_keys) == 2  # the questions really are identical across the calls
    assert results == {user: f"{user}-colour/{number}" for user, number in users.items()}


# -- 6. Task groups inside a tool -----------------------------------------------------------


async def test_ask_inside_a_task_group_child_works() -> None:
    server = new_server()
    runs: list[int] = []

    @server.tool()
    async def fan_out(n: int) -> str:
        runs.append(n)
        got: list[Any] = []

        async def child() -> None:
            got.append((await ask(int, f"A number for {n}?")).content)

        async with anyio.create_task_group() as group:
            group.start_soon(child)
        return f"{n}+{got[0]}"

    asked = by_message({"A number for 5?": accept(value=7)})
    async with Client(server, elicitation_callback=asked) as client:
        result = await call(client, "fan_out", {"n": 5})

    assert not result.is_error, text_of(result)
    assert text_of(result) == "5+7"
    assert asked.messages == ["A number for 5?"]
    assert runs == [5, 5]


async def test_a_real_error_beside_an_unanswered_ask_in_a_task_group_is_an_error() -> None:
    """Both children fail in the same run: the real error wins over the question."""
    server = new_server()
    runs: list[int] = []

    @server.tool()
    async def risky() -> str:
        runs.append(1)
        both_started = anyio.Event()

        async def failing() -> None:
            with anyio.CancelScope(shield=True):
                await both_started.wait()
            raise RuntimeError("disk full")

        async def asking() -> None:
            with anyio.CancelScope(shield=True):
                both_started.set()
                await anyio.lowlevel.checkpoint()
            await ask(int, "A number?")

        async with anyio.create_task_group() as group:
            group.start_soon(failing)
            group.start_soon(asking)
        return "unreachable"

    asked = by_message({"A number?": accept(value=1)})
    async with Client(server, elicitation_callback=asked) as client:
        try:
            outcome: object = await retry(client, "risky", {})
        except MCPError as error:
            outcome = error  # a JSON-RPC error is one acceptable way to report the failure
    assert not isinstance(outcome, types.InputRequiredResult)
    assert isinstance(outcome, MCPError) or (
        isinstance(outcome, types.CallToolResult) and outcome.is_error
    ), outcome
    assert asked.shown == []
    assert runs == [1]


# -- 7. A question that changes between rounds ----------------------------------------------


async def test_a_message_that_changes_between_rounds_is_a_new_question() -> None:
    """Intended: the digest covers the rendered question, so an answer is never reused for
    a question that reads differently. A message built from something that changes on
    every run (here a run counter) is therefore asked again each round (under the same key:
    the digest travels in the state); once the message settles, the answer to the latest
    wording is used.
    """
    server = new_server()
    runs: list[int] = []

    @server.tool()
    async def counted() -> str:
        runs.append(1)
        answer = await ask(int, f"Asked on run {len(runs)}: a number?")
        return f"{answer.content}"

    @server.tool()
    async def settling() -> str:
        runs.append(1)
        answer = await ask(int, f"Version {min(len(runs), 2)}: a number?")
        return f"{answer.content}"

    async with Client(server, elicitation_callback=never_called) as client:
        first_key, first, state = only_question(await retry(client, "counted", {}))
        second_key, second, _ = only_question(
            await retry(client, "counted", {}, {first_key: accept(value=1)}, state)
        )
    assert (first["message"], second["message"]) == (
        "Asked on run 1: a number?",
        "Asked on run 2: a number?",
    )
    assert first_key == second_key == "int#1"

    runs.clear()
    asked = by_message(
        {"Version 1: a number?": accept(value=1), "Version 2: a number?": accept(value=2)}
    )
    async with Client(server, elicitation_callback=asked) as client:
        result = await call(client, "settling", {})
    assert text_of(result) == "2"
    assert asked.messages == ["Version 1: a number?", "Version 2: a number?"]
    assert len(runs) == 3

    runs.clear()
    answers = Asked(lambda key, message: accept(value=0))
    async with Client(server, elicitation_callback=answers, input_required_max_rounds=3) as client:
        with pytest.raises(InputRequiredRoundsExceededError):
            await call(client, "counted", {})
    assert len(answers.shown) == 3
    assert answers.keys == ["int#1"] * 3


# -- 8. An invalid answer on the replay path ------------------------------------------------


@pytest.mark.parametrize(
    ("content", "problems"),
    [
        pytest.param(
            {"zip_code": "12", "floor": 1},
            "1 problem: zip_code: Must be at least 4 characters long.",
            id="too-short",
        ),
        pytest.param(
            {"floor": 1}, "1 problem: zip_code: This field is required.", id="missing-field"
        ),
        pytest.param(
            {"zip_code": 5, "floor": "x"},
            "2 problems: zip_code: Expected text, got the number 5. "
            "floor: Expected a whole number, got the text 'x'.",
            id="wrong-types",
        ),
    ],
)
async def test_an_invalid_answer_on_replay_is_an_error_result_listing_the_field_errors(
    content: dict[str, Any], problems: str
) -> None:
    server = new_server()
    runs: list[int] = []

    @server.tool()
    async def ship() -> str:
        runs.append(1)
        await ask(bool, "Ship it?")
        await ask(Zip, "Where to?", retries=0)  # re-asking: tests/test_retry.py
        return "shipped"

    asked = by_message({"Ship it?": accept(value=True), "Where to?": accept(**content)})
    async with Client(server, elicitation_callback=asked) as client:
        result = await call(client, "ship", {})

    assert result.is_error
    text = text_of(result)
    assert f"The answer to Zip has {problems}" in text
    assert "Traceback" not in text
    assert 'File "' not in text
    assert "NeedInput" not in text
    assert asked.messages == ["Ship it?", "Where to?"]
    assert len(runs) == 3
