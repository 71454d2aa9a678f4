"""Task leases against faults: skewed clocks, a store restarted empty or paused, races.

Leases of a `RedisTaskStore` are timed by Redis (a lease key with a ``PX`` time to live),
never by a worker's clock. The process tests run two official-SDK workers
(tests/servers/tasks_worker.py, one-second lease) on a real redis-server; a worker's clock
is set off with ``TEST_CLOCK_OFFSET``, the way a misconfigured host would. The body counts
its starts and ends in the session's other Redis, which no test disturbs. Official SDK
workers only: the faults are the store's, and tests/test_tasks_redis.py runs both SDKs.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from elicitkit._replay import redis_tasks
from elicitkit._replay.once import FORGOTTEN
from elicitkit._replay.redis_tasks import RedisTaskStore
from elicitkit._replay.tasks import WORKER_LOST, TaskRecord
from elicitkit._runtime.tasks import TaskEngine
from elicitkit.testing import FakeClock
from elicitkit.testing._task_wire import CreatedTask, TasksExtension, get_task, update_task
from tests.loopback import free_port, listening
from tests.mrtr import accept, never_called, only_question
from tests.redis_clock import elapse_on_redis
from tests.redis_server import RedisProcess, RedisProcessFactory
from tests.test_tasks import until
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parent.parent
WORKER = ROOT / "tests" / "servers" / "tasks_worker.py"
HOUR = 3600.0
STORE_TIMEOUT = 1.0
NOT_FOUND = (
    "tasks/get failed: task not found (it never existed, has expired, was lost by the "
    "server's task store, or belongs to another caller)."
)
STORE_DOWN = (
    "tasks/get failed: the server's task store did not answer, so the task's state is "
    "unknown right now. Send the request again in a little while."
)


# -- In one process, on the session's redis-server -------------------------------------


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def _engine(client: Redis, prefix: str, lease: float = 0.2) -> TaskEngine:
    return TaskEngine.of(RedisTaskStore(client, prefix=prefix, lease=lease))


async def test_a_lease_is_timed_by_redis_not_by_the_worker_clock(redis_client: Redis) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    record = await engine.create(dialogue=None, principal=None, message=None)
    with FakeClock(start=time.time() + HOUR):  # this worker runs ahead
        found = await engine.get(record.task_id, None)
    assert found is not None
    assert found.status == "working"
    await elapse_on_redis(redis_client, 0.21)  # past the lease by Redis's clock
    with FakeClock(start=time.time() - HOUR):  # and now behind: nobody renewed it
        lost = await engine.get(record.task_id, None)
    assert lost is not None
    assert (lost.status, lost.error) == ("failed", {"code": -32603, "message": WORKER_LOST})


async def test_a_renewal_keeps_the_lease_and_cannot_revive_a_lapsed_one(
    redis_client: Redis,
) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    # A second: a generous bound for the renewal that follows (never a 100 ms race).
    engine = _engine(redis_client, prefix, lease=1.0)
    store = engine.store
    assert isinstance(store, RedisTaskStore)
    record = await engine.create(dialogue=None, principal=None, message=None)
    renewed = await store.renew(record.task_id, 60)
    assert renewed is not None
    await elapse_on_redis(redis_client, 1.05)  # past the first lease: the renewal's holds
    renewed = await store.renew(record.task_id, 0.05)
    assert renewed is not None
    assert renewed.status == "working"
    await elapse_on_redis(redis_client, 0.06)  # nobody renewed this one
    late = await store.renew(record.task_id, 0.2)
    assert late is not None
    assert late.status == "failed"
    assert await redis_client.exists(prefix + "l:" + record.task_id) == 0
    assert await store.renew("no-such-task", 0.2) is None


async def test_the_body_ending_after_its_task_was_failed_changes_nothing(
    redis_client: Redis, redis_url: str
) -> None:
    """The judgement lands between the body's WATCH and EXEC: the end is redone, refused."""
    prefix = f"test:{secrets.token_hex(4)}:"
    body = _engine(redis_client, prefix)
    record = await body.create(dialogue=None, principal=None, message=None)
    await elapse_on_redis(redis_client, 0.21)  # the lease lapses; nobody has looked yet
    judged: list[str] = []

    def judge_now() -> None:
        # Another worker (its own thread, loop and connection) polls the task meanwhile.
        async def poll() -> None:
            client = Redis.from_url(redis_url)
            try:
                found = await _engine(client, prefix).get(record.task_id, None)
                assert found is not None
                judged.append(found.status)
            finally:
                await client.aclose()

        thread = threading.Thread(target=lambda: asyncio.run(poll()))
        thread.start()
        thread.join()

    edits: list[str] = []

    def end(found: TaskRecord) -> bool:
        edits.append(found.status)
        if len(edits) == 1:
            judge_now()
        if found.terminal:
            return False
        found.status = "completed"
        found.result = {"content": []}
        return True

    after = await body.store.change(record.task_id, end)
    assert judged == ["failed"]
    assert edits == ["working", "failed"]  # redone on the fresh record, which is failed
    assert after is not None
    assert (after.status, after.result) == ("failed", None)
    later = await body.get(record.task_id, None)
    assert later is not None
    assert later.status == "failed"


async def test_the_body_ending_while_its_task_is_judged_lost_stands(
    redis_client: Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The body's end lands between the judgement's WATCH and EXEC: the judgement yields."""
    prefix = f"test:{secrets.token_hex(4)}:"
    judge = _engine(redis_client, prefix)
    record = await judge.create(dialogue=None, principal=None, message=None)
    await elapse_on_redis(redis_client, 0.21)  # the lease lapses (the body's worker stalled)
    judged: list[str] = []

    def end_now() -> None:
        async def finish() -> None:
            client = Redis.from_url(redis_url)
            try:
                await _engine(client, prefix).finish(record.task_id, result={"content": []})
            finally:
                await client.aclose()

        thread = threading.Thread(target=lambda: asyncio.run(finish()))
        thread.start()
        thread.join()

    real = redis_tasks.lose_worker

    def lose_worker(found: TaskRecord) -> None:  # called after WATCH, before MULTI
        judged.append(found.status)
        if len(judged) == 1:
            end_now()
        real(found)

    monkeypatch.setattr(redis_tasks, "lose_worker", lose_worker)
    found = await judge.get(record.task_id, None)
    assert judged == ["working"]  # judged once; redone on the fresh record, terminal
    assert found is not None
    assert (found.status, found.result, found.error) == ("completed", {"content": []}, None)


async def test_a_task_that_completed_is_never_judged_lost(redis_client: Redis) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    record = await engine.create(dialogue=None, principal=None, message=None)
    await engine.finish(record.task_id, result={"content": [{"type": "text", "text": "ok"}]})
    await elapse_on_redis(redis_client, 0.21)  # past the lease
    found = await engine.get(record.task_id, None)
    assert found is not None
    assert (found.status, found.error) == ("completed", None)


async def test_the_body_stops_when_its_task_was_judged_lost(redis_client: Redis) -> None:
    """A worker that stalled past its lease finds its task failed at its next renewal."""
    prefix = f"test:{secrets.token_hex(4)}:"
    body = _engine(redis_client, prefix)
    record = await body.create(dialogue=None, principal=None, message=None)
    await elapse_on_redis(redis_client, 0.21)  # the worker stalled (a long blocking call)
    other = await _engine(redis_client, prefix).get(record.task_id, None)
    assert other is not None
    assert other.status == "failed"
    scope = anyio.CancelScope()
    with anyio.fail_after(2):
        why = await body.hold(record.task_id, scope)
    assert (why, scope.cancel_called) == ("ended", True)


# -- Two worker processes --------------------------------------------------------------


@contextmanager
def workers(
    store_url: str, effects_url: str, offsets: tuple[float, float]
) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """Two official-SDK workers sharing ``store_url``; their clocks set off by ``offsets``."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    base = {
        **os.environ,
        "PYTHONPATH": path,
        "MCP_REQUEST_STATE_KEY": "k" * 48,
        "ELICITKIT_REDIS_URL": store_url,
        "EFFECTS_REDIS_URL": effects_url,
        "TASKS_PREFIX": f"test:{secrets.token_hex(4)}:",
        "TEST_STORE_TIMEOUT": str(STORE_TIMEOUT),
    }
    with ExitStack() as stack:
        started = []
        for offset in offsets:
            port = free_port()
            env = {**base, "TEST_CLOCK_OFFSET": str(offset)}
            command = [sys.executable, str(WORKER), str(port), "mcp"]
            process = stack.enter_context(listening(command, port, env=env))
            started.append((f"http://127.0.0.1:{port}/mcp", process))
        yield started


def _client(url: str) -> Client:
    return Client(url, elicitation_callback=never_called, extensions=[TasksExtension()])


async def _final_round(client: Client, title: str, seconds: float) -> dict[str, Any]:
    """The first round; returns the final round's arguments (the answer and the state)."""
    arguments = {"title": title, "seconds": seconds}
    first = await client.session.call_tool(
        "render", arguments, allow_input_required=True, allow_claimed=True
    )
    key, _, state = only_question(first)
    return {"arguments": arguments, "input_responses": {key: accept(name="Ada")}, "state": state}


async def _send(client: Client, final: dict[str, Any]) -> Any:
    return await client.session.call_tool(
        "render",
        final["arguments"],
        input_responses=final["input_responses"],
        request_state=final["state"],
        allow_input_required=True,
        allow_claimed=True,
    )


async def _start(client: Client, title: str, seconds: float) -> tuple[str, dict[str, Any]]:
    final = await _final_round(client, title, seconds)
    created = await _send(client, final)
    assert isinstance(created, CreatedTask), created
    return created.task_id, final


async def _until(client: Client, task_id: str, *statuses: str, within: float = 10) -> Any:
    """`until` through a worker process: a longer wait, a slower poll."""
    return await until(client, task_id, *statuses, within=within, every=0.05)


async def _count(effects: SyncRedis, name: str, value: int, within: float) -> None:
    async def counted() -> bool:  # another process's counter: nothing to wait on but it
        return effects.get(name) == str(value).encode()

    await eventually(counted, within=within, every=0.02, what=f"{name} == {value}")


@pytest.fixture
def effects(redis_url: str) -> Iterator[SyncRedis]:
    client = SyncRedis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture(scope="module")
def skewed(redis_url: str) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """Worker 0 runs an hour ahead, worker 1 an hour behind. The last test kills worker 0."""
    with workers(redis_url, redis_url, (HOUR, -HOUR)) as started:
        yield started


async def test_a_worker_whose_clock_runs_ahead_does_not_fail_a_live_task(
    skewed: list[tuple[str, subprocess.Popen[bytes]]],
) -> None:
    """Before: the worker an hour ahead saw every lease lapsed and failed the task at once."""
    (ahead, _), (behind, body_worker) = skewed
    async with _client(behind) as body, _client(ahead) as poller:
        task_id, _ = await _start(body, "skew-live", 2.5)
        # Polled through the worker ahead for 2.5 s, more than two leases.
        asking = await _until(poller, task_id, "input_required", "failed", "completed")
        assert asking["status"] == "input_required"
        await update_task(poller, task_id, {"copies": accept(copies=2).model_dump()})
        done = await _until(poller, task_id, "completed", "failed")
    assert done["result"]["content"][0]["text"] == (
        f"skew-live for Ada: 2 copies, by worker {body_worker.pid}."
    )


async def test_a_dead_worker_whose_clock_ran_ahead_is_found_within_seconds(
    skewed: list[tuple[str, subprocess.Popen[bytes]]],
) -> None:
    """Before: its renewals reached an hour ahead, so its task stayed working for an hour.

    Kills the worker ahead: the module's last test that uses it.
    """
    (ahead, body_worker), (behind, _) = skewed
    async with _client(behind) as poller:
        async with _client(ahead) as body:
            task_id, _ = await _start(body, "skew-dead", 60.0)
        assert (await get_task(poller, task_id))["status"] == "working"
        body_worker.send_signal(signal.SIGKILL)
        body_worker.wait()
        started = time.monotonic()
        ended = await _until(poller, task_id, "failed", "completed", "cancelled", within=5)
        took = time.monotonic() - started
    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": WORKER_LOST}
    assert took < 3  # the lease is one second


@pytest.fixture
def store_redis(redis_process: RedisProcessFactory) -> Iterator[RedisProcess]:
    with redis_process() as server:
        yield server


async def test_a_store_restarted_empty_stops_the_task_and_runs_nothing_twice(
    store_redis: RedisProcess, redis_url: str, effects: SyncRedis
) -> None:
    title = f"restart-{secrets.token_hex(4)}"
    with workers(store_redis.url, redis_url, (0.0, 0.0)) as [(one, _), (two, _)]:
        async with _client(one) as body, _client(two) as other:
            task_id, final = await _start(body, title, 60.0)
            await _count(effects, f"effects:{title}:started", 1, within=5)
            store_redis.restart()
            with pytest.raises(MCPError) as gone:
                await get_task(other, task_id)
            # The body's worker finds the record gone at its next look (a third of a lease).
            await _count(effects, f"effects:{title}:stopped", 1, within=3)
            with pytest.raises(MCPError) as again:
                await _send(body, final)  # the resent final round
            with pytest.raises(MCPError) as elsewhere:
                await _send(other, final)
    assert (gone.value.error.code, gone.value.error.message) == (-32602, NOT_FOUND)
    assert (again.value.error.code, again.value.error.message) == (-32603, FORGOTTEN)
    assert (elsewhere.value.error.code, elsewhere.value.error.message) == (-32603, FORGOTTEN)
    assert effects.get(f"effects:{title}:started") == b"1"


async def test_a_paused_store_fails_tasks_get_in_bounded_time_and_stops_the_body(
    store_redis: RedisProcess, redis_url: str, effects: SyncRedis
) -> None:
    """Redis stopped (SIGSTOP): a poll fails within the store's timeout; the body's worker,
    unable to renew its lease, stops the body within the lease; the task ends failed."""
    title = f"pause-{secrets.token_hex(4)}"
    with workers(store_redis.url, redis_url, (0.0, 0.0)) as [(one, _), (two, _)]:
        async with _client(one) as body, _client(two) as other:
            task_id, _ = await _start(body, title, 60.0)
            await _count(effects, f"effects:{title}:started", 1, within=5)
            store_redis.pause()
            try:
                started = time.monotonic()
                with pytest.raises(MCPError) as down:
                    await get_task(other, task_id)
                took = time.monotonic() - started
                # The lease (1 s) ran out unrenewed: the body stopped while Redis is still out.
                await _count(effects, f"effects:{title}:stopped", 1, within=3)
            finally:
                store_redis.resume()
            ended = await _until(other, task_id, "failed", "completed", "cancelled", within=5)
    assert (down.value.error.code, down.value.error.message) == (-32603, STORE_DOWN)
    assert took < STORE_TIMEOUT + 1
    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": WORKER_LOST}
    assert effects.get(f"effects:{title}:started") == b"1"
