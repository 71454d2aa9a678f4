"""Task records are bounded and fair: a full store refuses new tasks, never drops a running
one, and a huge result is kept by its size and digest, not whole.

Before: a client that started 10,001 waiting tasks made `MemoryTaskStore` evict the oldest
*running* task, another user's, whose body stopped and whose answer was refused; and a 20 MB
result was kept for an hour and sent whole on every ``tasks/get``.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

import elicitkit._clock as clock
from elicitkit import go_async
from elicitkit._replay.tasks import MemoryTaskStore, TaskRecord, TaskStore
from elicitkit._runtime.task_engine import DEFAULT_MAX_RESULT_BYTES
from elicitkit.stores import CallerFull, RedisTaskStore, SqliteTaskStore, StoreFull
from elicitkit.testing import FakeClock
from elicitkit.testing._task_wire import update_task
from tests.mrtr import accept, only_question, text_of
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS
from tests.sdks import in_memory, new_server
from tests.test_tasks import Counts, build, call, start_task, tasks_client, until

pytestmark = pytest.mark.anyio


def _record(number: int, *, status: str = "working") -> TaskRecord:
    # Each its own caller: one caller alone is stopped much sooner (max_per_caller, below).
    caller = f"user-{number}"
    return TaskRecord(f"task-{number}", status, 0.0, 0.0, None, 1000, principal=caller)  # type: ignore[arg-type]


async def test_a_flood_of_waiting_tasks_is_refused_and_no_running_task_is_dropped() -> None:
    with FakeClock():
        store = MemoryTaskStore()  # 10,000 at most
        first = await store.create(_record(0), dialogue="someone-else")
        for number in range(1, 10_000):
            await store.create(_record(number), dialogue=None)
        with pytest.raises(StoreFull, match=r"holds 10000 unfinished tasks.*Raise max_tasks"):
            await store.create(_record(10_000), dialogue="the-flood")
        assert await store.get(first.task_id) == first  # the other user's task is still there
        assert len(store) == 10_000
        # An ended task makes room: it is the one dropped, never a running one.
        await store.change("task-5", lambda record: setattr(record, "status", "completed") or True)
        await store.create(_record(10_000), dialogue="the-flood")
        assert await store.get("task-5") is None
        assert await store.get(first.task_id) == first
        # A refused creation left no trace of its dialogue: it is the later one's.
        again = await store.create(_record(10_001), dialogue="the-flood")
        assert again.task_id == "task-10000"


async def test_a_full_task_store_refuses_the_next_go_async_and_the_running_task_finishes(
    sdk: str,
) -> None:
    counts = Counts()
    server = build(sdk, counts, tasks=MemoryTaskStore(max_tasks=1))
    async with tasks_client(in_memory(server)) as client:
        waiting, _ = await start_task(client)  # a user's task, waiting at its question
        await until(client, waiting.task_id, "input_required")
        async with tasks_client(in_memory(server)) as flood:
            key, _, state = only_question(await call(flood))
            answers = {key: accept(name="Eve")}
            refused = await call(flood, input_responses=answers, request_state=state)
        assert getattr(refused, "is_error", False), refused
        assert text_of(refused).endswith(  # after the SDK's "Error executing tool render: "
            "The tool could not go on as a task: the server is running as many tasks as it "
            "can, so nothing after go_async() ran. Call the tool again in a few minutes."
        )
        await update_task(client, waiting.task_id, {"copies": accept(copies=2).model_dump()})
        done = await until(client, waiting.task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Q3 for Ada: 2 copies (task)."
    # The waiting task's two legs; the refused call never got past go_async().
    assert counts.after_go_async == 2


async def test_a_huge_task_result_is_kept_by_size_and_digest(sdk: str) -> None:
    server = new_server(sdk, "big")
    huge = "x" * (2 * DEFAULT_MAX_RESULT_BYTES)

    @server.tool()
    async def export() -> str:
        await go_async("Exporting")
        return huge

    async with tasks_client(in_memory(server)) as client:
        created = await client.session.call_tool("export", {}, allow_claimed=True)
        done = await until(client, created.task_id, "completed")
    text = done["result"]["content"][0]["text"]
    assert done["result"]["isError"] is True
    assert len(json.dumps(done)) < 4096  # not the 2 MiB, on this or any later tasks/get
    found = re.match(
        r"The task completed, but its result \((\d+) bytes, SHA-256 [0-9a-f]{64}\) was larger "
        r"than the 1048576 bytes the server keeps for a task, so only its beginning was kept: ",
        text,
    )
    assert found is not None, text
    assert int(found[1]) > len(huge)


@pytest.fixture(params=["memory", "sqlite", ON_REDIS])
async def task_stores(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[..., TaskStore]]:
    """Makes task stores of one kind: in memory, in a real SQLite file, on a real Redis."""
    if request.param == "memory":
        yield MemoryTaskStore
        return
    if request.param == "sqlite":
        yield lambda **limits: SqliteTaskStore(tmp_path / "records.sqlite3", **limits)
        return
    client = Redis.from_url(request.getfixturevalue("redis_url"))
    prefix = f"test:{secrets.token_hex(4)}:"
    try:
        yield lambda **limits: RedisTaskStore(client, prefix=prefix, **limits)
    finally:
        await client.aclose()


def _of(principal: str | None, number: int) -> TaskRecord:
    now = clock.now()
    return TaskRecord(
        f"{principal}-{number}-{secrets.token_hex(4)}",
        "working",
        now,
        now,
        None,
        3_600_000,
        principal=principal,
        call={"name": "render", "arguments": {}},
        leg=1,
    )


async def test_one_caller_cannot_fill_the_task_store_for_the_others(
    task_stores: Callable[..., TaskStore],
) -> None:
    with FakeClock():
        store = task_stores(max_per_caller=2)
        await store.create(_of("alice", 0), dialogue="alice-first")
        await store.create(_of("alice", 1), dialogue=None)
        with pytest.raises(CallerFull, match=r"holds 2 unfinished tasks of this caller"):
            await store.create(_of("alice", 2), dialogue="alice-third")
        # Every other caller goes on; anonymous callers share one count of their own.
        await store.create(_of("bob", 0), dialogue=None)
        await store.create(_of(None, 0), dialogue=None)
        await store.create(_of(None, 1), dialogue=None)
        with pytest.raises(CallerFull):
            await store.create(_of(None, 2), dialogue=None)
        # A resent go_async() round finds its dialogue's task, at the limit too.
        again = await store.create(_of("alice", 3), dialogue="alice-first")
        assert again.task_id.startswith("alice-0-")
        # The refused creation left no trace: its dialogue has no task.
        assert (await store.create(_of("bob", 1), dialogue="alice-third")).task_id.startswith(
            "bob-1-"
        )
        # A task that ends no longer counts: alice may start another.
        await store.change(again.task_id, _completed)
        await store.create(_of("alice", 4), dialogue=None)
        with pytest.raises(CallerFull):
            await store.create(_of("alice", 5), dialogue=None)


def _completed(record: TaskRecord) -> bool:
    record.status = "completed"
    return True


async def test_one_client_flooding_with_waiting_tasks_is_stopped_at_its_own_limit() -> None:
    with FakeClock():
        store = MemoryTaskStore()  # 10,000 at most, 1,000 of one caller
        for number in range(1_000):
            await store.create(_of("flood", number), dialogue=None)
        with pytest.raises(CallerFull):
            await store.create(_of("flood", 1_000), dialogue=None)
        await store.create(_of("someone-else", 0), dialogue=None)  # the others are not
        assert len(store) == 1_001


@pytest.mark.parametrize("kind", ["sqlite", ON_REDIS])
async def test_a_task_whose_worker_died_still_counts_until_it_ends(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A lost worker's task is resumed on another worker, not lost: it is still the caller's."""
    with FakeClock() as fake:
        client = None
        if kind == "sqlite":
            store: TaskStore = SqliteTaskStore(tmp_path / "r.sqlite3", max_per_caller=1, lease=1)
        else:
            client = Redis.from_url(request.getfixturevalue("redis_url"))
            store = RedisTaskStore(
                client, prefix=f"test:{secrets.token_hex(4)}:", max_per_caller=1, lease=0.05
            )
        try:
            first = await store.create(_of("alice", 0), dialogue=None)
            if client is None:
                fake.jump(2)  # the lease lapsed by the store's clock (elicitkit's wall clock)
            else:
                await elapse_on_redis(client, 0.06)  # the lease lapsed by Redis's clock
            lost = await store.get(first.task_id)
            assert lost is not None
            assert (lost.status, lost.leg_lost) == ("working", True)
            with pytest.raises(CallerFull):
                await store.create(_of("alice", 1), dialogue=None)
            await store.change(first.task_id, _completed)
            await store.create(_of("alice", 1), dialogue=None)  # it ended: it counts no more
        finally:
            if client is not None:
                await client.aclose()


async def test_anonymous_callers_share_one_count_end_to_end(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts, tasks=MemoryTaskStore(max_per_caller=1))
    async with tasks_client(in_memory(server)) as client:
        waiting, _ = await start_task(client)  # an anonymous user's task, waiting
        await until(client, waiting.task_id, "input_required")
        async with tasks_client(in_memory(server)) as other:
            key, _, state = only_question(await call(other))
            answers = {key: accept(name="Eve")}
            refused = await call(other, input_responses=answers, request_state=state)
        assert getattr(refused, "is_error", False), refused
        assert text_of(refused).endswith(
            "The tool could not go on as a task: this caller already has as many unfinished "
            "tasks as the server lets one caller have, so nothing after go_async() ran. Finish "
            "or cancel one of them (tasks/get shows which wait for an answer), then call the "
            "tool again."
        )
    assert counts.after_go_async == 1  # the first user's task; the refused one never got past


@pytest.mark.parametrize("limits", [{"max_per_caller": 0}, {"max_per_caller": True}])
def test_caller_limits_must_be_whole_numbers(limits: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="needs max_per_caller of at least 1"):
        MemoryTaskStore(**limits)
