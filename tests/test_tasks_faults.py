"""Task leases against faults: skewed clocks, a store restarted empty or paused, races.

A task's work runs in legs, each claimed by one worker under a lease; a leg whose lease
lapsed is orphaned (not failed) and claimed again by a live worker. Leases of a
`RedisTaskStore` are timed by Redis (a lease key with a ``PX`` time to live), never by a
worker's clock. The process tests run two official-SDK workers
(tests/servers/tasks_worker.py, one-second lease) on a real redis-server; a worker's clock
is set off with ``TEST_CLOCK_OFFSET``, the way a misconfigured host would. The body counts
its legs' starts and ends, and lists which worker ran each, in the session's other Redis,
which no test disturbs. Official SDK workers only: the faults are the store's, and
tests/test_tasks_redis.py runs both SDKs.
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
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from redis import Redis as SyncRedis
from redis.asyncio import Redis

from elicitkit._replay import tasks as task_records
from elicitkit._replay.once import FORGOTTEN
from elicitkit._replay.redis_tasks import RedisTaskStore
from elicitkit._replay.tasks import TaskRecord
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
STORE_TIMEOUT = 2.0  # real seconds: a loaded 2-core machine must still get its answers in time
NOT_FOUND = (
    "tasks/get failed: task not found (it never existed, has expired, was lost by the "
    "server's task store, or belongs to another caller)."
)
STORE_DOWN = (
    "tasks/get failed: the server's task store did not answer, so the task's state is "
    "unknown right now. Send the request again in a little while."
)
CALL = {"name": "t", "arguments": {}}
QUESTION = {"method": "elicitation/create", "params": {"message": "How many copies?"}}


# -- In one process, on the session's redis-server -------------------------------------


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


class Interleaved(RedisTaskStore):
    """A `RedisTaskStore` that lets another worker in between a change's read and write.

    Once ``between`` is set, the next edit of a change (after its read, before its
    compare-and-set write) runs it first, once: what it does lands in that gap. Each edit
    notes the runner it saw (``seen``): a change redone on a fresh record edits it again.
    """

    def __init__(self, client: Redis, prefix: str, lease: float) -> None:
        super().__init__(client, prefix=prefix, lease=lease)
        self.between: Callable[[], None] | None = None
        self.seen: list[str | None] = []

    async def change(
        self, task_id: str, edit: Callable[[TaskRecord], bool], *, lease: float | None = None
    ) -> TaskRecord | None:
        def interleaved(record: TaskRecord) -> bool:
            self.seen.append(record.runner)
            between, self.between = self.between, None
            if between is not None:
                between()
            return edit(record)

        return await super().change(task_id, interleaved, lease=lease)


def _engine(client: Redis, prefix: str, lease: float = 60) -> TaskEngine:
    """An engine of one worker; its claims hold a minute: no test races a lease it holds."""
    return TaskEngine.of(RedisTaskStore(client, prefix=prefix, lease=lease))


async def _lapse(client: Redis, engine: TaskEngine, task_id: str) -> None:
    """Let the leg's lease lapse by Redis's clock: a last renewal for 50 ms, and a wait."""
    assert await _leasing(engine).renew(task_id, 0.05) is not None
    await elapse_on_redis(client, 0.06)


async def _claimed(engine: TaskEngine, runner: str = "first") -> TaskRecord:
    """A task as go_async() creates it, its first leg claimed by worker ``runner``."""
    record = await engine.create(dialogue=None, principal=None, message=None, call=CALL, state="")
    claimed = await engine.claim(record.task_id, 1, runner)
    assert claimed is not None
    return claimed


def _leasing(engine: TaskEngine) -> RedisTaskStore:
    store = engine.store
    assert isinstance(store, RedisTaskStore)
    return store


def in_thread(work: Callable[[], Any]) -> Any:
    """Run ``work()`` (a coroutine's maker) on a thread of its own: another worker, its own
    event loop and Redis connection. Returns its result; raises what it raised."""
    results: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(asyncio.run(work()))
        except BaseException as error:  # noqa: BLE001  (re-raised in the test's thread)
            errors.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return results[0]


async def test_a_lease_is_timed_by_redis_not_by_the_worker_clock(redis_client: Redis) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    record = await _claimed(engine)
    with FakeClock(start=time.time() + HOUR):  # this worker runs ahead
        found = await engine.get(record.task_id, None)
    assert found is not None
    assert (found.status, found.orphaned, found.leg_lost) == ("working", False, False)
    await _lapse(redis_client, engine, record.task_id)  # past the lease by Redis's clock
    with FakeClock(start=time.time() - HOUR):  # and now behind: nobody renewed it
        lost = await engine.get(record.task_id, None)
    assert lost is not None
    # Orphaned, not failed: the next request that sees it queues the leg again.
    assert (lost.status, lost.error, lost.runner) == ("working", None, "first")
    assert (lost.orphaned, lost.leg_lost) == (True, True)


async def test_a_renewal_keeps_the_lease_and_cannot_revive_a_lapsed_one(
    redis_client: Redis,
) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    store = _leasing(engine)
    record = await _claimed(engine)
    lease_key = prefix + "l:" + record.task_id
    renewed = await store.renew(record.task_id, 120)
    assert renewed is not None
    assert not renewed.orphaned
    assert await redis_client.pttl(lease_key) > 60_000  # past the claim's lease
    renewed = await store.renew(record.task_id, 0.05)
    assert renewed is not None
    assert (renewed.status, renewed.orphaned) == ("working", False)
    await elapse_on_redis(redis_client, 0.06)  # nobody renewed this one
    late = await store.renew(record.task_id, 0.2)
    assert late is not None
    assert (late.status, late.orphaned) == ("working", True)  # the leg's worker stops it
    assert await redis_client.exists(lease_key) == 0
    assert await store.renew("no-such-task", 0.2) is None


async def test_a_leg_finishing_after_another_worker_claimed_it_records_nothing(
    redis_client: Redis, redis_url: str
) -> None:
    """Another worker orphans and claims the leg between the first's read and write: the
    first's end is redone on the fresh record, which is no longer its leg, and refused."""
    prefix = f"test:{secrets.token_hex(4)}:"

    def claim_elsewhere() -> None:
        async def claim() -> None:
            client = Redis.from_url(redis_url)
            try:
                other = _engine(client, prefix)
                found = await other.get(record.task_id, None)  # orphans it
                assert found is not None
                assert found.leg_lost
                assert await other.claim(record.task_id, 1, "second") is not None
            finally:
                await client.aclose()

        in_thread(claim)

    store = Interleaved(redis_client, prefix, 60)
    first = TaskEngine.of(store)
    record = await _claimed(first)
    await _lapse(redis_client, first, record.task_id)  # the lease lapses; nobody looked yet
    store.seen.clear()
    store.between = claim_elsewhere
    assert not await first.finish(record.task_id, "first", result={"content": []})
    assert store.seen == ["first", "second"]  # redone on the fresh record: another's leg
    after = await first.get(record.task_id, None)
    assert after is not None
    assert (after.status, after.result, after.runner, after.resumes) == (
        "working",
        None,
        "second",
        1,
    )
    assert await first.finish(record.task_id, "second", result={"content": []})


async def test_a_leg_finishing_while_its_lease_is_judged_lapsed_stands(
    redis_client: Redis, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leg's end lands between the judgement's read and write: the judgement yields."""
    prefix = f"test:{secrets.token_hex(4)}:"
    judge = _engine(redis_client, prefix)
    record = await _claimed(judge)
    await _lapse(redis_client, judge, record.task_id)  # the leg's worker stalled
    judged: list[bool] = []

    def end_now() -> None:
        async def finish() -> bool:
            client = Redis.from_url(redis_url)
            try:
                return await _engine(client, prefix).finish(
                    record.task_id, "first", result={"content": []}
                )
            finally:
                await client.aclose()

        assert in_thread(finish)  # the leg was still the stalled worker's: its end stands

    real = task_records.lose_worker

    def lose_worker(found: TaskRecord) -> bool:  # called after the read, before the write
        judged.append(found.terminal)
        if len(judged) == 1:
            end_now()
        return real(found)

    monkeypatch.setattr(task_records, "lose_worker", lose_worker)
    found = await judge.get(record.task_id, None)
    # Judged by this request, then by the finishing worker's own change (which judges a
    # lapsed lease first, then ends the leg it still runs); this request's write found the
    # record moved on, and was redone on the fresh, terminal record: no third judgement.
    assert judged == [False, False]
    assert found is not None
    assert (found.status, found.result, found.error) == ("completed", {"content": []}, None)
    assert not found.orphaned


async def test_a_task_that_completed_is_never_judged_lost(redis_client: Redis) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    record = await _claimed(engine)
    result = {"content": [{"type": "text", "text": "ok"}]}
    assert await engine.finish(record.task_id, "first", result=result)
    await _lapse(redis_client, engine, record.task_id)  # past the lease
    found = await engine.get(record.task_id, None)
    assert found is not None
    assert (found.status, found.error, found.orphaned) == ("completed", None, False)


async def test_a_waiting_task_is_never_orphaned_however_long_it_waits(
    redis_client: Redis,
) -> None:
    """Questions outstanding: no leg runs, no lease is held, and none lapses."""
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    record = await _claimed(engine)
    assert await engine.wait_for_answers(record.task_id, "first", {"n": QUESTION}, "s", {})
    await _lapse(redis_client, engine, record.task_id)  # the claim's lease, had it stayed
    for _ in range(5):  # a while, looked at through another worker's store each time
        await elapse_on_redis(redis_client, 0.2)
        waiting = await _engine(redis_client, prefix).get(record.task_id, None)
        assert waiting is not None
        assert (waiting.wire_status, waiting.orphaned, waiting.leg_lost) == (
            "input_required",
            False,
            False,
        )
        assert (waiting.runner, waiting.leg, waiting.resumes) == (None, 2, 0)
    assert await engine.claim(record.task_id, 2, "early") is None  # nobody runs it yet
    answered, completed = await engine.answer(record.task_id, None, {"n": {"action": "accept"}})
    assert completed
    assert answered is not None
    assert answered.wants_leg
    assert await redis_client.pttl(prefix + "l:" + record.task_id) > 0  # queued, leased
    next_leg = await engine.claim(record.task_id, 2, "next")
    assert next_leg is not None
    assert (next_leg.runner, next_leg.resumes, next_leg.answers) == (
        "next",
        0,
        {"n": {"action": "accept"}},
    )


async def test_of_two_workers_racing_to_claim_an_orphaned_leg_exactly_one_wins(
    redis_client: Redis, redis_url: str
) -> None:
    """Both read the orphaned leg (WATCH) before either writes: one EXEC lands, with the
    lease in its transaction; the other is redone on the fresh record and refused."""
    prefix = f"test:{secrets.token_hex(4)}:"
    dead = _engine(redis_client, prefix)
    record = await _claimed(dead, "dead")
    await _lapse(redis_client, dead, record.task_id)
    orphaned = await dead.get(record.task_id, None)
    assert orphaned is not None
    assert orphaned.leg_lost
    both_read = threading.Barrier(2, timeout=10)

    def worker(token: str) -> Callable[[], Any]:
        async def claim() -> tuple[TaskRecord | None, list[str | None]]:
            client = Redis.from_url(redis_url)
            try:
                store = Interleaved(client, prefix, 60)
                store.between = both_read.wait
                return await TaskEngine.of(store).claim(record.task_id, 1, token), store.seen
            finally:
                await client.aclose()

        return claim

    outcomes: dict[str, tuple[TaskRecord | None, list[str | None]]] = {}

    def race(token: str) -> None:
        outcomes[token] = in_thread(worker(token))

    threads = [threading.Thread(target=race, args=(token,)) for token in ("one", "two")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [token for token, (claimed, _) in outcomes.items() if claimed is not None]
    assert len(winners) == 1, outcomes
    (winner,) = winners
    loser = "two" if winner == "one" else "one"
    assert outcomes[winner][1] == ["dead"]  # its one read saw the dead worker's leg
    assert outcomes[loser][1] == ["dead", winner]  # redone: the winner's now
    found = await dead.get(record.task_id, None)
    assert found is not None
    assert (found.runner, found.resumes, found.orphaned) == (winner, 1, False)
    assert 0 < await redis_client.pttl(prefix + "l:" + record.task_id) <= 60_000


async def test_a_claim_alone_resumes_a_leg_whose_lease_lapsed_unseen(
    redis_client: Redis,
) -> None:
    """Docket delivers a dead worker's leg again with nobody having looked at the task: the
    claim judges the lease itself. Before, it found the leg held by the dead worker and
    refused it, so the task waited for a request to come and orphan it."""
    prefix = f"test:{secrets.token_hex(4)}:"
    dead = _engine(redis_client, prefix)
    record = await _claimed(dead, "dead")
    assert await _engine(redis_client, prefix).claim(record.task_id, 1, "live") is None
    await _lapse(redis_client, dead, record.task_id)  # its worker died; no request looked
    resumed = await _engine(redis_client, prefix).claim(record.task_id, 1, "live")
    assert resumed is not None
    assert (resumed.runner, resumed.resumes, resumed.orphaned) == ("live", 1, False)
    assert await redis_client.pttl(prefix + "l:" + record.task_id) > 1000  # the live lease


@pytest.mark.xfail(
    strict=True,
    reason="A question's deadline is judged on the clock of whichever worker looks (and of "
    "the leg that reads the answer), not the store's: a worker ahead by more than the "
    "question's timeout times it out at once.",
)
async def test_a_worker_whose_clock_runs_ahead_does_not_time_out_a_question(
    redis_client: Redis,
) -> None:
    prefix = f"test:{secrets.token_hex(4)}:"
    engine = _engine(redis_client, prefix)
    record = await _claimed(engine)
    deadline = {"n": time.time() + 600}  # ask(timeout=600), by the leg's worker's clock
    assert await engine.wait_for_answers(record.task_id, "first", {"n": QUESTION}, "", deadline)
    with FakeClock(start=time.time() + HOUR):  # another worker, an hour ahead, polls
        found, due = await engine.look(record.task_id, None)
    assert found is not None
    assert (found.wire_status, due) == ("input_required", False)


async def test_the_leg_stops_when_it_was_orphaned(redis_client: Redis) -> None:
    """A worker that stalled past its lease finds its leg orphaned at its next renewal, and
    stops it; so it does once another worker has claimed the leg."""
    prefix = f"test:{secrets.token_hex(4)}:"
    first = _engine(redis_client, prefix)
    record = await _claimed(first)
    await _lapse(redis_client, first, record.task_id)  # it stalled (a long blocking call)
    other = _engine(redis_client, prefix)
    found = await other.get(record.task_id, None)
    assert found is not None
    assert (found.status, found.leg_lost) == ("working", True)
    scope = anyio.CancelScope()
    with anyio.fail_after(2):  # a hang guard: the first look finds it
        why = await first.hold(record.task_id, "first", scope)
    assert (why, scope.cancel_called) == ("taken", True)
    assert await other.claim(record.task_id, 1, "second") is not None
    scope = anyio.CancelScope()
    with anyio.fail_after(2):
        why = await first.hold(record.task_id, "first", scope)
    assert (why, scope.cancel_called) == ("taken", True)


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


def _runners(effects: SyncRedis, title: str) -> list[int]:
    """The pids of the workers that ran the task's legs, in order (one per leg started)."""
    return [int(pid) for pid in effects.lrange(f"effects:{title}:workers", 0, -1)]


@pytest.fixture
def effects(redis_url: str) -> Iterator[SyncRedis]:
    client = SyncRedis.from_url(redis_url)
    yield client
    client.close()


SKEW = 120.0
"""How far off each skewed worker's clock is: 120 leases ahead or behind, enough for a
worker judging leases by its own clock to lose every live leg, or keep a dead one's for two
minutes. Less than half a question's default timeout (600 s): a question's deadline is
still judged by the clocks of the workers (see the xfail above), and the two are 240 s
apart."""


@pytest.fixture(scope="module")
def skewed(redis_url: str) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """Worker 0 runs ahead, worker 1 behind. The last test kills one of them."""
    with workers(redis_url, redis_url, (SKEW, -SKEW)) as started:
        yield started


async def test_a_worker_whose_clock_runs_ahead_does_not_orphan_a_live_leg(
    skewed: list[tuple[str, subprocess.Popen[bytes]]], effects: SyncRedis
) -> None:
    """Before: the worker ahead saw every lease lapsed, and lost the task at once."""
    (ahead, ahead_worker), (behind, behind_worker) = skewed
    title = f"skew-live-{secrets.token_hex(4)}"
    async with _client(behind) as body, _client(ahead) as poller:
        task_id, _ = await _start(body, title, 2.5)
        # Polled through the worker ahead for the whole leg: 2.5 s, more than two leases.
        asking = await _until(poller, task_id, "input_required", "failed", "completed")
        assert asking["status"] == "input_required"
        assert len(_runners(effects, title)) == 1  # the leg ran once: never started again
        await update_task(poller, task_id, {"copies": accept(copies=2).model_dump()})
        done = await _until(poller, task_id, "completed", "failed")
    runners = _runners(effects, title)
    assert len(runners) == 2  # two legs: one asked the copies, one finished
    assert set(runners) <= {ahead_worker.pid, behind_worker.pid}
    assert done["result"]["content"][0]["text"] == (
        f"{title} for Ada: 2 copies, by worker {runners[-1]}."
    )


async def test_a_dead_workers_leg_is_orphaned_by_the_store_clock_and_run_by_the_other(
    skewed: list[tuple[str, subprocess.Popen[bytes]]], effects: SyncRedis
) -> None:
    """Before: a dead worker's renewals reached as far ahead as its clock, so its task stayed
    working that long. Whichever worker runs the leg (ahead or behind) is killed mid-leg:
    Redis's clock lapses its lease, and the live worker runs the leg again, within seconds.

    Kills a worker: the module's last test that uses them.
    """
    title = f"skew-dead-{secrets.token_hex(4)}"
    by_pid = {process.pid: (url, process) for url, process in skewed}
    async with _client(skewed[0][0]) as body:
        task_id, _ = await _start(body, title, 4.0)
        await _count(effects, f"effects:{title}:started", 1, within=5)
    (dead_pid,) = _runners(effects, title)
    (live_pid,) = set(by_pid) - {dead_pid}
    dead, (live, _) = by_pid[dead_pid][1], by_pid[live_pid]
    dead.send_signal(signal.SIGKILL)
    dead.wait()
    async with _client(live) as poller:

        async def resumed() -> bool:  # polled as a client does: a poll may queue the leg
            status = (await get_task(poller, task_id))["status"]
            assert status == "working"  # never failed
            return len(_runners(effects, title)) == 2

        # Its lease is one second; judged by its own clock, it would have held for SKEW.
        await eventually(resumed, within=5, every=0.05, what="the leg run again")
        assert _runners(effects, title) == [dead_pid, live_pid]
        asking = await _until(poller, task_id, "input_required", "failed", "completed")
        assert asking["status"] == "input_required"  # the name replayed, the copies asked
        await update_task(poller, task_id, {"copies": accept(copies=3).model_dump()})
        done = await _until(poller, task_id, "completed", "failed", "cancelled")
    assert done["result"]["content"][0]["text"] == (
        f"{title} for Ada: 3 copies, by worker {live_pid}."
    )
    assert _runners(effects, title) == [dead_pid, live_pid, live_pid]


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
            # The leg's worker finds the record gone at its next look (a third of a lease).
            await _count(effects, f"effects:{title}:stopped", 1, within=3)
            with pytest.raises(MCPError) as again:
                await _send(body, final)  # the resent final round
            with pytest.raises(MCPError) as elsewhere:
                await _send(other, final)
    assert (gone.value.error.code, gone.value.error.message) == (-32602, NOT_FOUND)
    assert (again.value.error.code, again.value.error.message) == (-32603, FORGOTTEN)
    assert (elsewhere.value.error.code, elsewhere.value.error.message) == (-32603, FORGOTTEN)
    assert effects.get(f"effects:{title}:started") == b"1"


async def test_a_paused_store_fails_tasks_get_in_bounded_time_and_the_leg_runs_again(
    store_redis: RedisProcess, redis_url: str, effects: SyncRedis
) -> None:
    """Redis stopped (SIGSTOP): a poll fails within the store's timeout; the leg's worker,
    unable to renew its lease, stops the leg within the lease; once Redis is back the leg,
    orphaned (not failed), runs again, once, and gets to its question."""
    title = f"pause-{secrets.token_hex(4)}"
    with workers(store_redis.url, redis_url, (0.0, 0.0)) as [(one, _), (two, _)]:
        async with _client(one) as body, _client(two) as other:
            task_id, _ = await _start(body, title, 4.0)
            await _count(effects, f"effects:{title}:started", 1, within=5)
            store_redis.pause()
            try:
                started = time.monotonic()
                with pytest.raises(MCPError) as down:
                    await get_task(other, task_id)
                took = time.monotonic() - started
                # The lease (1 s) ran out unrenewed: the leg stopped while Redis is still out.
                await _count(effects, f"effects:{title}:stopped", 1, within=3)
            finally:
                store_redis.resume()
            asking = await _until(
                other, task_id, "input_required", "failed", "completed", within=15
            )
    assert (down.value.error.code, down.value.error.message) == (-32603, STORE_DOWN)
    assert took < STORE_TIMEOUT + 1
    assert asking["status"] == "input_required"
    assert list(asking["inputRequests"]) == ["copies"]
    assert effects.get(f"effects:{title}:started") == b"2"  # the stopped leg, then its rerun
    assert effects.get(f"effects:{title}:stopped") == b"2"
