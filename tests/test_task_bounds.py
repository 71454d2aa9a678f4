"""Task records are bounded and fair: a full store refuses new tasks, never drops a running
one, and a huge result is kept by its size and digest, not whole.

Before: a client that started 10,001 waiting tasks made `MemoryTaskStore` evict the oldest
*running* task, another user's, whose body stopped and whose answer was refused; and a 20 MB
result was kept for an hour and sent whole on every ``tasks/get``.
"""

from __future__ import annotations

import json
import re

import pytest

from elicitkit import go_async
from elicitkit._replay.tasks import MemoryTaskStore, TaskRecord
from elicitkit._runtime.task_engine import DEFAULT_MAX_RESULT_BYTES
from elicitkit.stores import StoreFull
from elicitkit.testing import FakeClock
from elicitkit.testing._task_wire import update_task
from tests.mrtr import accept, only_question, text_of
from tests.sdks import in_memory, new_server
from tests.test_tasks import Counts, build, call, start_task, tasks_client, until

pytestmark = pytest.mark.anyio


def _record(number: int, *, status: str = "working") -> TaskRecord:
    return TaskRecord(f"task-{number}", status, 0.0, 0.0, None, 1000)  # type: ignore[arg-type]


async def test_a_flood_of_waiting_tasks_is_refused_and_no_running_task_is_dropped() -> None:
    with FakeClock():
        store = MemoryTaskStore()  # 10,000 at most
        first = await store.create(_record(0), dialogue="someone-else")
        for number in range(1, 10_000):
            await store.create(_record(number), dialogue=None)
        with pytest.raises(StoreFull, match=r"holds 10000 unfinished tasks.*Raise max_tasks"):
            await store.create(_record(10_000), dialogue="the-flood")
        assert await store.get(first.task_id) is first  # the other user's task is still there
        assert len(store) == 10_000
        # An ended task makes room: it is the one dropped, never a running one.
        await store.change("task-5", lambda record: setattr(record, "status", "completed") or True)
        await store.create(_record(10_000), dialogue="the-flood")
        assert await store.get("task-5") is None
        assert await store.get(first.task_id) is first
        # A refused creation left no trace of its dialogue.
        assert store._by_dialogue.get("the-flood") == "task-10000"  # pyright: ignore[reportPrivateUsage]


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
    assert counts.after_go_async == 1  # the refused call never got past go_async()


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
