"""The outcome stores: the same contract in memory and on a real redis-server."""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator

import anyio
import pytest
from redis.asyncio import Redis

from elicitkit.stores import Claim, MemoryStore, OutcomeStore, RedisStore

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[OutcomeStore]:
    if request.param == "memory":
        yield MemoryStore()
        return
    client = Redis.from_url(request.getfixturevalue("redis_url"))
    try:
        yield RedisStore(client, prefix=f"test:{secrets.token_hex(4)}:")
    finally:
        await client.aclose()


async def test_the_first_claim_wins_and_the_next_is_busy(store: OutcomeStore) -> None:
    assert await store.claim("d1", "a", lease=60) == Claim("claimed")
    assert await store.claim("d1", "b", lease=60) == Claim("busy")
    assert await store.claim("d2", "b", lease=60) == Claim("claimed")  # another dialogue


async def test_a_record_is_given_to_every_later_claim(store: OutcomeStore) -> None:
    assert await store.claim("d", "a", lease=60) == Claim("claimed")
    await store.record("d", '{"r":1}', keep=60)
    assert await store.claim("d", "b", lease=60) == Claim("recorded", '{"r":1}')
    assert await store.claim("d", "c", lease=60) == Claim("recorded", '{"r":1}')


async def test_only_the_holder_releases_a_lease_and_a_record_stays(store: OutcomeStore) -> None:
    assert await store.claim("d", "a", lease=60) == Claim("claimed")
    await store.release("d", "someone-else")
    assert await store.claim("d", "b", lease=60) == Claim("busy")
    await store.release("d", "a")
    assert await store.claim("d", "b", lease=60) == Claim("claimed")
    await store.record("d", "done", keep=60)
    await store.release("d", "b")
    assert await store.claim("d", "c", lease=60) == Claim("recorded", "done")


async def test_leases_and_records_expire(store: OutcomeStore) -> None:
    assert await store.claim("lapsed", "a", lease=0.05) == Claim("claimed")
    assert await store.claim("kept", "a", lease=60) == Claim("claimed")
    await store.record("kept", "done", keep=0.05)
    await anyio.sleep(0.15)
    assert await store.claim("lapsed", "b", lease=60) == Claim("claimed")  # a crashed holder
    assert await store.claim("kept", "b", lease=60) == Claim("claimed")


async def test_a_full_memory_store_drops_the_oldest_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = MemoryStore(max_entries=2)
    for dialogue in ("d1", "d2", "d3"):
        await store.record(dialogue, dialogue, keep=60)
    assert len(store) == 2
    assert await store.claim("d3", "x", lease=60) == Claim("recorded", "d3")
    assert await store.claim("d1", "x", lease=60) == Claim("claimed")  # dropped early
    assert [record.levelno for record in caplog.records] == [logging.WARNING, logging.WARNING]
    assert caplog.records[0].getMessage() == (
        "elicitkit's MemoryStore is full (2 dialogues): dropped dialogue d1 before it expired, "
        "so a replay of it could run its tool again. Raise max_entries."
    )


def test_a_memory_store_needs_room() -> None:
    with pytest.raises(ValueError, match=r"^MemoryStore needs max_entries of at least 1, not 0\.$"):
        MemoryStore(max_entries=0)
