"""The record backend's contract (`elicitkit._replay.records`), held to every backend.

One suite, parametrised over memory, one real SQLite file (two connections, as two
processes have) and a real redis-server (two clients): what the kinds above rely on
(create-if-absent with an alias, compare-and-set, a lease that a renewal never revives,
bounds that never drop open work, expiry, waking) must hold the same on each.

Time: memory and SQLite judge by elicitkit's clock, faked here; Redis by its own, so its
tests wait for Redis's clock to move (`tests.redis_clock.elapse_on_redis`), never a delay
raced against it.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from redis.asyncio import Redis

from elicitkit._replay.records import Full, MemoryRecords, Records
from elicitkit._replay.redis_records import RedisRecords
from elicitkit._replay.sqlite_records import SqliteRecords
from elicitkit.testing import FakeClock
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS

pytestmark = pytest.mark.anyio

LEASE = 0.2  # seconds: short, since Redis's tests wait for its clock to pass it


@dataclass
class Backend:
    """Makes connections to one shared set of records, and lets the backend's time pass."""

    connect: Callable[[], Records]
    elapse: Callable[[float], Awaitable[None]]
    bounds_entries: bool  # Redis leaves the count of entries to its maxmemory


@pytest.fixture(params=["memory", "sqlite", ON_REDIS])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    limits: dict[str, Any] = {"max_per_caller": 2}
    if request.param in ("memory", "sqlite"):
        with FakeClock() as fake:

            async def jump(seconds: float) -> None:
                fake.jump(seconds)

            if request.param == "memory":
                shared = MemoryRecords(max_entries=5, **limits)
                yield Backend(lambda: shared, jump, bounds_entries=True)
            else:
                path = tmp_path / "records.sqlite3"
                opened: list[SqliteRecords] = []

                def connect() -> Records:
                    opened.append(SqliteRecords(path, "test", max_entries=5, **limits))
                    return opened[-1]

                yield Backend(connect, jump, bounds_entries=True)
                for records in opened:
                    records.close()
        return
    url = request.getfixturevalue("redis_url")
    prefix = f"test:{secrets.token_hex(4)}:"
    clients: list[Redis] = []

    def connect_redis() -> Records:
        clients.append(Redis.from_url(url))
        return RedisRecords(clients[-1], prefix, **limits)

    async def elapse(seconds: float) -> None:
        await elapse_on_redis(clients[0], seconds)

    yield Backend(connect_redis, elapse, bounds_entries=False)
    for client in clients:
        await client.aclose()


async def test_a_record_is_created_once_and_read_by_every_connection(backend: Backend) -> None:
    one, other = backend.connect(), backend.connect()
    assert await one.create("k", "first", caller="", unfinished=True, ttl=60, lease=60) is None
    again = await other.create("k", "second", caller="", unfinished=True, ttl=60)
    assert again is not None
    assert (again.value, again.unfinished, again.held) == ("first", True, True)
    read = await other.read("k")
    assert read == again
    assert await other.read("nobody") is None


async def test_an_alias_finds_its_record_and_no_second_one_is_made(backend: Backend) -> None:
    one, other = backend.connect(), backend.connect()
    assert await one.create("k1", "first", caller="", unfinished=True, ttl=60, alias="d") is None
    found = await other.create("k2", "second", caller="", unfinished=True, ttl=60, alias="d")
    assert found is not None
    assert found.value == "first"
    assert await other.read("k2") is None  # nothing was stored under the new key


async def test_an_update_lands_only_over_the_version_it_read(backend: Backend) -> None:
    one, other = backend.connect(), backend.connect()
    await one.create("k", "v0", caller="", unfinished=True, ttl=60)
    read = await one.read("k")
    assert read is not None
    first = await other.update("k", read.version, "v1", unfinished=True)
    assert first is not None
    assert first.version != read.version
    assert first.value == "v1"
    # The write the other connection made first wins; this one reads again.
    assert await one.update("k", read.version, "stale", unfinished=True) is None
    fresh = await one.read("k")
    assert fresh is not None
    assert (fresh.value, fresh.version) == ("v1", first.version)
    assert await one.update("nobody", fresh.version, "x", unfinished=True) is None


async def test_a_lapsed_lease_is_never_revived_by_a_renewal_only_by_a_write(
    backend: Backend,
) -> None:
    one, other = backend.connect(), backend.connect()
    await one.create("k", "v", caller="", unfinished=True, ttl=60, lease=LEASE)
    renewed = await one.renew("k", LEASE * 2)
    assert renewed is not None
    assert renewed.held
    await backend.elapse(LEASE * 1.2)  # past the first lease, within the renewed one
    held = await other.read("k")
    assert held is not None
    assert held.held
    await backend.elapse(LEASE * 1.2)
    lapsed = await other.read("k")
    assert lapsed is not None
    assert not lapsed.held
    late = await one.renew("k", 60)
    assert late is not None
    assert not late.held
    unrevived = await other.read("k")
    assert unrevived is not None
    assert not unrevived.held
    granted = await other.update("k", unrevived.version, "v2", unfinished=True, lease=60)
    assert granted is not None
    assert granted.held
    kept = await one.update("k", granted.version, "v3", unfinished=True)  # a write keeps the lease
    assert kept is not None
    assert kept.held
    assert await one.renew("nobody", 1) is None


async def test_a_caller_at_its_limit_is_refused_until_one_of_its_records_closes(
    backend: Backend,
) -> None:
    records = backend.connect()
    await records.create("a1", "v", caller="alice", unfinished=True, ttl=60)
    await records.create("a2", "v", caller="alice", unfinished=True, ttl=60)
    with pytest.raises(Full) as refused:
        await records.create("a3", "v", caller="alice", unfinished=True, ttl=60)
    assert (refused.value.limit, refused.value.caller) == (2, True)
    assert await records.create("b1", "v", caller="bob", unfinished=True, ttl=60) is None
    # A closed record counts against nobody.
    assert await records.create("a-done", "v", caller="alice", unfinished=False, ttl=60) is None
    read = await records.read("a1")
    assert read is not None
    closed = await records.update("a1", read.version, "ended", unfinished=False)
    assert closed is not None
    assert not closed.unfinished
    assert await records.create("a3", "v", caller="alice", unfinished=True, ttl=60) is None


async def test_a_full_backend_drops_a_closed_record_never_an_open_one(backend: Backend) -> None:
    records = backend.connect()
    for n in range(5):
        await records.create(f"o{n}", "v", caller=f"caller {n}", unfinished=True, ttl=60)
    if not backend.bounds_entries:
        # Redis counts no entries (its maxmemory bounds it): a sixth caller's record is kept.
        assert await records.create("o5", "v", caller="caller 5", unfinished=True, ttl=60) is None
        assert await records.read("o0") is not None
        return
    with pytest.raises(Full) as refused:
        await records.create("o5", "v", caller="caller 5", unfinished=True, ttl=60)
    assert (refused.value.limit, refused.value.caller) == (5, False)
    read = await records.read("o2")
    assert read is not None
    await records.update("o2", read.version, "ended", unfinished=False)
    assert await records.create("o5", "v", caller="caller 5", unfinished=True, ttl=60) is None
    assert await records.read("o2") is None  # the closed one made room
    for key in ("o0", "o1", "o3", "o4", "o5"):
        assert await records.read(key) is not None


async def test_a_record_expires_its_ttl_after_creation_whatever_was_written_since(
    backend: Backend,
) -> None:
    records = backend.connect()
    await records.create("k", "v", caller="alice", unfinished=True, ttl=LEASE * 2, alias="d")
    await backend.elapse(LEASE)
    read = await records.read("k")
    assert read is not None
    written = await records.update("k", read.version, "v2", unfinished=True)
    assert written is not None
    await backend.elapse(LEASE * 1.2)
    assert await records.read("k") is None
    assert await records.renew("k", 60) is None
    assert await records.update("k", written.version, "v3", unfinished=True) is None
    # Gone with its alias, and no longer counted against its caller.
    made = await records.create("k2", "new", caller="alice", unfinished=True, ttl=60, alias="d")
    assert made is None
    assert await records.create("k3", "new", caller="alice", unfinished=True, ttl=60) is None


async def test_a_wait_ends_when_another_connection_writes(backend: Backend) -> None:
    one, other = backend.connect(), backend.connect()
    await one.create("k", "v", caller="", unfinished=True, ttl=60)
    read = await one.read("k")
    assert read is not None
    woken = anyio.Event()

    async def waiter() -> None:
        await one.wait("k", read.version, 60)
        woken.set()

    # Real seconds bound the test, not the wait: a wait that misses the write fails it.
    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.sleep(0.1)  # let the waiter subscribe (it reads after, so no race)
            assert not woken.is_set()
            await other.update("k", read.version, "v2", unfinished=True)
            await woken.wait()
        # A version already gone by returns at once; so does a record that is gone.
        await one.wait("k", read.version, 60)
        await one.wait("nobody", 1, 60)


async def test_a_megabyte_of_hostile_text_is_kept_exactly(backend: Backend) -> None:
    records = backend.connect()
    hostile = ('"\\\x00\u2028\U0001f600' * (1024 * 1024 // 8))[: 1024 * 1024]
    await records.create("k", hostile, caller='"\\', unfinished=True, ttl=60, alias="\x00'")
    read = await backend.connect().read("k")
    assert read is not None
    assert read.value == hostile
