"""Durable steps: ``await step(key, fn)`` runs ``fn`` once per dialogue, on every era.

Driven with the real SDK client and raw 2026-07-28 rounds (tests/mrtr.py) on both server
SDKs, with the memory store and a real redis-server shared by two server instances: the
rounds alternate between them, a round is resent with an older state, the final round is
resent, and ``fn`` raises. Each ``fn`` runs exactly once. The same tool on 2025-11-25 runs
each step once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import secrets
import sys
from collections import Counter
from types import ModuleType
from typing import Any

import anyio
import mcp_types as types
import pytest
from fastmcp import FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit import ask, step
from elicitkit._replay.once import INTERRUPTED
from elicitkit._runtime.step_values import ANY_LOADED, Rebuildable, decode, encode
from elicitkit.errors import StepDefinitionError
from elicitkit.replay import replaying
from elicitkit.stores import MemoryStore, OutcomeStore
from elicitkit.url import ask_url, require_url
from tests.conftest import StoreFactory
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.sdks import ERAS, in_memory, tool_error

pytestmark = pytest.mark.anyio

SECRET = secrets.token_bytes(32)


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Quote:
    item: str
    price: int
    valid_until: dt.datetime
    colour: Colour


class CardDeclinedError(ValueError):
    pass


@dataclasses.dataclass
class Ran:
    counts: Counter[str] = dataclasses.field(default_factory=Counter[str])
    replays: list[bool] = dataclasses.field(default_factory=list[bool])


def shop(sdk: str, store: OutcomeStore, ran: Ran) -> Any:
    security = RequestStateSecurity(keys=[SECRET])
    server: Any = (
        MCPServer("shop", request_state_security=security)
        if sdk == "mcp"
        else FastMCP("shop", request_state_security=security)
    )
    elicitkit.install(server, store=store)

    async def quote(item: str) -> Quote:
        ran.counts["quote"] += 1
        when = dt.datetime(2026, 7, 28, 12, tzinfo=dt.timezone.utc)
        return Quote(item, 42, when, Colour.RED)

    def charge(amount: int, *, decline: bool) -> str:
        ran.counts["pay"] += 1
        if decline:
            raise CardDeclinedError(f"card declined for {amount}")
        return f"receipt-{ran.counts['pay']}"

    @server.tool()
    async def buy(decline: bool = False) -> str:
        ran.replays.append(replaying())
        item = await ask(str, "What?", key="item")
        assert item.content is not None
        offer = await step("quote", quote, item.content)
        assert isinstance(offer, Quote)
        sure = await ask(bool, f"Pay {offer.price} for {offer.item}?", key="confirm")
        if not sure.content:
            return "not bought"
        try:
            receipt = await step("pay", charge, offer.price, decline=decline)
        except CardDeclinedError as error:
            later = await ask(bool, f"{error}. Try later?", key="later")
            return f"declined ({later.content})"
        return f"bought {offer.item} at {offer.price}: {receipt}"

    return server


async def test_each_step_runs_once_across_two_servers_resends_and_older_states(
    sdk: str, stores: StoreFactory
) -> None:
    ran = Ran()
    east, west = shop(sdk, stores(), ran), shop(sdk, stores(), ran)
    async with (
        Client(in_memory(east), elicitation_callback=never_called) as on_east,
        Client(in_memory(west), elicitation_callback=never_called) as on_west,
    ):
        k1, _, s1 = only_question(await retry(on_east, "buy", {}))
        item = {k1: accept(value="lamp")}
        # Round 2 on west runs the quote (a later round: recorded in the store) ...
        k2, params, s2 = only_question(await retry(on_west, "buy", {}, item, s1))
        assert params["message"] == "Pay 42 for lamp?"
        # ... and the same round resent on east, with the older state that lacks the
        # quote, gets the recorded quote from the shared store.
        k2b, _, s2b = only_question(await retry(on_east, "buy", {}, item, s1))
        assert (k2, k2b) == ("confirm", "confirm")
        final = {k2: accept(value=True)}
        done = await retry(on_east, "buy", {}, final, s2)
        again = await retry(on_west, "buy", {}, final, s2)  # the final round resent
        other = await retry(on_west, "buy", {}, final, s2b)  # the other branch's state
        older = await retry(on_east, "buy", {}, item, s1)  # an older state, after the end
    assert text_of(done) == "bought lamp at 42: receipt-1"
    assert text_of(again) == text_of(done)
    assert text_of(other) == text_of(done)
    assert isinstance(older, types.CallToolResult)
    assert ran.counts == {"quote": 1, "pay": 1}
    assert ran.replays[:2] == [False, True]


async def test_a_step_that_raises_is_not_run_again_and_raises_the_same_type(
    sdk: str, stores: StoreFactory
) -> None:
    ran = Ran()
    east, west = shop(sdk, stores(), ran), shop(sdk, stores(), ran)
    args = {"decline": True}
    async with (
        Client(in_memory(east), elicitation_callback=never_called) as on_east,
        Client(in_memory(west), elicitation_callback=never_called) as on_west,
    ):
        k1, _, s1 = only_question(await retry(on_east, "buy", args))
        k2, _, s2 = only_question(await retry(on_west, "buy", args, {k1: accept(value="x")}, s1))
        confirm = {k2: accept(value=True)}
        k3, params, s3 = only_question(await retry(on_east, "buy", args, confirm, s2))
        assert params["message"] == "card declined for 42. Try later?"
        # Resent on the other server: the recorded failure is raised again, not retried.
        k3b, params_b, _ = only_question(await retry(on_west, "buy", args, confirm, s2))
        assert (k3b, params_b["message"]) == (k3, params["message"])
        done = await retry(on_west, "buy", args, {k3: accept(value=False)}, s3)
    assert text_of(done) == "declined (False)"
    assert ran.counts == {"quote": 1, "pay": 1}


@pytest.mark.parametrize("mode", ["legacy"])
async def test_on_2025_11_25_each_step_runs_once(sdk: str, mode: str) -> None:
    ran = Ran()
    server = shop(sdk, MemoryStore(), ran)
    answers = iter([{"value": "lamp"}, {"value": True}])

    async def user(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=next(answers))

    async with Client(in_memory(server), elicitation_callback=user, mode=mode) as client:
        result = await client.call_tool("buy", {})
    assert text_of(result) == "bought lamp at 42: receipt-1"
    assert ran.counts == {"quote": 1, "pay": 1}
    assert ran.replays == [False]


async def test_a_step_refused_by_a_full_store_says_so_and_does_not_run(sdk: str) -> None:
    ran = Ran()
    server = shop(sdk, MemoryStore(max_entries=1), ran)  # the dialogue's entry, no more
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        k1, _, s1 = only_question(await retry(client, "buy", {}))
        refused = await retry(client, "buy", {}, {k1: accept(value="lamp")}, s1)
    assert refused.is_error
    assert text_of(refused) == tool_error(
        sdk,
        "buy",
        "The step 'quote' was not run: the store where this call's steps are recorded is full "
        "(it takes no new record rather than drop an unfinished call's), so the step could "
        "not be claimed. Send the same request again in a few minutes.",
    )
    assert ran.counts["quote"] == 0


def test_results_round_trip_to_the_same_type() -> None:
    when = dt.datetime(2026, 7, 28, 12, tzinfo=dt.timezone.utc)
    value = {"q": [Quote("a", 1, when, Colour.RED)], "$odd": dt.date(2026, 1, 2), "n": None}
    assert decode(encode("k", value), ANY_LOADED) == value
    declared = Rebuildable.declared(dict[str, list[Quote] | dt.date | None])
    assert decode(encode("k", value), declared) == value


@pytest.mark.parametrize(
    ("value", "name"),
    [pytest.param((1, 2), "tuple", id="tuple"), pytest.param({1: "a"}, "dict", id="int-keys")],
)
def test_a_value_without_a_json_round_trip_is_refused(value: object, name: str) -> None:
    with pytest.raises(StepDefinitionError) as caught:
        encode("quote", value)
    assert str(caught.value).startswith(
        f"Cannot record the result of step 'quote': {name} has no JSON round trip"
    )


@pytest.mark.parametrize("gone", ["module", "class"], ids=["module-removed", "class-renamed"])
def test_a_recorded_value_whose_class_is_gone_asks_for_a_fresh_start(
    gone: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = ModuleType("tests_steps_throwaway")

    @dataclasses.dataclass
    class Parcel:
        weight: int

    Parcel.__module__, Parcel.__qualname__ = module.__name__, "Parcel"
    monkeypatch.setattr(module, "Parcel", Parcel, raising=False)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    recorded = encode("weigh", Parcel(3))
    assert decode(recorded, ANY_LOADED) == Parcel(3)  # found where it was recorded
    if gone == "module":
        monkeypatch.delitem(sys.modules, module.__name__)
    else:
        monkeypatch.delattr(module, "Parcel")
    with pytest.raises(TypeError) as caught:
        decode(recorded, ANY_LOADED)
    assert str(caught.value) == (
        "The recorded step value names 'tests_steps_throwaway:Parcel', which is not a class "
        "this server has loaded (the code changed since the step was recorded), so the step's "
        "result cannot be rebuilt. Start the call afresh without requestState."
    )


@dataclasses.dataclass
class Line:
    item: str
    colour: Colour


@dataclasses.dataclass
class Basket:
    lines: list[Line]
    note: str | None = None


@dataclasses.dataclass
class GiftBasket(Basket):
    to: str = ""


def test_a_recorded_value_never_imports_the_module_it_names() -> None:
    # Records are sealed, so only a holder of the server's key could write this; still, a
    # name in a record must not run a module's import side effects (here: printing to
    # stdout, the protocol stream on stdio).
    forged = {"$dc": "this:Receipt", "v": {}}
    assert "this" not in sys.modules
    for classes in (ANY_LOADED, Rebuildable.declared(Basket)):
        with pytest.raises(TypeError, match="'this:Receipt', which is not a class this server"):
            decode(forged, classes)
    assert "this" not in sys.modules


def test_a_step_rebuilds_only_the_classes_its_function_declares() -> None:
    declared = Rebuildable.declared(Basket | None)
    basket = Basket([Line("pen", Colour.RED)], note="gift")
    assert decode(encode("k", basket), declared) == basket  # its fields' classes too
    gift = GiftBasket([Line("pen", Colour.RED)], to="Ann")
    assert decode(encode("k", gift), declared) == gift  # a subclass of a declared class
    # Loaded, of an allowed kind, but not what the function returns: refused.
    with pytest.raises(TypeError, match="which is not a type the step's function returns"):
        decode(encode("k", Quote("a", 1, dt.datetime(2026, 7, 28), Colour.RED)), declared)
    # A function that declares Any (or nothing) may rebuild any loaded class of those kinds.
    assert decode(encode("k", gift), Rebuildable.declared(list[Any])) == gift


async def test_an_unsupported_return_annotation_is_refused_before_fn_runs(sdk: str) -> None:
    server: Any = MCPServer("s") if sdk == "mcp" else FastMCP("s")
    elicitkit.install(server)
    calls: list[int] = []

    def pair() -> tuple[int, int]:
        calls.append(1)
        return (1, 2)

    @server.tool()
    async def go() -> str:
        await step("pair", pair)
        return "done"

    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        result = await client.call_tool("go", {})
    assert result.is_error
    assert "Cannot record the result of step 'pair': tuple[int, int] has no JSON round trip" in (
        text_of(result)
    )
    assert calls == []


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
async def test_a_step_that_asks_is_refused_on_every_era(sdk: str, mode: str, protocol: str) -> None:
    server: Any = MCPServer("s") if sdk == "mcp" else FastMCP("s")
    elicitkit.install(server)
    calls: list[int] = []

    async def sneaky() -> str:
        calls.append(1)
        answer = await ask(str, "Which card?")
        return answer.content or ""

    @server.tool()
    async def go() -> str:
        return await step("card", sneaky)

    async with Client(in_memory(server), elicitation_callback=never_called, mode=mode) as client:
        assert client.protocol_version == protocol
        result = await client.call_tool("go", {})
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "go",
        "The step 'card' asked the user a question, which a step cannot do: its outcome is "
        "recorded once, but a question ends the round before it. Ask before or after the step.",
    )
    assert calls == [1]


@pytest.mark.parametrize("function", ["ask_url", "require_url"])
@pytest.mark.parametrize(("mode", "protocol"), ERAS)
async def test_a_step_that_sends_the_user_to_a_page_is_refused_on_every_era(
    sdk: str, mode: str, protocol: str, function: str
) -> None:
    server: Any = MCPServer("s") if sdk == "mcp" else FastMCP("s")
    elicitkit.install(server)
    calls: list[int] = []

    async def pay_on_page() -> str:
        calls.append(1)
        if function == "require_url":
            await require_url("Pay on our page", "https://pay.example/checkout")
        answer = await ask_url("Pay on our page", "https://pay.example/checkout")
        return answer.action

    @server.tool()
    async def go() -> str:
        return await step("pay", pay_on_page)

    # never_called fails the test if the URL question reaches the client on 2025-11-25.
    async with Client(in_memory(server), elicitation_callback=never_called, mode=mode) as client:
        assert client.protocol_version == protocol
        result = await client.call_tool("go", {})
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "go",
        f"The step 'pay' called {function}() to send the user to a page, which a step cannot "
        "do: its outcome is recorded once, but a question ends the round before it. Send the "
        "user to the page before or after the step.",
    )
    assert calls == [1]


@pytest.mark.parametrize("retry_safe", [True, False], ids=["retry-safe", "not-retry-safe"])
async def test_a_round_cancelled_inside_a_step_reruns_it_only_if_retry_safe(
    sdk: str, stores: StoreFactory, retry_safe: bool
) -> None:
    server: Any = shop(sdk, stores(), Ran())
    charges: list[str] = []
    charging = anyio.Event()

    async def charge(amount: int) -> str:
        charges.append(f"{amount}")
        if len(charges) == 1:
            charging.set()
            await anyio.sleep_forever()  # the client cancels while this runs
        return f"receipt-{len(charges)}"

    @server.tool()
    async def pay(amount: int) -> str:
        await ask(bool, f"Pay {amount}?", key="confirm")
        receipt = await step("charge", charge, amount, retry_safe=retry_safe)
        return f"paid: {receipt}"

    args = {"amount": 10}
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "pay", args))
        final = {key: accept(value=True)}
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(retry, client, "pay", args, final, state)
                await charging.wait()
                group.cancel_scope.cancel()  # the client gives up mid-charge
        if retry_safe:
            again = await retry(client, "pay", args, final, state)
            resent = await retry(client, "pay", args, final, state)
            assert text_of(again) == text_of(resent) == "paid: receipt-2"
        else:
            with pytest.raises(MCPError) as raised:
                await retry(client, "pay", args, final, state)
            assert raised.value.error.message == INTERRUPTED
    assert charges == (["10", "10"] if retry_safe else ["10"])


class UnmarkFails(MemoryStore):
    """A store that marks a lease inside a retry_safe step but fails to lift the mark."""

    async def hold(
        self, dialogue: str, token: str, *, retry_safe: bool, lease: float, keep: float
    ) -> bool:
        if not retry_safe:
            raise ConnectionError("the store went away")
        return await super().hold(dialogue, token, retry_safe=retry_safe, lease=lease, keep=keep)


async def test_a_round_that_cannot_lift_the_retry_safe_mark_stops_after_the_step(
    sdk: str,
) -> None:
    """Marked, a crash later in the round would let the next round run its later code again."""
    server: Any = shop(sdk, UnmarkFails(), Ran())
    ran: list[str] = []

    def reserve() -> int:
        ran.append("reserve")
        return 7

    @server.tool()
    async def book() -> str:
        await ask(bool, "Book?", key="sure")
        seat = await step("reserve", reserve, retry_safe=True)
        ran.append("after")
        return f"seat {seat}"

    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "book", {}))
        result = await retry(client, "book", {}, {key: accept(value=True)}, state)
    assert isinstance(result, types.CallToolResult)
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "book",
        "The step 'reserve' ran and its outcome was recorded, but the store could not be told "
        "that the call left this retry_safe step, so the call stops here rather than let a "
        "crash after it run its later code again. Send the same request again in a little "
        "while.",
    )
    assert ran == ["reserve"]
