"""Each caller's open dialogues are capped in every outcome store (issue 30, item 5).

One contract over the three stores (memory, a real SQLite file, a real redis-server): a
caller (a principal's digest; every anonymous caller shares ``""``) holding
``max_per_caller`` open dialogues is refused a new one with `CallerFull`, while another
caller opens; a dialogue recorded, interrupted or expired stops counting; durable steps
never count. Then the refusal as a client sees it, through `AtMostOnce` and the real SDK.
"""

from __future__ import annotations

import secrets
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer, RequestStateSecurity
from redis.asyncio import Redis

import elicitkit
from elicitkit import ask
from elicitkit._replay import sqlite_store
from elicitkit._replay.once import CALLER_FULL, AtMostOnce
from elicitkit._replay.store import ENTRY_OVERHEAD_BYTES, caller_key
from elicitkit.stores import CallerFull, Claim, MemoryStore, OutcomeStore, RedisStore, SqliteStore
from elicitkit.testing import FakeClock
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS, RedisProcessFactory
from tests.sdks import in_memory

pytestmark = pytest.mark.anyio

KEEP = 60.0
CAP = 2
ALICE, BOB, ANYONE = caller_key("alice"), caller_key("bob"), caller_key(None)

Elapse = Callable[[float], Awaitable[None]]


@pytest.fixture
def fake_clock() -> Iterator[FakeClock]:
    with FakeClock() as clock:
        yield clock


@pytest.fixture(params=["memory", "sqlite", ON_REDIS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OutcomeStore]:
    if request.param == "memory":
        request.getfixturevalue("fake_clock")
        yield MemoryStore(max_per_caller=CAP)
        return
    if request.param == "sqlite":
        request.getfixturevalue("fake_clock")
        sqlite = SqliteStore(tmp_path / "records.sqlite3", max_per_caller=CAP)
        yield sqlite
        sqlite.close()
        return
    client = Redis.from_url(request.getfixturevalue("redis_url"))
    try:
        yield RedisStore(client, prefix=f"test:{secrets.token_hex(4)}:", max_per_caller=CAP)
    finally:
        await client.aclose()


@pytest.fixture
def elapse(store: OutcomeStore, request: pytest.FixtureRequest) -> Elapse:
    """Let ``seconds`` pass on the clock that judges ``store`` (as in tests/test_stores.py)."""
    if isinstance(store, RedisStore):
        redis = store.client

        async def wait(seconds: float) -> None:
            await elapse_on_redis(redis, seconds)

        return wait
    fake: FakeClock = request.getfixturevalue("fake_clock")

    async def jump(seconds: float) -> None:
        fake.jump(seconds)

    return jump


def refusal(store: OutcomeStore) -> str:
    name = (
        f"SQLite store at {store.path}" if isinstance(store, SqliteStore) else type(store).__name__
    )
    return (
        f"The {name} holds 2 open dialogues of this caller (a principal; every anonymous "
        "caller shares one count), its max_per_caller, so it opens no new dialogue of theirs "
        "until one completes or expires; other callers' calls go on. Raise max_per_caller."
    )


async def claim(store: OutcomeStore, dialogue: str, token: str, *, known: bool = True) -> Claim:
    return await store.claim(dialogue, token, lease=1.0, keep=KEEP, known=known)


async def test_a_caller_at_its_cap_is_refused_and_another_still_opens(
    store: OutcomeStore,
) -> None:
    await store.open("a1", keep=KEEP, caller=ALICE)
    await store.open("a2", keep=KEEP, caller=ALICE)
    with pytest.raises(CallerFull) as refused:
        await store.open("a3", keep=KEEP, caller=ALICE)
    assert str(refused.value) == refusal(store)
    await store.open("b1", keep=KEEP, caller=BOB)  # another caller goes on
    await store.open("b2", keep=KEEP, caller=BOB)
    # Alice's open dialogues were not evicted for anybody, and the refused one has no entry.
    assert await claim(store, "a1", "t") == Claim("claimed")
    assert await claim(store, "a2", "t") == Claim("claimed")
    assert await claim(store, "a3", "t") == Claim("forgotten")


async def test_every_anonymous_caller_shares_one_count(store: OutcomeStore) -> None:
    await store.open("x1", keep=KEEP)  # a store's default caller is the anonymous one
    await store.open("x2", keep=KEEP, caller=ANYONE)
    with pytest.raises(CallerFull):
        await store.open("x3", keep=KEEP, caller=ANYONE)
    await store.open("a1", keep=KEEP, caller=ALICE)  # a principal has a count of its own


async def test_opening_the_same_dialogue_again_counts_it_once(store: OutcomeStore) -> None:
    # A Redis store sends an operation once more when its connection fails: still one.
    await store.open("a1", keep=KEEP, caller=ALICE)
    await store.open("a1", keep=KEEP, caller=ALICE)
    await store.open("a2", keep=KEEP, caller=ALICE)


async def test_a_recorded_dialogue_frees_its_count(store: OutcomeStore) -> None:
    await store.open("a1", keep=KEEP, caller=ALICE)
    await store.open("a2", keep=KEEP, caller=ALICE)
    assert await claim(store, "a1", "t") == Claim("claimed")
    await store.release("a1", "t", keep=KEEP)  # asked again: still open, still counted
    with pytest.raises(CallerFull):
        await store.open("a3", keep=KEEP, caller=ALICE)
    assert await claim(store, "a1", "t") == Claim("claimed")
    await store.record("a1", "done", keep=KEEP)
    await store.open("a3", keep=KEEP, caller=ALICE)
    with pytest.raises(CallerFull):
        await store.open("a4", keep=KEEP, caller=ALICE)


async def test_an_interrupted_or_expired_dialogue_frees_its_count(
    store: OutcomeStore, elapse: Elapse
) -> None:
    await store.open("a1", keep=KEEP, caller=ALICE)
    await store.open("a2", keep=1.5, caller=ALICE)
    assert await claim(store, "a1", "t") == Claim("claimed")  # a 1-second lease, never renewed
    await elapse(1.6)
    assert await claim(store, "a1", "u") == Claim("interrupted")
    # a1 is over (interrupted) and a2 expired: two new dialogues fit, a third does not.
    await store.open("a3", keep=KEEP, caller=ALICE)
    await store.open("a4", keep=KEEP, caller=ALICE)
    with pytest.raises(CallerFull):
        await store.open("a5", keep=KEEP, caller=ALICE)


async def test_durable_steps_do_not_count(store: OutcomeStore) -> None:
    await store.open("a1", keep=KEEP, caller=ALICE)
    assert await claim(store, "a1", "t") == Claim("claimed")
    for key in ("quote", "pay", "ship"):  # the entries AtMostOnce.claim_step makes
        assert await claim(store, f"a1/{key}", "t", known=False) == Claim("claimed")
        await store.record(f"a1/{key}", "done", keep=KEEP)
    await store.open("a2", keep=KEEP, caller=ALICE)  # the dialogue alone counted
    with pytest.raises(CallerFull):
        await store.open("a3", keep=KEEP, caller=ALICE)


STORES: dict[str, Callable[[Path, Any], object]] = {
    "MemoryStore": lambda _, limit: MemoryStore(max_per_caller=limit),
    "SqliteStore": lambda folder, limit: SqliteStore(folder / "r.sqlite3", max_per_caller=limit),
    "RedisStore": lambda _, limit: RedisStore(Redis(), max_per_caller=limit),  # never connects
}


@pytest.mark.parametrize(
    "value",
    [pytest.param(0, id="zero"), pytest.param(True, id="bool"), pytest.param(1.5, id="float")],
)
@pytest.mark.parametrize("kind", list(STORES))
def test_max_per_caller_must_be_a_whole_number(kind: str, value: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as raised:
        STORES[kind](tmp_path, value)
    assert str(raised.value) == (
        f"{kind} needs max_per_caller of at least 1 (a whole number), not {value!r}."
    )


async def test_an_open_dialogues_count_fits_in_the_entry_overhead(fake_clock: FakeClock) -> None:
    """MemoryStore's count is inside ENTRY_OVERHEAD_BYTES (tracemalloc), caller digest and all."""
    store = MemoryStore(max_per_caller=10_000)
    names = [f"dialogue-{index:013d}" for index in range(10_000)]
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for name in names:  # a fresh digest each call, as AtMostOnce makes: one is kept
            await store.open(name, keep=KEEP, caller=caller_key("alice"))
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (after - before) / len(names) <= ENTRY_OVERHEAD_BYTES


async def test_the_sqlite_file_counts_the_callers_rows_in_its_bytes(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3")
    await store.open("a1", keep=KEEP, caller=ALICE)
    row = len("a1") + sqlite_store.ROW_OVERHEAD_BYTES
    assert await store.totals() == (1, row + 2 * (len("a1") + len(ALICE)) + 20)
    await store.record("a1", "done", keep=KEEP)  # no longer open: its caller's row goes
    assert await store.totals() == (1, row + len("done"))
    store.close()


async def test_a_dialogue_of_another_boot_stops_counting_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock
) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3", max_per_caller=CAP)
    await store.open("a1", keep=KEEP, caller=ALICE)
    await store.open("a2", keep=KEEP, caller=ALICE)
    monkeypatch.setattr(sqlite_store, "STAMP", "another-boot")  # the machine rebooted
    # Both are refused as forgotten from now on, so they no longer hold Alice's places.
    assert await claim(store, "a1", "t") == Claim("forgotten")
    await store.open("a3", keep=KEEP, caller=ALICE)
    await store.open("a4", keep=KEEP, caller=ALICE)
    with pytest.raises(CallerFull):
        await store.open("a5", keep=KEEP, caller=ALICE)
    store.close()


async def test_a_dialogue_of_another_redis_run_stops_counting_at_the_cap(
    redis_process: RedisProcessFactory,
) -> None:
    with redis_process(durable=True) as redis:
        client = Redis.from_url(redis.url)
        try:
            store = RedisStore(client, max_per_caller=CAP)
            await store.open("a1", keep=KEEP, caller=ALICE)
            await store.open("a2", keep=KEEP, caller=ALICE)
            redis.restart()  # from its append-only file: the keys are back, the run id is new
            # Both are refused as forgotten from now on, so they no longer hold Alice's places.
            assert await claim(store, "a1", "t") == Claim("forgotten")
            await store.open("a3", keep=KEEP, caller=ALICE)
            await store.open("a4", keep=KEEP, caller=ALICE)
            with pytest.raises(CallerFull):
                await store.open("a5", keep=KEEP, caller=ALICE)
        finally:
            await client.aclose()


class Refusals:
    """Outcomes for `AtMostOnce` that are plain strings: what a round was told."""

    def dump(self, result: str) -> tuple[str | None, object]:
        return None, result

    def load(self, kind: str | None, data: object) -> str:
        return str(data)

    def error_data(self, error: BaseException) -> None:
        return None

    def raise_error(self, data: object) -> None:
        raise AssertionError(data)

    def needs_input(self, result: str) -> bool:
        return result == "asks"

    def refused(self, message: str) -> str:
        return message


async def _asks() -> str:
    return "asks"


async def test_at_most_once_opens_for_the_principal_and_words_the_refusal(
    fake_clock: FakeClock,
) -> None:
    once = AtMostOnce(MemoryStore(max_per_caller=1), keep=KEEP)
    assert await once.begin(_asks, lambda: "a1", Refusals(), principal="alice") == "asks"
    assert await once.begin(_asks, lambda: "a2", Refusals(), principal="alice") == CALLER_FULL
    assert await once.begin(_asks, lambda: "b1", Refusals(), principal="bob") == "asks"
    assert await once.begin(_asks, lambda: "n1", Refusals()) == "asks"  # anonymous
    assert await once.begin(_asks, lambda: "n2", Refusals()) == CALLER_FULL


def form_server(store: OutcomeStore) -> MCPServer:
    server = MCPServer("forms", request_state_security=RequestStateSecurity(keys=[b"k" * 32]))
    elicitkit.install(server, store=store)

    @server.tool()
    async def colour() -> str:
        """Ask for a colour."""
        return str((await ask(str, "Which colour?")).content)

    return server


async def test_a_caller_at_its_cap_is_told_in_a_tool_error_and_may_go_on_later() -> None:
    server = form_server(MemoryStore(max_per_caller=1))  # no authentication: one count
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        key, _, state = only_question(await retry(client, "colour", {}))
        refused = await retry(client, "colour", {})
        assert isinstance(refused, types.CallToolResult)
        assert refused.is_error
        assert text_of(refused) == CALLER_FULL
        # The first call goes on to its end, and that frees the caller's place.
        done = await retry(client, "colour", {}, {key: accept(value="teal")}, state)
        assert text_of(done) == "teal"
        only_question(await retry(client, "colour", {}))
