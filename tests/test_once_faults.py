"""At most once when the store forgets: faults injected into a real redis-server.

Each test starts its own ``redis-server`` (tests/redis_server.py) and kills, restarts
(empty, or from its append-only file), pauses (SIGSTOP, ``DEBUG SLEEP``), flushes or
squeezes it (``maxmemory`` with an evicting policy) around the rounds of one dialogue,
driven by the real SDK client against a real ``MCPServer``. In every case the side effect
(the "charge") happens at most once, and the client gets a clear error instead of a second
run or a hang. Leases, waits and store timeouts are shortened so each test takes a second
or two. Faults of memory stores (split memory, a restarted process, expiry) are here too;
tests/test_scaleout_faults.py repeats the ones that matter over HTTP with two workers.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.exceptions import TimeoutError as RedisTimeoutError

import elicitkit
from elicitkit import ask
from elicitkit._replay.once import FORGOTTEN, INTERRUPTED, STORE_UNAVAILABLE
from elicitkit.integrations.mcp import ElicitkitMiddleware
from elicitkit.stores import Claim, MemoryStore, OutcomeStore, RedisStore, SqliteStore
from elicitkit.testing import FakeClock
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS, RedisProcess, RedisProcessFactory
from tests.sdks import in_memory

pytestmark = pytest.mark.anyio

SECRET = secrets.token_bytes(32)
LEASE = 0.5  # seconds: a dead holder is reported within this
TIMEOUT = 0.5  # seconds a store call may take
PAID = "paid 10 to Ada (charge #1)"
ARGS = {"amount": 10}


@dataclasses.dataclass
class Payee:
    name: str


class Shop:
    """A server whose tool asks two questions, then charges (the side effect to count).

    ``before_charge`` and ``after_charge`` run around the charge: the moments a fault is
    injected at.
    """

    def __init__(self, store: OutcomeStore, charges: list[str]) -> None:
        server: Any = MCPServer("shop", request_state_security=RequestStateSecurity(keys=[SECRET]))
        self.server = elicitkit.install(server, store=store)
        self.target = in_memory(server)
        self.runs = 0
        self.before_charge: Callable[[], Awaitable[None]] = anyio.lowlevel.checkpoint
        self.after_charge: Callable[[], None] = lambda: None
        self.result = "paid {amount} to {name} (charge #{count})"
        once = self.middleware.once
        once.lease, once.timeout, once.wait = LEASE, TIMEOUT, 5.0

        @self.server.tool()
        async def pay(amount: int) -> str:
            self.runs += 1
            payee = await ask(Payee, f"Who gets {amount}?")
            sure = await ask(bool, f"Pay {amount}?", key="confirm")
            if not sure.content:
                return "not paid"
            assert payee.content is not None
            await self.before_charge()
            charges.append(f"{amount} to {payee.content.name}")
            self.after_charge()
            name, count = payee.content.name, len(charges)
            return self.result.format(amount=amount, name=name, count=count)

    @property
    def middleware(self) -> ElicitkitMiddleware:
        (found,) = (m for m in self.target.middleware if isinstance(m, ElicitkitMiddleware))
        return found


async def to_the_last_question(client: Client) -> tuple[str, str, str]:
    """Round one and two: the first question's state, then the last question's key/state."""
    k1, _, s1 = only_question(await retry(client, "pay", ARGS))
    k2, _, s2 = only_question(await retry(client, "pay", ARGS, {k1: accept(name="Ada")}, s1))
    return s1, k2, s2


async def dialogue_keys(client: Any) -> list[bytes]:
    """The dialogues' keys in Redis (``client``: a ``redis.asyncio.Redis``), not the callers'."""
    keys: list[bytes] = await client.keys("elicitkit:dialogue:*")
    return [key for key in keys if not key.startswith(b"elicitkit:dialogue:p:")]


@pytest.fixture
def redis(redis_process: RedisProcessFactory) -> Iterator[RedisProcess]:
    with redis_process() as server:
        yield server


@pytest.fixture
async def store(redis: RedisProcess) -> AsyncIterator[RedisStore]:
    client = Redis.from_url(redis.url)
    yield RedisStore(client)
    await client.aclose()


def refusal(raised: pytest.ExceptionInfo[MCPError]) -> tuple[int, str]:
    return raised.value.error.code, raised.value.error.message


async def test_redis_restarted_empty_refuses_the_resent_final_round(
    redis: RedisProcess, store: RedisStore
) -> None:
    """Before: the resent final round found no record and charged again (charge #2)."""
    charges: list[str] = []
    shop = Shop(store, charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        first = await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
        redis.restart()  # no persistence: it comes back empty
        with pytest.raises(MCPError) as raised:
            await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
    assert text_of(first) == PAID
    assert refusal(raised) == (types.INTERNAL_ERROR, FORGOTTEN)
    assert charges == ["10 to Ada"]


@pytest.mark.parametrize("fault", ["flushall", "restart-empty"])
async def test_a_store_that_forgot_mid_dialogue_runs_nothing(
    redis: RedisProcess, store: RedisStore, fault: str
) -> None:
    charges: list[str] = []
    shop = Shop(store, charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        s1, key, s2 = await to_the_last_question(client)
        if fault == "flushall":
            with SyncRedis.from_url(redis.url) as admin:
                admin.flushall()
        else:
            redis.restart()
        runs = shop.runs
        with pytest.raises(MCPError) as final:
            await retry(client, "pay", ARGS, {key: accept(value=True)}, s2)
        with pytest.raises(MCPError) as older:
            await retry(client, "pay", ARGS, {"payee#1": accept(name="Eve")}, s1)
    assert refusal(final) == refusal(older) == (types.INTERNAL_ERROR, FORGOTTEN)
    assert shop.runs == runs  # the body did not even start
    assert charges == []


async def test_a_record_evicted_under_allkeys_lru_is_not_run_again(
    caplog: pytest.LogCaptureFixture, redis_process: RedisProcessFactory
) -> None:
    """Before: every record carries a TTL, so volatile-*/allkeys-* evicted it: charge #2."""
    charges: list[str] = []
    squeezed = ("--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru")
    with redis_process(settings=squeezed) as redis:
        client = Redis.from_url(redis.url)
        try:
            shop = Shop(RedisStore(client), charges)
            async with Client(shop.target, elicitation_callback=never_called) as mcp:
                _, key, state = await to_the_last_question(mcp)
                first = await retry(mcp, "pay", ARGS, {key: accept(value=True)}, state)
                (dialogue,) = await dialogue_keys(client)
                for index in range(400):  # 40 MB through 4 MB: bounded, evicts it at last
                    await client.set(f"filler:{index}", "x" * 100_000)
                    if not await client.exists(dialogue):
                        break
                assert not await client.exists(dialogue), "Redis never evicted the record"
                with pytest.raises(MCPError) as raised:
                    await retry(mcp, "pay", ARGS, {key: accept(value=True)}, state)
        finally:
            await client.aclose()
    assert text_of(first) == PAID
    assert refusal(raised) == (types.INTERNAL_ERROR, FORGOTTEN)
    assert charges == ["10 to Ada"]
    assert (
        "elicitkit's RedisStore: Redis's maxmemory-policy is allkeys-lru, so Redis may evict "
        "dialogue records under memory pressure, and those dialogues' later rounds are then "
        "refused as forgotten. Set maxmemory-policy noeviction."
    ) in caplog.messages


@pytest.mark.parametrize(
    ("durable", "later"),
    [
        pytest.param(False, FORGOTTEN, id="restarted-empty"),
        pytest.param(True, INTERRUPTED, id="restarted-from-its-aof"),
    ],
)
async def test_redis_killed_after_the_side_effect_before_the_record(
    caplog: pytest.LogCaptureFixture, durable: bool, later: str, redis_process: RedisProcessFactory
) -> None:
    """Before: the client got "Internal server error" and its retry charged again.

    Now the client gets its result; the log says the outcome was not recorded; the retry,
    once Redis is back, is refused: forgotten (empty), or interrupted (from its AOF, the
    lease of a round that never recorded, written before the restart).
    """
    charges: list[str] = []
    with redis_process(durable=durable) as redis:
        client = Redis.from_url(redis.url)
        try:
            shop = Shop(RedisStore(client), charges)
            shop.after_charge = redis.kill
            async with Client(shop.target, elicitation_callback=never_called) as mcp:
                _, key, state = await to_the_last_question(mcp)
                first = await retry(mcp, "pay", ARGS, {key: accept(value=True)}, state)
                redis.start()
                with pytest.raises(MCPError) as raised:
                    await retry(mcp, "pay", ARGS, {key: accept(value=True)}, state)
        finally:
            await client.aclose()
    assert text_of(first) == PAID
    assert refusal(raised) == (types.INTERNAL_ERROR, later)
    assert charges == ["10 to Ada"]
    (dialogue,) = {r.args[0] for r in caplog.records if r.msg.startswith("elicitkit could not")}
    assert any(
        record.getMessage()
        == f"elicitkit could not record the outcome of dialogue {dialogue}: the client gets "
        "this round's outcome, and the call is never run again (its lease lapses within 0.5 "
        "seconds, and later rounds are told it was interrupted, or that the server lost "
        "track of it if the store lost the entry)."
        for record in caplog.records
    )


def debug_sleep(url: str, seconds: float) -> threading.Thread:
    """``DEBUG SLEEP`` on its own connection: Redis answers nobody for ``seconds``."""

    def block() -> None:
        with SyncRedis.from_url(url) as admin:
            admin.execute_command("DEBUG", "SLEEP", seconds)

    thread = threading.Thread(target=block)
    thread.start()
    until_silent(url)
    return thread


def until_silent(url: str, within: float = 10.0) -> None:
    """Return once Redis stops answering (paused, or in ``DEBUG SLEEP``), within ``within`` s."""
    deadline = time.monotonic() + within
    with SyncRedis.from_url(url, socket_timeout=0.05) as probe:
        while time.monotonic() < deadline:
            try:
                probe.ping()  # answered at once while Redis is awake: no delay between tries
            except RedisTimeoutError:  # noqa: PERF203  (the silence is what it waits for)
                return
    raise AssertionError(f"Redis at {url} still answered after {within} s")


@pytest.mark.parametrize("pause", ["sigstop", "debug-sleep"])
async def test_a_store_that_does_not_answer_fails_the_round_within_its_timeout(
    redis: RedisProcess, store: RedisStore, pause: str
) -> None:
    """Before: with Redis paused every later round hung without a bound.

    Now the round fails within the store timeout and nothing runs. The claim it sent stays
    in Redis's socket buffer and takes the lease when Redis wakes; as no round holds it,
    it lapses, and the retry is told the call was interrupted: fail closed, within the
    lease, never a second run.
    """
    charges: list[str] = []
    shop = Shop(store, charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        sleeper = None
        if pause == "sigstop":
            redis.pause()
        else:
            sleeper = await anyio.to_thread.run_sync(debug_sleep, redis.url, 1)
        started = time.monotonic()
        with anyio.fail_after(10):  # the test's own bound: a hang fails it, not the suite
            refused = await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
        took = time.monotonic() - started
        redis.resume()
        if sleeper is not None:
            await anyio.to_thread.run_sync(sleeper.join)
        started = time.monotonic()
        with pytest.raises(MCPError) as raised:
            await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
        told = time.monotonic() - started
    assert isinstance(refused, types.CallToolResult)
    assert refused.is_error
    assert text_of(refused) == STORE_UNAVAILABLE
    assert took < TIMEOUT + 1.0
    assert refusal(raised) == (types.INTERNAL_ERROR, INTERRUPTED)
    assert told < LEASE + 1.0
    assert charges == []


async def test_a_store_paused_before_the_final_round_then_back_completes_once(
    redis: RedisProcess, store: RedisStore
) -> None:
    """Paused and resumed between rounds (no request in flight): the dialogue goes on."""
    charges: list[str] = []
    shop = Shop(store, charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        redis.pause()
        await anyio.to_thread.run_sync(until_silent, redis.url)  # no request in flight
        redis.resume()
        final = await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
        again = await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
    assert text_of(final) == text_of(again) == PAID
    assert charges == ["10 to Ada"]


async def test_a_lapsed_lease_says_interrupted_within_seconds(store: RedisStore) -> None:
    """A worker died holding the final round: the retry hears so within the lease.

    Before: the lease lasted 660 s; every retry waited 30 s, then was told "still running".
    The dead worker is played by a claim made straight in the store (what its round did
    before it died); tests/test_scaleout_faults.py kills a real worker.
    """
    charges: list[str] = []
    shop = Shop(store, charges)
    async with Client(shop.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        (dialogue,) = [key.decode() for key in await dialogue_keys(store.client)]
        dead = await store.claim(
            dialogue.removeprefix("elicitkit:dialogue:"), "dead", lease=LEASE, keep=60, known=True
        )
        assert dead.status == "claimed"
        started = time.monotonic()
        with pytest.raises(MCPError) as raised:
            await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
        took = time.monotonic() - started
    assert refusal(raised) == (types.INTERNAL_ERROR, INTERRUPTED)
    assert took < LEASE + 1.0
    assert charges == []


async def test_a_round_longer_than_its_lease_keeps_it_by_renewing(store: RedisStore) -> None:
    """A charge of four leases (by Redis's clock): the racing round waits and shares it."""
    charges: list[str] = []
    shop = Shop(store, charges)
    charging = anyio.Event()

    async def long_charge() -> None:
        charging.set()
        await elapse_on_redis(store._redis, 4 * LEASE)  # pyright: ignore[reportPrivateUsage]

    shop.before_charge = long_charge
    async with Client(shop.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        results: list[Any] = []

        async def final() -> None:
            results.append(await retry(client, "pay", ARGS, {key: accept(value=True)}, state))

        with anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(final)
                await charging.wait()  # the first round holds the lease
                group.start_soon(final)
    assert [text_of(result) for result in results] == [PAID, PAID]
    assert charges == ["10 to Ada"]


async def test_redis_durability_is_checked_at_first_use(
    store: RedisStore, caplog: pytest.LogCaptureFixture, redis_process: RedisProcessFactory
) -> None:
    assert await store.durability_problems() == [
        (
            "Redis neither persists writes (appendonly no) nor has a replica, so a restart "
            "forgets every dialogue, and their later rounds are refused as forgotten. Set "
            "appendonly yes and appendfsync always, or replicate it."
        )
    ]
    await store.open("d", keep=60)
    await store.open("e", keep=60)
    problems = await store.durability_problems()
    assert caplog.messages == [f"elicitkit's RedisStore: {problem}" for problem in problems]
    with redis_process(durable=True) as durable:
        client = Redis.from_url(durable.url)
        try:
            assert await RedisStore(client).durability_problems() == []
        finally:
            await client.aclose()


# Memory stores: split between processes, restarted, or past their expiry.


async def test_workers_sharing_a_key_but_not_a_store_refuse_rather_than_run_again() -> None:
    """Before: the final round that reached the other worker's MemoryStore charged again."""
    charges: list[str] = []
    east, west = Shop(MemoryStore(), charges), Shop(MemoryStore(), charges)
    async with (
        Client(east.target, elicitation_callback=never_called) as on_east,
        Client(west.target, elicitation_callback=never_called) as on_west,
    ):
        _, key, state = await to_the_last_question(on_east)
        first = await retry(on_east, "pay", ARGS, {key: accept(value=True)}, state)
        with pytest.raises(MCPError) as raised:
            await retry(on_west, "pay", ARGS, {key: accept(value=True)}, state)
    assert text_of(first) == PAID
    assert refusal(raised) == (types.INTERNAL_ERROR, FORGOTTEN)
    assert charges == ["10 to Ada"]


async def test_a_restarted_process_with_a_shared_key_refuses_dialogues_it_cannot_know() -> None:
    charges: list[str] = []
    before = Shop(MemoryStore(), charges)
    async with Client(before.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
    after = Shop(MemoryStore(), charges)  # the same server, restarted: its memory is empty
    async with Client(after.target, elicitation_callback=never_called) as client:
        with pytest.raises(MCPError) as raised:
            await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
    assert refusal(raised) == (types.INTERNAL_ERROR, FORGOTTEN)
    assert charges == ["10 to Ada"]
    assert after.runs == 0


def test_install_warns_when_the_key_is_shared_but_the_store_is_not(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("MCP_REQUEST_STATE_KEY", "k" * 32)
    monkeypatch.setenv("ELICITKIT_STORE", "memory://")
    elicitkit.install(MCPServer("split"))
    monkeypatch.delenv("ELICITKIT_STORE")
    elicitkit.install(MCPServer("explicit"), store=MemoryStore())
    split = (
        "elicitkit records dialogues in a MemoryStore of this process while "
        "MCP_REQUEST_STATE_KEY shares the sealing key, so a round that reaches another "
        "worker, or this one after a restart, finds no record of its call and is refused "
        "(the user must start the call afresh). Share one store between the workers: "
        "leave ELICITKIT_STORE unset (a file on this machine), set it to redis://... for "
        "several machines, or pass install(server, store=SqliteStore(...) or RedisStore(...))."
    )
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == 2 * [(logging.WARNING, split)]
    caplog.clear()
    elicitkit.install(MCPServer("shared-file"))  # the default: a file every worker shares
    monkeypatch.delenv("MCP_REQUEST_STATE_KEY")
    elicitkit.install(MCPServer("alone"), store=MemoryStore())
    assert caplog.records == []


@pytest.mark.parametrize("where", ["memory", "sqlite", ON_REDIS])
async def test_a_state_that_outlives_its_record_is_refused_not_run(
    where: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A worker whose clock lags accepts a state after the record expired (skew > 60 s).

    Before: 120 s of skew ran the dialogue again. The record's expiry is shortened here to
    stand for the skew; the state is still valid for 600 s. On SQLite, whose records follow
    the machine's wall clock, the jump is that clock stepping forward (an NTP step).
    """
    charges: list[str] = []
    store: OutcomeStore = MemoryStore()
    client = None
    if where == "sqlite":
        store = SqliteStore(tmp_path / "records.sqlite3")
    if where == "redis":
        client = Redis.from_url(request.getfixturevalue("redis_url"))
        store = RedisStore(client, prefix=f"test:{secrets.token_hex(4)}:")
    try:
        shop = Shop(store, charges)
        shop.middleware.once.keep = 0.5
        async with Client(shop.target, elicitation_callback=never_called) as mcp:
            _, key, state = await to_the_last_question(mcp)
            first = await retry(mcp, "pay", ARGS, {key: accept(value=True)}, state)
            with FakeClock() as clock:  # past the record's expiry, by the store's clock
                if client is None:
                    clock.jump(0.6)
                else:
                    await elapse_on_redis(client, 0.6)
                with pytest.raises(MCPError) as raised:
                    await retry(mcp, "pay", ARGS, {key: accept(value=True)}, state)
    finally:
        if client is not None:
            await client.aclose()
    assert text_of(first) == PAID
    assert refusal(raised) == (types.INTERNAL_ERROR, FORGOTTEN)
    assert charges == ["10 to Ada"]


async def test_a_large_result_is_kept_as_a_digest_and_its_replay_says_so() -> None:
    charges: list[str] = []
    store = MemoryStore()
    shop = Shop(store, charges)
    shop.result = "{name} " + "y" * 1_000_000 + " charge #{count}"
    async with Client(shop.target, elicitation_callback=never_called) as client:
        _, key, state = await to_the_last_question(client)
        first = await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
        again = await retry(client, "pay", ARGS, {key: accept(value=True)}, state)
    assert text_of(first).endswith(" charge #1")
    assert len(text_of(first)) == 1_000_014
    assert store.bytes < 3_000  # the digest and a 512-character head, not a megabyte
    assert isinstance(again, types.CallToolResult)
    assert again.is_error
    text = text_of(again)
    assert text.startswith("This call already completed, and it is not run again. Its result (")
    assert (
        "was larger than the 32768 bytes the server keeps to answer a repeated request, "
        "so only its beginning was kept: "
    ) in text
    assert len(text) < 1_000
    assert charges == ["10 to Ada"]


async def test_a_retry_safe_lease_written_before_a_restart_is_interrupted(
    redis_process: RedisProcessFactory,
) -> None:
    """A marked lease from before Redis restarted may predate a lost unmark: closed, not run.

    The round may have left its retry_safe step (unmarked its lease, in the second the AOF
    lost) and gone on to a side effect before it died, so the next claim must not take it.
    """
    with redis_process(durable=True) as redis:
        client = Redis.from_url(redis.url)
        try:
            store = RedisStore(client)
            await store.open("d", keep=60)
            assert await store.claim("d", "a", lease=60, keep=60, known=True) == Claim("claimed")
            assert await store.hold("d", "a", retry_safe=True, lease=0.2, keep=60)
            redis.restart()
            clock = Redis.from_url(redis.url)  # a fresh connection: the client's was cut
            try:
                await elapse_on_redis(clock, 0.3)
            finally:
                await clock.aclose()
            assert await store.claim("d", "b", lease=60, keep=60, known=True) == Claim(
                "interrupted"
            )
        finally:
            await client.aclose()
