"""At most once on MCP 2026-07-28: a dialogue's body completes once, whatever the client resends.

A hostile or buggy client can send the final round of a dialogue again within the state's
lifetime: the same round twice, another answer to the last question, an older state, or two
final rounds at once. Each must get the recorded outcome without the code after the last
``ask()`` (the "charge") running again. Checked with the real SDK client and both server
SDKs (the official ``MCPServer`` and fastmcp), on the in-memory store and on a real
redis-server shared by two server instances.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError as FastMCPToolError
from mcp import Client
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit import ask
from elicitkit._replay.once import BUSY, INTERRUPTED
from elicitkit.integrations.mcp import ElicitkitMiddleware
from elicitkit.stores import Claim, MemoryStore, OutcomeStore
from tests.conftest import StoreFactory
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.sdks import in_memory, tool_error

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Payee:
    name: str
    iban_country: str


SECRET = secrets.token_bytes(32)  # shared by the "two instances", as several workers would


class Shop:
    """A server whose tool asks two questions, then charges (the side effect to count)."""

    def __init__(
        self, sdk: str, store: OutcomeStore, charges: list[str], *, gated: bool = False
    ) -> None:
        security = RequestStateSecurity(keys=[SECRET])
        server: Any = (
            MCPServer("shop", request_state_security=security)
            if sdk == "mcp"
            else FastMCP("shop", request_state_security=security)
        )
        self.server = elicitkit.install(server, store=store)
        self.target = in_memory(server)  # what mcp.Client connects to
        self.runs = 0
        # gated: the charge waits for `gate`, a window the test holds open for a racing round.
        self.charging, self.gate = anyio.Event(), anyio.Event()
        tool_error_class = ToolError if sdk == "mcp" else FastMCPToolError

        @self.server.tool()
        async def pay(amount: int) -> str:
            self.runs += 1
            payee = await ask(Payee, f"Who gets {amount}?")
            sure = await ask(bool, f"Pay {amount}?", key="confirm")
            if not sure.content:
                return "not paid"
            assert payee.content is not None
            if gated:
                self.charging.set()
                await self.gate.wait()
            charges.append(f"{amount} to {payee.content.name}")
            return f"paid {amount} to {payee.content.name} (charge #{len(charges)})"

        @self.server.tool()
        async def fail() -> str:
            await ask(bool, "Try?", key="try")
            charges.append("failed attempt")
            raise tool_error_class("the bank said no")

    @property
    def middleware(self) -> ElicitkitMiddleware:
        chain = self.target.middleware  # the SDK server's own chain, on both SDKs
        (found,) = (m for m in chain if isinstance(m, ElicitkitMiddleware))
        return found


async def rounds_to_the_end(client: Client) -> tuple[dict[str, Any], list[str], Any]:
    """Answer both questions; return the final round's answers, the states, the result."""
    args = {"amount": 10}
    k1, _, s1 = only_question(await retry(client, "pay", args))
    k2, _, s2 = only_question(
        await retry(client, "pay", args, {k1: accept(name="Ada", iban_country="NO")}, s1)
    )
    assert (k1, k2) == ("payee#1", "confirm")
    final_answers = {k2: accept(value=True)}
    result = await retry(client, "pay", args, final_answers, s2)
    return final_answers, [s1, s2], result


PAID = "paid 10 to Ada (charge #1)"


def _same_round(answers: dict[str, Any], states: list[str]) -> tuple[Any, str]:
    return answers, states[1]


def _another_answer(answers: dict[str, Any], states: list[str]) -> tuple[Any, str]:
    return {"confirm": types.ElicitResult(action="decline")}, states[1]


def _older_state(answers: dict[str, Any], states: list[str]) -> tuple[Any, str]:
    return {"payee#1": accept(name="Mallory", iban_country="XX")}, states[0]


def _no_answer(answers: dict[str, Any], states: list[str]) -> tuple[Any, str]:
    return None, states[1]


REPLAYS = [
    pytest.param(_same_round, id="same-final-round"),
    pytest.param(_another_answer, id="another-answer"),
    pytest.param(_older_state, id="older-state"),
    pytest.param(_no_answer, id="state-without-answer"),
]


@pytest.mark.parametrize("replayed", REPLAYS)
async def test_a_replayed_round_of_a_completed_dialogue_gets_the_recorded_result(
    sdk: str, stores: StoreFactory, replayed: Callable[..., tuple[Any, str]]
) -> None:
    charges: list[str] = []
    shop = Shop(sdk, stores(), charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        answers, states, first = await rounds_to_the_end(client)
        assert text_of(first) == PAID
        runs = shop.runs
        again = await retry(client, "pay", {"amount": 10}, *replayed(answers, states))
        third = await retry(client, "pay", {"amount": 10}, *replayed(answers, states))
    assert isinstance(again, types.CallToolResult)
    assert again == first
    assert third == first
    assert charges == ["10 to Ada"]
    assert shop.runs == runs  # the body did not even start again


def open_until_busy(shop: Shop, monkeypatch: pytest.MonkeyPatch, *others: Shop) -> None:
    """Hold ``shop``'s charge (and ``others``') until a racing round finds the dialogue busy."""
    for each in (shop, *others):
        store = each.middleware.once.store
        claim = store.claim

        async def spied(*args: Any, claim: Any = claim, **kwargs: Any) -> Claim:
            found: Claim = await claim(*args, **kwargs)
            if found.status == "busy":
                for gated in (shop, *others):
                    gated.gate.set()
            return found

        monkeypatch.setattr(store, "claim", spied)


async def test_two_final_rounds_at_once_charge_once_and_both_get_the_result(
    sdk: str, stores: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    charges: list[str] = []
    shop = Shop(sdk, stores(), charges, gated=True)
    open_until_busy(shop, monkeypatch)
    args = {"amount": 10}
    async with Client(shop.target, elicitation_callback=never_called) as client:
        k1, _, s1 = only_question(await retry(client, "pay", args))
        k2, _, s2 = only_question(
            await retry(client, "pay", args, {k1: accept(name="Ada", iban_country="NO")}, s1)
        )
        results: list[Any] = []

        async def final(answer: bool) -> None:
            results.append(await retry(client, "pay", args, {k2: accept(value=answer)}, s2))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(final, True)
                group.start_soon(final, False)  # the racing round answers otherwise: no matter
    assert charges == ["10 to Ada"]
    assert [text_of(result) for result in results] == [PAID, PAID]


@pytest.mark.parametrize(
    "fleet",
    [
        pytest.param(("mcp", "mcp"), id="mcp"),
        pytest.param(("fastmcp", "fastmcp"), id="fastmcp"),
        pytest.param(("mcp", "fastmcp"), id="mcp-and-fastmcp"),  # a fleet moving to fastmcp
    ],
)
async def test_two_server_instances_sharing_a_store_complete_a_dialogue_once(
    fleet: tuple[str, str], stores: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two instances (two workers) with one key ring and one store: a round lands on either."""
    charges: list[str] = []
    east, west = (Shop(sdk, stores(), charges, gated=True) for sdk in fleet)
    open_until_busy(east, monkeypatch, west)
    args = {"amount": 10}
    async with (
        Client(east.target, elicitation_callback=never_called) as on_east,
        Client(west.target, elicitation_callback=never_called) as on_west,
    ):
        k1, _, s1 = only_question(await retry(on_east, "pay", args))
        k2, _, s2 = only_question(
            await retry(on_west, "pay", args, {k1: accept(name="Ada", iban_country="NO")}, s1)
        )
        results: list[Any] = []

        async def final(client: Client) -> None:
            results.append(await retry(client, "pay", args, {k2: accept(value=True)}, s2))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(final, on_east)
                group.start_soon(final, on_west)
        late = await retry(on_east, "pay", args, {k2: accept(value=True)}, s2)
    assert charges == ["10 to Ada"]
    assert [text_of(result) for result in [*results, late]] == [PAID] * 3


async def test_separate_calls_are_separate_dialogues(sdk: str, stores: StoreFactory) -> None:
    charges: list[str] = []
    shop = Shop(sdk, stores(), charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        first = (await rounds_to_the_end(client))[2]
        second = (await rounds_to_the_end(client))[2]
    assert (text_of(first), text_of(second)) == (PAID, "paid 10 to Ada (charge #2)")
    assert charges == ["10 to Ada", "10 to Ada"]


async def test_a_round_that_asks_again_does_not_complete_the_dialogue(
    sdk: str, stores: StoreFactory
) -> None:
    """Retrying a middle round (twice, at once) asks the next question each time, no record."""
    charges: list[str] = []
    shop = Shop(sdk, stores(), charges)
    args = {"amount": 10}
    async with Client(shop.target, elicitation_callback=never_called) as client:
        k1, _, s1 = only_question(await retry(client, "pay", args))
        middles: list[Any] = []

        async def middle() -> None:
            answer = {k1: accept(name="Ada", iban_country="NO")}
            middles.append(only_question(await retry(client, "pay", args, answer, s1)))

        async with anyio.create_task_group() as group:
            group.start_soon(middle)
            group.start_soon(middle)
        assert [key for key, _, _ in middles] == ["confirm", "confirm"]
        final = await retry(client, "pay", args, {"confirm": accept(value=True)}, middles[1][2])
        other = await retry(client, "pay", args, {"confirm": accept(value=True)}, middles[0][2])
    assert text_of(final) == text_of(other) == PAID
    assert charges == ["10 to Ada"]


async def test_an_error_outcome_is_recorded_too(sdk: str, stores: StoreFactory) -> None:
    charges: list[str] = []
    shop = Shop(sdk, stores(), charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "fail", {}))
        first = await retry(client, "fail", {}, {key: accept(value=True)}, state)
        again = await retry(client, "fail", {}, {key: accept(value=True)}, state)
    assert isinstance(first, types.CallToolResult)
    assert first.is_error
    assert text_of(first) == tool_error(sdk, "fail", "the bank said no")
    assert again == first
    assert charges == ["failed attempt"]


async def test_a_round_that_waits_too_long_for_the_running_one_says_so(sdk: str) -> None:
    charges: list[str] = []
    shop = Shop(sdk, MemoryStore(), charges, gated=True)
    shop.middleware.once.wait = 0.05
    args = {"amount": 10}
    async with Client(shop.target, elicitation_callback=never_called) as client:
        k1, _, s1 = only_question(await retry(client, "pay", args))
        k2, _, s2 = only_question(
            await retry(client, "pay", args, {k1: accept(name="Ada", iban_country="NO")}, s1)
        )
        results: dict[str, Any] = {}

        async def final(name: str) -> None:
            results[name] = await retry(client, "pay", args, {k2: accept(value=True)}, s2)

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(final, "first")
                await shop.charging.wait()  # the first round holds the dialogue
                await final("impatient")  # and outlasts the impatient one's wait
                shop.gate.set()
        later = await retry(client, "pay", args, {k2: accept(value=True)}, s2)
    assert text_of(results["first"]) == PAID
    busy = results["impatient"]
    assert isinstance(busy, types.CallToolResult)
    assert busy.is_error
    assert text_of(busy) == BUSY
    assert text_of(later) == PAID
    assert charges == ["10 to Ada"]


async def test_a_final_round_interrupted_after_its_side_effect_is_never_run_again(
    sdk: str,
    stores: StoreFactory,
) -> None:
    """The client gives up on the final round (cancelled mid-charge): it must not charge twice."""
    charges: list[str] = []
    args = {"amount": 10}
    slow = Shop(sdk, stores(), charges)
    charging = anyio.Event()

    @slow.server.tool()
    async def pay_slowly(amount: int) -> str:
        await ask(bool, f"Pay {amount}?", key="confirm")
        charges.append(f"{amount} slowly")
        charging.set()
        await anyio.sleep_forever()  # the client cancels while this runs
        return "paid slowly"

    async with Client(slow.target, elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "pay_slowly", args))
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(
                    retry, client, "pay_slowly", args, {key: accept(value=True)}, state
                )
                await charging.wait()
                group.cancel_scope.cancel()  # the client gives up mid-charge
        with pytest.raises(MCPError) as raised:
            await retry(client, "pay_slowly", args, {key: accept(value=True)}, state)
    assert charges == ["10 slowly"]
    assert raised.value.error.code == types.INTERNAL_ERROR
    assert raised.value.error.message == INTERRUPTED


def test_installing_again_with_another_store_is_refused() -> None:
    """MCPServer; test_ask_inmemory.py has the FastMCP case, which names "FastMCP server"."""
    store = MemoryStore()
    server = elicitkit.install(MCPServer("twice"), store=store)
    assert elicitkit.install(server) is server  # nothing new: harmless
    assert elicitkit.install(server, store=store) is server
    with pytest.raises(TypeError) as raised:
        elicitkit.install(server, store=MemoryStore())
    assert str(raised.value) == (
        "Cannot install elicitkit on this MCPServer again with another store or limits: it is "
        "already installed, and its dialogues are recorded in the first store. Call "
        "install(server, store=..., limits=...) once, before serving."
    )


@pytest.mark.parametrize("ttl", [30.0, 600.0, 3600.0], ids=["30s", "default", "1h"])
def test_records_outlive_every_state_the_server_minted(sdk: str, ttl: float) -> None:
    """The record is kept for the state's lifetime plus the minute of skew the SDK allows."""
    security = RequestStateSecurity(keys=[SECRET], ttl=ttl)
    server: Any = (
        MCPServer("ttl", request_state_security=security)
        if sdk == "mcp"
        else FastMCP("ttl", request_state_security=security)
    )
    elicitkit.install(server)
    chain = in_memory(server).middleware
    (middleware,) = (m for m in chain if isinstance(m, ElicitkitMiddleware))
    assert middleware.keep == ttl + 60
