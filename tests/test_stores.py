"""The outcome stores: the same contract in memory and on a real redis-server."""

from __future__ import annotations

import secrets
import sys
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from elicitkit._replay.store import ENTRY_OVERHEAD_BYTES
from elicitkit.stores import (
    Claim,
    MemoryStore,
    OutcomeStore,
    RedisStore,
    SqliteStore,
    StoreFull,
)
from elicitkit.testing import FakeClock
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS

pytestmark = pytest.mark.anyio

KEEP = 60.0

Elapse = Callable[[float], Awaitable[None]]


@pytest.fixture
def fake_clock() -> Iterator[FakeClock]:
    with FakeClock() as clock:
        yield clock


@pytest.fixture(params=["memory", "sqlite", ON_REDIS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OutcomeStore]:
    if request.param == "memory":
        request.getfixturevalue("fake_clock")  # a memory store's leases run on elicitkit's clock
        yield MemoryStore()
        return
    if request.param == "sqlite":
        request.getfixturevalue("fake_clock")  # judged by elicitkit's wall clock, `now`
        sqlite = SqliteStore(tmp_path / "records.sqlite3")
        yield sqlite
        sqlite.close()
        return
    client = Redis.from_url(request.getfixturevalue("redis_url"))
    try:
        yield RedisStore(client, prefix=f"test:{secrets.token_hex(4)}:")
    finally:
        await client.aclose()


@pytest.fixture
def elapse(store: OutcomeStore, request: pytest.FixtureRequest) -> Elapse:
    """Let ``seconds`` pass on the clock that judges ``store``'s leases and entries.

    A memory store's clock is elicitkit's: the fake clock jumps. Redis judges by its own
    ``TIME``: the test waits until Redis's clock has moved on that far (bounded, generously),
    so the lease or entry has lapsed by the only clock that counts, however slow the machine.
    """
    if isinstance(store, MemoryStore | SqliteStore):
        fake: FakeClock = request.getfixturevalue("fake_clock")

        async def jump(seconds: float) -> None:
            fake.jump(seconds)

        return jump
    assert isinstance(store, RedisStore)
    redis = store._redis  # pyright: ignore[reportPrivateUsage]  (its TIME)

    async def wait(seconds: float) -> None:
        await elapse_on_redis(redis, seconds)

    return wait


async def claim(
    store: OutcomeStore, dialogue: str, token: str, *, lease: float = 60, known: bool = True
) -> Claim:
    return await store.claim(dialogue, token, lease=lease, keep=KEEP, known=known)


async def test_the_first_claim_wins_and_the_next_is_busy(store: OutcomeStore) -> None:
    await store.open("d1", keep=KEEP)
    await store.open("d2", keep=KEEP)
    assert await claim(store, "d1", "a") == Claim("claimed")
    assert await claim(store, "d1", "b") == Claim("busy")
    assert await claim(store, "d2", "b") == Claim("claimed")  # another dialogue


async def test_a_record_is_given_to_every_later_claim(store: OutcomeStore) -> None:
    await store.open("d", keep=KEEP)
    assert await claim(store, "d", "a") == Claim("claimed")
    await store.record("d", '{"r":1}', keep=KEEP)
    assert await claim(store, "d", "b") == Claim("recorded", '{"r":1}')
    assert await claim(store, "d", "c") == Claim("recorded", '{"r":1}')


async def test_only_the_holder_releases_a_lease_and_a_record_stays(store: OutcomeStore) -> None:
    await store.open("d", keep=KEEP)
    assert await claim(store, "d", "a") == Claim("claimed")
    await store.release("d", "someone-else", keep=KEEP)
    assert await claim(store, "d", "b") == Claim("busy")
    await store.release("d", "a", keep=KEEP)
    assert await claim(store, "d", "b") == Claim("claimed")  # released: open again
    await store.record("d", "done", keep=KEEP)
    await store.release("d", "b", keep=KEEP)
    assert await claim(store, "d", "c") == Claim("recorded", "done")


async def test_a_known_dialogue_without_a_trace_is_forgotten(store: OutcomeStore) -> None:
    """What a restart, a flush, an eviction or another process's memory store looks like."""
    assert await claim(store, "lost", "a") == Claim("forgotten")
    assert await claim(store, "lost", "b") == Claim("forgotten")  # and it stays so
    # A state of an earlier version does not say the store saw it: it claims as before.
    assert await claim(store, "legacy", "a", known=False) == Claim("claimed")


async def test_a_lapsed_lease_is_interrupted_for_good(store: OutcomeStore, elapse: Elapse) -> None:
    await store.open("crashed", keep=KEEP)
    assert await claim(store, "crashed", "a", lease=0.05) == Claim("claimed")
    await elapse(0.06)
    assert await claim(store, "crashed", "b") == Claim("interrupted")  # a dead holder
    assert await claim(store, "crashed", "c") == Claim("interrupted")
    assert not await store.renew("crashed", "a", lease=60, keep=KEEP)


async def test_a_renewed_lease_does_not_lapse(store: OutcomeStore, elapse: Elapse) -> None:
    await store.open("slow", keep=KEEP)
    # A second is a generous bound for the renewal that follows (never a 100 ms race).
    assert await claim(store, "slow", "a", lease=1.0) == Claim("claimed")
    assert await store.renew("slow", "a", lease=60, keep=KEEP)
    await elapse(1.05)  # past the first lease: the renewal's holds
    assert await store.renew("slow", "a", lease=60, keep=KEEP)
    assert await claim(store, "slow", "b") == Claim("busy")
    assert not await store.renew("slow", "b", lease=0.2, keep=KEEP)  # not its lease


async def test_a_lease_that_lapses_inside_a_retry_safe_step_is_claimed_again(
    store: OutcomeStore, elapse: Elapse
) -> None:
    """A holder that dies inside a retry_safe step leaves the dialogue runnable, not closed."""
    await store.open("safe", keep=KEEP)
    # Leases that outlast any stall between the calls that need them held (a second).
    assert await claim(store, "safe", "a", lease=5.0) == Claim("claimed")
    assert not await store.hold("safe", "b", retry_safe=True, lease=0.05, keep=KEEP)
    assert await store.hold("safe", "a", retry_safe=True, lease=1.0, keep=KEEP)
    assert await claim(store, "safe", "b") == Claim("busy")  # a live holder, marked or not
    await elapse(1.05)
    assert await claim(store, "safe", "b", lease=60) == Claim("claimed")
    assert not await store.hold("safe", "a", retry_safe=False, lease=60, keep=KEEP)  # b's now
    # Marked and unmarked again before the lapse: interrupted, as any lapsed lease.
    assert await store.hold("safe", "b", retry_safe=True, lease=60, keep=KEEP)
    assert await store.hold("safe", "b", retry_safe=False, lease=0.05, keep=KEEP)
    await elapse(0.06)
    assert await claim(store, "safe", "c") == Claim("interrupted")
    assert not await store.hold("safe", "c", retry_safe=True, lease=60, keep=KEEP)
    assert await claim(store, "safe", "c") == Claim("interrupted")


async def test_a_marked_lease_is_renewed_and_released_once_unmarked(store: OutcomeStore) -> None:
    await store.open("d", keep=KEEP)
    assert await claim(store, "d", "a") == Claim("claimed")
    assert await store.hold("d", "a", retry_safe=True, lease=60, keep=KEEP)
    # While marked, only hold() renews it: a holder unmarks before it renews or releases.
    assert not await store.renew("d", "a", lease=60, keep=KEEP)
    await store.release("d", "a", keep=KEEP)
    assert await claim(store, "d", "b") == Claim("busy")
    assert await store.hold("d", "a", retry_safe=False, lease=60, keep=KEEP)
    assert await store.renew("d", "a", lease=60, keep=KEEP)
    await store.release("d", "a", keep=KEEP)
    assert await claim(store, "d", "b") == Claim("claimed")
    await store.record("d", "done", keep=KEEP)
    assert not await store.hold("d", "b", retry_safe=True, lease=60, keep=KEEP)  # a record
    assert await claim(store, "d", "c") == Claim("recorded", "done")


async def test_entries_expire(store: OutcomeStore, elapse: Elapse) -> None:
    await store.open("kept", keep=KEEP)
    assert await claim(store, "kept", "a") == Claim("claimed")
    await store.record("kept", "done", keep=0.05)
    await store.open("idle", keep=0.05)
    await elapse(0.06)
    assert await claim(store, "kept", "b") == Claim("forgotten")
    assert await claim(store, "idle", "b") == Claim("forgotten")


async def test_a_full_memory_store_refuses_new_calls_and_keeps_every_old_one() -> None:
    store = MemoryStore(max_entries=2)
    for dialogue in ("d1", "d2"):
        await store.open(dialogue, keep=KEEP)
    for new in (store.open("d3", keep=KEEP), claim(store, "d3", "x", known=False)):
        with pytest.raises(StoreFull) as full:
            await new
    assert str(full.value) == (
        "elicitkit's MemoryStore is full (2 dialogues, "
        f"{store.bytes} bytes; at most 2 and 134217728), so it takes no new call until older "
        "ones expire. Raise max_entries or max_bytes."
    )
    with pytest.raises(StoreFull):
        await store.record("d3", "done", keep=KEEP)  # a record of an unknown call is new too
    # The unfinished ones are all still there, and go on to completion.
    assert await claim(store, "d1", "a") == Claim("claimed")
    await store.record("d1", "done", keep=KEEP)
    assert await claim(store, "d1", "b") == Claim("recorded", "done")
    assert len(store) == 2


async def test_a_memory_store_is_bounded_in_bytes() -> None:
    """200 outcomes of 1 MB each (the flood of the issue held 385 MB) stay under 4 MB."""
    bound = 4 * 1024 * 1024
    store = MemoryStore(max_bytes=bound)
    megabyte = "x" * 1_000_000
    refused = 0

    async def record(index: int) -> None:
        nonlocal refused
        try:
            await store.record(f"d{index}", megabyte + str(index), keep=KEEP)
        except StoreFull:
            refused += 1

    tracemalloc.start()
    try:
        for index in range(200):
            await record(index)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert store.bytes <= bound
    assert len(store) == 4  # 1 MB each, with their overhead
    assert refused == 196
    assert held < bound + 1024 * 1024  # what Python really holds: the count is honest
    assert await claim(store, "d0", "x") == Claim("recorded", megabyte + "0")  # kept


async def test_the_byte_count_follows_every_write_and_expiry(fake_clock: FakeClock) -> None:
    store = MemoryStore()
    await store.open("d", keep=0.05)
    assert store.bytes == sys.getsizeof("d") + sys.getsizeof("") + ENTRY_OVERHEAD_BYTES
    assert await claim(store, "d", "token") == Claim("claimed")
    await store.record("d", "done", keep=0.05)
    assert store.bytes == sys.getsizeof("d") + sys.getsizeof("done") + ENTRY_OVERHEAD_BYTES
    fake_clock.jump(0.06)
    await store.open("e", keep=KEEP)  # sweeps the expired entry
    assert len(store) == 1
    assert store.bytes == sys.getsizeof("e") + sys.getsizeof("") + ENTRY_OVERHEAD_BYTES


async def test_the_entry_overhead_is_measured() -> None:
    """ENTRY_OVERHEAD_BYTES covers what an entry costs besides its strings (tracemalloc)."""
    store = MemoryStore()
    names = [f"dialogue-{index:013d}" for index in range(10_000)]
    outcome = "o" * 100
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for name in names:
            await store.record(name, outcome, keep=KEEP)
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    measured = (after - before) / len(names)  # strings shared: only the overhead is new
    assert ENTRY_OVERHEAD_BYTES / 2 < measured <= ENTRY_OVERHEAD_BYTES, measured
    assert store.bytes == len(names) * (
        sys.getsizeof(names[0]) + sys.getsizeof(outcome) + ENTRY_OVERHEAD_BYTES
    )


def test_a_memory_store_needs_room() -> None:
    with pytest.raises(
        ValueError,
        match=r"^MemoryStore needs max_entries of at least 1 \(a whole number\), not 0\.$",
    ):
        MemoryStore(max_entries=0)
    with pytest.raises(ValueError) as raised:
        MemoryStore(max_bytes=1000)
    assert str(raised.value) == (
        "MemoryStore needs max_bytes of at least 65536 (64 KiB), not 1000: less could not "
        "hold one outcome of the largest size kept whole."
    )


async def test_a_redis_that_lost_its_scripts_runs_each_operation_once(redis_url: str) -> None:
    # RedisStore sends its scripts by digest (EVALSHA); a Redis without them (restarted,
    # SCRIPT FLUSH) answers NOSCRIPT without running anything, and the text follows once.
    client = Redis.from_url(redis_url)
    try:
        store = RedisStore(client, prefix=f"test:{secrets.token_hex(4)}:")
        await store.open("d", keep=KEEP)
        await client.script_flush()
        assert await claim(store, "d", "a") == Claim("claimed")
        assert await claim(store, "d", "b") == Claim("busy")  # "a"'s claim ran exactly once
        await client.script_flush()
        await store.release("d", "a", keep=KEEP)
        assert await claim(store, "d", "b") == Claim("claimed")
        await client.script_flush()
        assert await store.renew("d", "b", lease=60, keep=KEEP)
        await store.record("d", '{"r":1}', keep=KEEP)
        assert await claim(store, "d", "c") == Claim("recorded", '{"r":1}')
        # Once it knows them again, the digests are enough.
        stats = await client.info("commandstats")
        evals = stats["cmdstat_eval"]["calls"]
        assert await claim(store, "d", "c") == Claim("recorded", '{"r":1}')
        stats = await client.info("commandstats")
        assert stats["cmdstat_eval"]["calls"] == evals
    finally:
        await client.aclose()
