"""answer_form fails closed: a store that forgot, a store that does not answer, a ticket raced.

A real ``redis-server`` per test (tests/redis_server.py) is restarted empty, flushed or
paused between the rounds of a dialogue that goes through the model; the charge happens at
most once and the model gets the dialogue's refusal instead of a second run. Two copies of
one ticket sent at once run the tool once and get the same result.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest
from fastmcp import FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from redis import Redis as SyncRedis
from redis.asyncio import Redis

import elicitkit
from elicitkit import ask
from elicitkit._replay.once import FORGOTTEN, STORE_UNAVAILABLE
from elicitkit.integrations import client_target
from elicitkit.integrations._answer_call import for_the_model
from elicitkit.integrations.mcp import ElicitkitMiddleware
from elicitkit.stores import Claim, MemoryStore, OutcomeStore, RedisStore
from tests.mrtr import text_of
from tests.redis_server import RedisProcess, RedisProcessFactory

pytestmark = pytest.mark.anyio

SECRET = secrets.token_bytes(32)
ANSWER = {"name": "Ada"}
MODES = [pytest.param("legacy", id="2025-11-25"), pytest.param("auto", id="2026-07-28")]


@dataclasses.dataclass
class Payee:
    name: str


class Shop:
    """A tool that asks through the model, then charges (the side effect to count)."""

    def __init__(self, store: OutcomeStore, *, sdk: str = "mcp", gated: bool = False) -> None:
        security = RequestStateSecurity(keys=[SECRET])
        server: Any = (
            MCPServer("shop", request_state_security=security)
            if sdk == "mcp"
            else FastMCP("shop", request_state_security=security)
        )
        self.server = elicitkit.install(server, store=store, on_unsupported="ask_model")
        self.target = client_target(server)
        self.charges: list[str] = []
        self.runs = 0
        self.gate = anyio.Event()  # gated: the charge waits for it (a window for a racing call)
        once = self.middleware.once
        once.lease, once.timeout, once.wait = 0.5, 0.5, 5.0

        @self.server.tool()
        async def pay(amount: int) -> str:
            self.runs += 1
            payee = (await ask(Payee, f"Who gets {amount}?")).unwrap()
            if gated:
                await self.gate.wait()
            self.charges.append(f"{amount} to {payee.name}")
            return f"paid {amount} to {payee.name} (charge #{len(self.charges)})"

    @property
    def middleware(self) -> ElicitkitMiddleware:
        chain = self.target.middleware
        (found,) = (m for m in chain if isinstance(m, ElicitkitMiddleware))
        return found


async def ticket_of(client: Client) -> str:
    result = await client.call_tool("pay", {"amount": 10})
    assert result.structured_content is not None
    return str(result.structured_content["ticket"])


@pytest.fixture
def redis(redis_process: RedisProcessFactory) -> Iterator[RedisProcess]:
    with redis_process() as server:
        yield server


@pytest.fixture
async def store(redis: RedisProcess) -> AsyncIterator[RedisStore]:
    client = Redis.from_url(redis.url)
    yield RedisStore(client)
    await client.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_a_resent_ticket_after_redis_restarted_empty_is_refused(
    redis: RedisProcess, store: RedisStore, mode: str
) -> None:
    shop = Shop(store)
    async with Client(shop.target, mode=mode) as client:
        ticket = await ticket_of(client)
        first = await client.call_tool("answer_form", {"ticket": ticket, "answers": ANSWER})
        redis.restart()  # no persistence: it comes back empty
        again = await client.call_tool("answer_form", {"ticket": ticket, "answers": ANSWER})
    assert text_of(first) == "paid 10 to Ada (charge #1)"
    # A tool error the model can act on, never a protocol error (-32603) about requestState.
    assert again.is_error
    assert text_of(again) == for_the_model(FORGOTTEN, "pay")
    assert "call the tool 'pay' again (not answer_form)" in text_of(again)
    assert shop.charges == ["10 to Ada"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_store_that_forgot_before_the_answer_runs_nothing(
    redis: RedisProcess, store: RedisStore, mode: str
) -> None:
    shop = Shop(store)
    async with Client(shop.target, mode=mode) as client:
        ticket = await ticket_of(client)
        with SyncRedis.from_url(redis.url) as admin:
            admin.flushall()
        runs = shop.runs
        result = await client.call_tool("answer_form", {"ticket": ticket, "answers": ANSWER})
    assert result.is_error
    assert text_of(result) == for_the_model(FORGOTTEN, "pay")
    assert shop.runs == runs  # the body did not even start
    assert shop.charges == []


async def test_a_store_that_does_not_answer_runs_nothing(
    redis: RedisProcess, store: RedisStore
) -> None:
    shop = Shop(store)
    async with Client(shop.target, mode="legacy") as client:
        ticket = await ticket_of(client)
        runs = shop.runs
        redis.pause()
        try:
            result = await client.call_tool("answer_form", {"ticket": ticket, "answers": ANSWER})
        finally:
            redis.resume()
    assert result.is_error
    assert text_of(result) == STORE_UNAVAILABLE
    assert shop.runs == runs
    assert shop.charges == []


@pytest.mark.parametrize("sdk", ["mcp", "fastmcp"])
@pytest.mark.parametrize("mode", MODES)
async def test_one_ticket_sent_twice_at_once_charges_once(
    sdk: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = Shop(MemoryStore(), sdk=sdk, gated=True)
    store = shop.middleware.once.store
    claim = store.claim

    async def spied(*args: Any, **kwargs: Any) -> Claim:
        found = await claim(*args, **kwargs)
        if found.status == "busy":  # the second answer raced the first: let the charge go on
            shop.gate.set()
        return found

    monkeypatch.setattr(store, "claim", spied)
    results: list[str] = []
    async with Client(shop.target, mode=mode) as client:
        ticket = await ticket_of(client)

        async def send() -> None:
            result = await client.call_tool("answer_form", {"ticket": ticket, "answers": ANSWER})
            results.append(text_of(result))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(send)
                group.start_soon(send)
    assert results == ["paid 10 to Ada (charge #1)"] * 2
    assert shop.charges == ["10 to Ada"]


def test_every_advice_to_start_afresh_is_rewritten_for_the_model() -> None:
    """A model holds no requestState: each refusal that says to resend without one is
    rewritten to "call the tool again", so a new message that words it otherwise fails here."""
    from elicitkit._replay import once  # noqa: PLC0415
    from elicitkit._runtime import step_values, steps  # noqa: PLC0415

    messages = [
        once.INTERRUPTED,
        once.FORGOTTEN,
        steps._INTERRUPTED,  # pyright: ignore[reportPrivateUsage]
        steps._UNRECORDED,  # pyright: ignore[reportPrivateUsage]
        str(step_values._changed("receipt", "gone")),  # pyright: ignore[reportPrivateUsage]
    ]
    for message in messages:
        rewritten = for_the_model(message, "pay")
        assert "requestState" not in rewritten, message
        assert "call the tool 'pay' again (not answer_form)" in rewritten
