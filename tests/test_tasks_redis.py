"""Tasks across processes: a `RedisTaskStore` on a real redis-server, two worker processes.

The task is created on one worker and polled, answered and cancelled through the other,
and it outlives the worker it was created on. (A worker killed in the middle of a leg:
tests/test_task_legs_fleet.py and tests/test_tasks_faults.py.)
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from redis.asyncio import Redis

from elicitkit._replay.redis_tasks import RedisTaskStore
from elicitkit._replay.tasks import TaskRecord
from elicitkit._runtime.tasks import TaskEngine
from elicitkit.testing._task_wire import (
    CreatedTask,
    TasksExtension,
    cancel_task,
    get_task,
    update_task,
)
from tests.loopback import free_port, listening
from tests.mrtr import accept, never_called, only_question
from tests.redis_clock import elapse_on_redis
from tests.sdks import SDKS, in_memory
from tests.test_tasks import Counts, build, until

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parent.parent
WORKER = ROOT / "tests" / "servers" / "tasks_worker.py"


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def _store(client: Redis, prefix: str, **settings: Any) -> RedisTaskStore:
    return RedisTaskStore(client, prefix=prefix, **settings)


CALL = {"name": "render", "arguments": {"title": "Q3"}}
QUESTION = {"method": "elicitation/create", "params": {"message": "How many copies?"}}


async def _new_task(engine: TaskEngine, dialogue: str | None = None) -> TaskRecord:
    """A task as go_async() creates it, its first leg queued."""
    return await engine.create(dialogue=dialogue, principal=None, message=None, call=CALL, state="")


async def test_an_answer_through_one_store_wakes_a_waiter_and_queues_the_next_leg(
    redis_client: Redis,
) -> None:
    """The leg's worker parks the task on a question through one store; the answer comes
    through another, wakes whoever waits on the task, and queues the next leg, which any
    worker claims with the answer to replay."""
    prefix = f"test:{secrets.token_hex(4)}:"
    body = TaskEngine.of(_store(redis_client, prefix))
    other = TaskEngine.of(_store(redis_client, prefix))
    record = await _new_task(body, "d")
    assert await body.claim(record.task_id, 1, "first") is not None
    assert await body.wait_for_answers(record.task_id, "first", {"q": QUESTION}, "s", {})
    found = await other.get(record.task_id, None)
    assert found is not None
    assert (found.wire_status, list(found.questions)) == ("input_required", ["q"])
    woke = anyio.Event()

    async def waiting() -> None:
        await body.store.wait(record.task_id, 60)  # only the answer ends it in time
        woke.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(waiting)
            answered, completed = await other.answer(
                record.task_id, None, {"q": {"action": "accept"}, "z": {}}
            )
            await woke.wait()
    assert completed
    assert answered is not None
    assert (answered.questions, answered.answers) == ({}, {"q": {"action": "accept"}})
    assert (answered.leg, answered.wants_leg) == (2, True)
    next_leg = await body.claim(record.task_id, 2, "second")
    assert next_leg is not None
    assert (next_leg.answers, next_leg.state) == ({"q": {"action": "accept"}}, "s")
    # One dialogue, one task, whichever worker asks.
    again = await _new_task(other, "d")
    assert again.task_id == record.task_id


async def test_a_cancel_through_one_store_reaches_the_leg_on_another(redis_client: Redis) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    # A 30 s lease is renewed every 10 s: only the task's channel wakes the holder in time.
    body = TaskEngine.of(_store(redis_client, prefix, lease=30.0))
    other = TaskEngine.of(_store(redis_client, prefix))
    record = await _new_task(body)
    assert await body.claim(record.task_id, 1, "first") is not None
    scope = anyio.CancelScope()
    why: list[str] = []

    async def hold() -> None:
        why.append(await body.hold(record.task_id, "first", scope))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(hold)
            await anyio.wait_all_tasks_blocked()  # the holder waits on the task's channel
            asked = await other.cancel(record.task_id, None)
    assert asked is not None
    assert (asked.cancel, asked.status) == (True, "working")  # the leg's worker ends it
    assert (why, scope.cancel_called) == (["cancel"], True)
    assert await body.finish(record.task_id, "first", cancelled=True)
    ended = await other.get(record.task_id, None)
    assert ended is not None
    assert ended.status == "cancelled"


async def test_records_expire_with_their_ttl(redis_client: Redis) -> None:
    # A second: a generous bound for the read that follows the creation.
    engine = TaskEngine.of(_store(redis_client, f"test:{secrets.token_hex(4)}:", ttl=1.0))
    record = await _new_task(engine)
    assert await engine.get(record.task_id, None) is not None
    await elapse_on_redis(redis_client, 1.01)  # Redis expires the record, by its own clock
    assert await engine.get(record.task_id, None) is None


async def test_a_redis_that_lost_its_scripts_still_creates_and_reads_tasks(
    redis_client: Redis,
) -> None:
    # As RedisStore's (tests/test_stores.py), the scripts go by digest (EVALSHA); a Redis
    # without them (restarted, SCRIPT FLUSH) answers NOSCRIPT, and the text follows once.
    store = _store(redis_client, f"test:{secrets.token_hex(4)}:")

    def fresh() -> TaskRecord:
        now = time.time()
        return TaskRecord(
            task_id=secrets.token_urlsafe(16),
            status="working",
            created_at=now,
            updated_at=now,
            ttl_ms=60_000,
            poll_ms=1000,
            lease_until=now + 10,
        )

    await redis_client.script_flush()
    first = fresh()
    assert await store.create(first, dialogue="d") == first
    assert await store.get(first.task_id) == first
    # Once it knows them again, the digests are enough.
    stats = await redis_client.info("commandstats")
    evals = stats["cmdstat_eval"]["calls"]
    second = fresh()
    assert await store.create(second, dialogue="e") == second
    assert await store.get(second.task_id) == second
    stats = await redis_client.info("commandstats")
    assert stats["cmdstat_eval"]["calls"] == evals


@pytest.fixture(scope="module", params=SDKS)
def workers(request: pytest.FixtureRequest, redis_url: str) -> Iterator[list[tuple[str, Any]]]:
    """Two worker processes of one SDK sharing Redis, per module (each start costs seconds).

    The last test using them kills the first worker.
    """
    with two_workers(redis_url, str(request.param)) as started:
        yield started


@contextmanager
def two_workers(
    redis_url: str, sdk: str, *, from_environment: bool = False
) -> Iterator[list[tuple[str, Any]]]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {
        **os.environ,
        "PYTHONPATH": path,
        "MCP_REQUEST_STATE_KEY": "k" * 48,
        "ELICITKIT_REDIS_URL": redis_url,
        "TASKS_PREFIX": f"test:{secrets.token_hex(4)}:",
    }
    if from_environment:
        env["TASKS_FROM_ENVIRONMENT"] = "1"
    with ExitStack() as stack:
        workers = []
        for port in (free_port(), free_port()):
            process = stack.enter_context(
                listening([sys.executable, str(WORKER), str(port), sdk], port, env=env)
            )
            workers.append((f"http://127.0.0.1:{port}/mcp", process))
        yield workers


def _client(url: str) -> Client:
    return Client(url, elicitation_callback=never_called, extensions=[TasksExtension()])


async def _start(client: Client, seconds: float) -> str:
    arguments = {"title": "Q3", "seconds": seconds}
    first = await client.session.call_tool(
        "render", arguments, allow_input_required=True, allow_claimed=True
    )
    key, _, state = only_question(first)
    created = await client.session.call_tool(
        "render",
        arguments,
        input_responses={key: accept(name="Ada")},
        request_state=state,
        allow_input_required=True,
        allow_claimed=True,
    )
    assert isinstance(created, CreatedTask), created
    return created.task_id


async def _until(client: Client, task_id: str, *statuses: str) -> dict[str, Any]:
    """`until` through a worker process: a longer wait, a slower poll."""
    return await until(client, task_id, *statuses, within=10, every=0.05)


async def test_the_variables_alone_share_tasks_between_workers(redis_url: str) -> None:
    # docs/http.md's fleet: MCP_REQUEST_STATE_KEY and ELICITKIT_REDIS_URL, no tasks= in code.
    # The variable used to give the outcomes a Redis store but keep tasks in each process,
    # so tasks/get on the other worker answered "task not found".
    with two_workers(redis_url, "mcp", from_environment=True) as workers:
        await _one_task_across(workers)


async def test_two_workers_serve_one_task(workers: list[tuple[str, Any]]) -> None:
    await _one_task_across(workers)


async def _one_task_across(workers: list[tuple[str, Any]]) -> None:
    """Start a task on the first worker; answer and finish it through the second."""
    (one, first_worker), (two, second_worker) = workers
    async with _client(one) as first, _client(two) as second:
        task_id = await _start(first, 0.2)
        asking = await _until(second, task_id, "input_required")
        assert list(asking["inputRequests"]) == ["copies"]
        await update_task(second, task_id, {"copies": accept(copies=2).model_dump()})
        done = await _until(second, task_id, "completed")
    text = done["result"]["content"][0]["text"]
    # The last leg ran where the answer was queued (the second worker), or, on a Docket
    # both share, on either.
    assert text in {
        f"Q3 for Ada: 2 copies, by worker {worker.pid}." for worker in (first_worker, second_worker)
    }


async def test_a_cancel_sent_to_the_other_worker_cancels_the_task(
    workers: list[tuple[str, Any]],
) -> None:
    (one, _), (two, _) = workers
    async with _client(one) as first, _client(two) as second:
        task_id = await _start(first, 60.0)
        await cancel_task(second, task_id)
        ended = await _until(second, task_id, "cancelled", "completed", "failed")
    assert ended["status"] == "cancelled"


async def test_a_task_outlives_the_worker_it_was_started_on(
    workers: list[tuple[str, Any]],
) -> None:
    """Kills the first worker: the module's last test (tests/test_task_legs_fleet.py kills
    a worker in the middle of a leg)."""
    (one, first_worker), (two, second_worker) = workers
    async with _client(two) as second:
        async with _client(one) as first:
            task_id = await _start(first, 0.1)
            await _until(second, task_id, "input_required")
        first_worker.send_signal(signal.SIGKILL)
        first_worker.wait()
        await update_task(second, task_id, {"copies": accept(copies=3).model_dump()})
        done = await _until(second, task_id, "completed", "failed", "cancelled")
    assert done["status"] == "completed", done
    assert done["result"]["content"][0]["text"] == (
        f"Q3 for Ada: 3 copies, by worker {second_worker.pid}."
    )


@pytest.fixture
async def dead_redis() -> AsyncIterator[Redis]:
    """A client of a Redis that is not there (a port nothing listens on)."""
    client = Redis.from_url(f"redis://127.0.0.1:{free_port()}", socket_connect_timeout=0.2)
    yield client
    await client.aclose()


async def test_a_task_store_that_is_down_fails_the_call_closed(dead_redis: Redis) -> None:
    counts = Counts()
    server = build("mcp", counts, tasks=RedisTaskStore(dead_redis, timeout=0.5))
    async with Client(
        in_memory(server), elicitation_callback=never_called, extensions=[TasksExtension()]
    ) as client:
        first = await client.session.call_tool(
            "render", {"title": "Q3"}, allow_input_required=True, allow_claimed=True
        )
        key, _, state = only_question(first)
        refused = await client.session.call_tool(
            "render",
            {"title": "Q3"},
            input_responses={key: accept(name="Ada")},
            request_state=state,
            allow_input_required=True,
            allow_claimed=True,
        )
        with pytest.raises(MCPError) as unknown:
            await get_task(client, "some-task")
    assert refused.is_error  # type: ignore[union-attr]
    assert refused.content[0].text == (  # type: ignore[union-attr]
        "Error executing tool render: The tool could not go on as a task: the server's task "
        "store failed (see its log), so nothing after go_async() ran. Call the tool again in "
        "a little while."
    )
    assert counts.after_go_async == 0
    assert unknown.value.error.code == -32603
    assert unknown.value.error.message == (
        "tasks/get failed: the server's task store did not answer, so the task's state is "
        "unknown right now. Send the request again in a little while."
    )
