"""The testing kit's step counters: `count_runs` on every era, `assert_steps_run_once`.

Both run the real SDK client against real servers in memory: two servers of either SDK
sharing one MemoryStore and one request-state key. The assertion is shown to fail when the
store forgets step records (a fault injected in `AtMostOnce.claim_step`).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer, RequestStateSecurity

import elicitkit
from elicitkit import ask, step
from elicitkit._replay.once import AtMostOnce
from elicitkit._replay.store import Claim
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.stores import MemoryStore, OutcomeStore
from elicitkit.testing import ScriptedUser, ScriptError, accept, assert_steps_run_once, count_runs

if TYPE_CHECKING:
    from elicitkit.testing import StepsRunOnce

pytestmark = pytest.mark.anyio

SECRET = secrets.token_bytes(32)


def shop(sdk: str, store: OutcomeStore) -> Any:
    security = RequestStateSecurity(keys=[SECRET])
    server: Any = (
        MCPServer("shop", request_state_security=security)
        if sdk == "mcp"
        else FastMCP("shop", request_state_security=security)
    )
    elicitkit.install(server, store=store)

    def quote(item: str) -> int:
        return len(item) * 10

    async def charge(price: int) -> str:
        return f"receipt for {price}"

    @server.tool()
    async def buy(item: str) -> str:
        price = await step("quote", quote, item)
        sure = await ask(bool, f"Pay {price}?")
        if not sure.content:
            return "Nothing paid."
        receipt = await step("pay", charge, price)
        city = await ask(str, "Ship to which city?")
        return f"{receipt}, shipping to {city.unwrap()}"

    return server


def user() -> ScriptedUser:
    return ScriptedUser(accept(value=True), accept(value="Oslo"))


async def test_count_runs_reports_the_body_and_each_step_on_every_era(sdk: str) -> None:
    runs = await count_runs(shop(sdk, MemoryStore()), "buy", {"item": "lamp"}, user=user)
    assert [(r.protocol, r.body, dict(r.steps)) for r in runs] == [
        ("2025-06-18", 1, {"quote": 1, "pay": 1}),
        ("2025-11-25", 1, {"quote": 1, "pay": 1}),
        ("2026-07-28", 3, {"quote": 1, "pay": 1}),  # the body once per round
    ]
    assert {r.result.content[0].text for r in runs} == {  # type: ignore[union-attr]
        "receipt for 40, shipping to Oslo"
    }


async def test_count_runs_tells_a_user_factory_that_takes_it_the_era(sdk: str) -> None:
    told: list[str] = []

    def user_for(protocol: str) -> ScriptedUser:
        told.append(protocol)
        return ScriptedUser(accept(value=True), accept(value=f"Oslo {protocol}"))

    runs = await count_runs(shop(sdk, MemoryStore()), "buy", {"item": "lamp"}, user=user_for)
    assert told == [r.protocol for r in runs] == list(PROTOCOL_VERSIONS)
    assert [r.result.content[0].text for r in runs] == [  # type: ignore[union-attr]
        f"receipt for 40, shipping to Oslo {protocol}" for protocol in PROTOCOL_VERSIONS
    ]


async def test_count_runs_calls_scripted_user_itself_with_no_argument() -> None:
    # ScriptedUser(*replies) takes no positional parameter: an empty user, never one whose
    # first reply is the version (then the form would meet a str, not a missing answer).
    with pytest.raises(ScriptError) as caught:
        await count_runs(shop("mcp", MemoryStore()), "buy", {"item": "lamp"}, user=ScriptedUser)
    assert str(caught.value) == (
        "The scripted user had no answer for the form 'Pay 40?' (fields value), so it was "
        "cancelled. Add a reply for it (on_form, on_key, on_message or then)."
    )


async def test_assert_steps_run_once_passes_across_two_servers_sharing_a_store(sdk: str) -> None:
    store = MemoryStore()
    servers = [shop(sdk, store), shop(sdk, store)]
    runs = await assert_steps_run_once(servers, "buy", {"item": "lamp"}, user=user())
    assert runs.result.content[0].text == "receipt for 40, shipping to Oslo"  # type: ignore[union-attr]
    assert dict(runs.steps) == {"quote": 1, "pay": 1}
    # Round one once, rounds two and three twice; the final round's second send and the
    # older state after the end are answered from the record.
    assert runs.body == 4


async def test_assert_steps_run_once_fails_when_step_records_are_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def forgetful(self: AtMostOnce, dialogue: str, key: str, token: str) -> Claim:
        return Claim("claimed")

    monkeypatch.setattr(AtMostOnce, "claim_step", forgetful)
    store = MemoryStore()
    servers = [shop("mcp", store), shop("mcp", store)]
    with pytest.raises(AssertionError) as caught:
        await assert_steps_run_once(servers, "buy", {"item": "lamp"}, user=user())
    assert str(caught.value) == (
        "The steps of 'buy' did not each run once across 3 rounds, each sent twice, and an "
        "older state sent after the end: 'pay' 2 times. Check that the servers share one "
        "store and one request-state key, and that each step's key is the same in every round."
    )


async def test_the_steps_run_once_fixture_passes_and_fails_as_the_function(
    steps_run_once: StepsRunOnce, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore()
    servers = [shop("mcp", store), shop("mcp", store)]
    runs = await steps_run_once(servers, "buy", {"item": "lamp"}, user=user())
    assert dict(runs.steps) == {"quote": 1, "pay": 1}

    async def forgetful(self: AtMostOnce, dialogue: str, key: str, token: str) -> Claim:
        return Claim("claimed")

    monkeypatch.setattr(AtMostOnce, "claim_step", forgetful)
    with pytest.raises(AssertionError) as caught:
        await steps_run_once(servers, "buy", {"item": "lamp"}, user=user())
    assert "did not each run once" in str(caught.value)


async def test_counts_are_per_call_while_other_calls_of_the_tool_run(
    sdk: str, steps_run_once: StepsRunOnce
) -> None:
    """Each counter tags its own requests, so concurrent calls in the process do not count."""
    store = MemoryStore()
    servers = [shop(sdk, store), shop(sdk, store)]
    found: dict[str, Any] = {}

    async def asserted() -> None:
        found["asserted"] = await steps_run_once(servers, "buy", {"item": "lamp"}, user=user())

    async def counted() -> None:
        found["counted"] = await count_runs(servers[0], "buy", {"item": "desk"}, user=user)

    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(asserted)
            group.start_soon(counted)
    assert dict(found["asserted"].steps) == {"quote": 1, "pay": 1}
    assert found["asserted"].body == 4
    assert [(r.body, dict(r.steps)) for r in found["counted"]] == [
        (1, {"quote": 1, "pay": 1}),
        (1, {"quote": 1, "pay": 1}),
        (3, {"quote": 1, "pay": 1}),
    ]
