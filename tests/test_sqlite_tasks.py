"""`SqliteTaskStore`: task records in a real SQLite file, two stores standing for two processes.

Each store holds its own connection to the one file, so what one writes the other must read
from the file; a waiter in one is woken by a change made through the other (the poller).
Leases are judged by the store on the machine clock (a fake clock here), and a lease of
another boot of the machine has lapsed: the running leg is orphaned, for another worker to
claim (a claim is one transaction with its lease, so two workers never both win it), and a
task waiting for answers holds no lease to lapse. End to end, with real worker processes
and no configuration, in tests/test_records_default.py.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

import elicitkit._clock as clock
from elicitkit._replay import sqlite_records
from elicitkit._replay.tasks import WORKER_LOST, TaskRecord
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit.stores import SqliteTaskStore, StoreFull
from elicitkit.testing import FakeClock

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_clock() -> Iterator[FakeClock]:
    with FakeClock() as clock:
        yield clock


CALL = {"name": "t", "arguments": {}}
QUESTION = {"method": "elicitation/create", "params": {"message": "How many copies?"}}


def fresh(status: str = "working") -> TaskRecord:
    """A task as go_async() creates it: its first leg queued, to replay ``call``."""
    now = clock.now()
    return TaskRecord(
        secrets.token_hex(8),
        status,  # type: ignore[arg-type]
        now,
        now,
        3_600_000,
        50,
        call=dict(CALL),
        state="",
        leg=1,
    )


def one_body() -> TaskRecord:
    """A task of the kind that ran as one body (no legs to replay), as older records are."""
    now = clock.now()
    return TaskRecord(secrets.token_hex(8), "working", now, now, 3_600_000, 50)


async def new_task(engine: TaskEngine) -> TaskRecord:
    return await engine.create(dialogue=None, principal=None, message=None, call=CALL, state="")


def answer(record: TaskRecord) -> bool:
    record.answers["copies"] = {"action": "accept", "content": {"copies": 2}}
    return True


async def test_a_task_created_through_one_is_found_and_changed_through_the_other(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records.sqlite3"
    one, two = SqliteTaskStore(path), SqliteTaskStore(path)
    record = fresh()
    assert await one.create(record, dialogue="d") == record
    again = fresh()
    assert (await two.create(again, dialogue="d")).task_id == record.task_id  # one per dialogue
    assert await two.get(again.task_id) is None
    changed = await two.change(record.task_id, answer)
    assert changed is not None
    found = await one.get(record.task_id)
    assert found is not None
    assert found.answers == changed.answers
    assert await one.get("unknown") is None


async def test_a_change_through_the_other_wakes_a_waiter_at_once(tmp_path: Path) -> None:
    """The body waits on one store for an answer that arrives through the other."""
    path = tmp_path / "records.sqlite3"
    body, request = SqliteTaskStore(path, notice=0.01), SqliteTaskStore(path)
    record = fresh()
    await body.create(record, dialogue=None)
    read = await body.get(record.task_id)  # what the body last read
    assert read is not None
    woke = anyio.Event()

    async def wait() -> None:
        # On the fake clock: only a change ends it.
        await body.wait(record.task_id, 3600, version=read.version)
        woke.set()

    with anyio.fail_after(20):  # a hang guard only
        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await anyio.lowlevel.checkpoint()
            await request.change(record.task_id, answer)
            await woke.wait()


async def test_a_change_between_a_read_and_the_wait_is_not_missed(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite3"
    body, request = SqliteTaskStore(path), SqliteTaskStore(path)
    record = fresh()
    await body.create(record, dialogue=None)
    read = await body.get(record.task_id)
    assert read is not None
    await request.change(record.task_id, answer)  # lands before the body waits
    with anyio.fail_after(20):
        await body.wait(record.task_id, 3600, version=read.version)  # at once: it moved on


async def test_a_lapsed_lease_or_another_boot_orphans_the_leg_and_renew_keeps_it(
    tmp_path: Path, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "records.sqlite3"
    one, two = SqliteTaskStore(path, lease=10), SqliteTaskStore(path, lease=10)
    kept, lost, rebooted, old = fresh(), fresh(), fresh(), one_body()
    for record in (kept, lost, rebooted, old):
        await one.create(record, dialogue=None)
    fake_clock.jump(6)
    assert await one.renew(kept.task_id, 10) is not None
    fake_clock.jump(6)  # lost's lease (10 s) lapsed; kept's was renewed to 16 s
    orphaned = await two.get(lost.task_id)
    assert orphaned is not None
    # Not failed: the leg is started again by whoever sees it.
    assert (orphaned.status, orphaned.error, orphaned.leg_lost) == ("working", None, True)
    alive = await two.get(kept.task_id)
    assert alive is not None
    assert (alive.status, alive.orphaned) == ("working", False)
    # A renewal after the judgement does not take the leg back: its worker stops it.
    late = await one.renew(lost.task_id, 10)
    assert late is not None
    assert late.orphaned
    # A task of one body has nothing to start again: it fails, as it always did.
    failed = await two.get(old.task_id)
    assert failed is not None
    assert (failed.status, failed.error) == ("failed", {"code": -32603, "message": WORKER_LOST})
    monkeypatch.setattr(sqlite_records, "STAMP", "another-boot")  # the machine restarted
    renewed = await two.renew(rebooted.task_id, 10)
    assert renewed is not None
    assert (renewed.status, renewed.leg_lost) == ("working", True)


async def test_a_wall_clock_set_by_hours_neither_orphans_a_live_leg_nor_keeps_a_dead_one(
    tmp_path: Path, fake_clock: FakeClock
) -> None:
    """Leases are read on the time since boot. On the wall clock, as before, the live leg
    was orphaned (and started again beside its running worker) once the clock went forward
    half an hour, and the dead one stayed running for the hour it then went back."""
    path = tmp_path / "records.sqlite3"
    one, two = SqliteTaskStore(path, lease=10), SqliteTaskStore(path, lease=10)
    live, dead = fresh(), fresh()
    for record in (live, dead):
        await one.create(record, dialogue=None)
    fake_clock.skew(1_800)  # half of the records' hour: expiry follows the wall clock
    seen = await two.get(live.task_id)
    assert seen is not None
    assert (seen.status, seen.orphaned) == ("working", False)
    fake_clock.skew(-5_400)
    fake_clock.jump(6)
    assert await one.renew(live.task_id, 10) is not None
    fake_clock.jump(5)  # dead's lease (10 s) lapsed; live's was renewed to 16 s
    lapsed, alive = await two.get(dead.task_id), await two.get(live.task_id)
    assert lapsed is not None
    assert alive is not None
    assert (lapsed.leg_lost, alive.leg_lost, alive.orphaned) == (True, False, False)


async def test_a_waiting_task_is_never_orphaned_however_long_it_waits(
    tmp_path: Path, fake_clock: FakeClock
) -> None:
    path = tmp_path / "records.sqlite3"
    one = TaskEngine(SqliteTaskStore(path, lease=10), lease=10)
    two = TaskEngine(SqliteTaskStore(path, lease=10), lease=10)
    record = await new_task(one)
    assert await one.claim(record.task_id, 1, "first") is not None
    assert await one.wait_for_answers(record.task_id, "first", {"n": QUESTION}, "s", {})
    for _ in range(5):
        fake_clock.jump(600)  # a person thinking: ten minutes, five times
        waiting = await two.get(record.task_id, None)
        assert waiting is not None
        assert (waiting.wire_status, waiting.orphaned, waiting.leg_lost) == (
            "input_required",
            False,
            False,
        )
        assert (waiting.runner, waiting.leg, waiting.resumes) == (None, 2, 0)
    assert await two.claim(record.task_id, 2, "early") is None  # nobody runs it yet
    answered, completed = await two.answer(record.task_id, None, {"n": {"action": "accept"}})
    assert completed
    assert answered is not None
    assert answered.wants_leg
    fake_clock.jump(9.9)  # the answer queued the next leg under a fresh lease
    queued = await one.get(record.task_id, None)
    assert queued is not None
    assert not queued.leg_lost
    next_leg = await one.claim(record.task_id, 2, "next")
    assert next_leg is not None
    assert (next_leg.runner, next_leg.resumes) == ("next", 0)


class Interleaved(SqliteTaskStore):
    """A store whose next change, once ``between`` is set, runs it between its read and its
    write: what ``between`` does lands in that gap."""

    between: Callable[[], None] | None = None

    async def change(
        self, task_id: str, edit: Callable[[TaskRecord], bool], *, lease: float | None = None
    ) -> TaskRecord | None:
        def interleaved(record: TaskRecord) -> bool:
            between, self.between = self.between, None
            if between is not None:
                between()
            return edit(record)

        return await super().change(task_id, interleaved, lease=lease)


async def test_of_two_workers_racing_to_claim_an_orphaned_leg_exactly_one_wins(
    tmp_path: Path, fake_clock: FakeClock
) -> None:
    """One worker's claim has read the orphaned leg when the other, on its own thread and
    connection (as another process), claims it: the first claim's write finds the record
    moved on, is redone on the fresh one, and is refused. The winner's lease holds."""
    path = tmp_path / "records.sqlite3"
    first_store = Interleaved(path, lease=10)
    first = TaskEngine(first_store, lease=10)
    second = TaskEngine(SqliteTaskStore(path, lease=10), lease=10)
    record = await new_task(first)
    assert await first.claim(record.task_id, 1, "dead") is not None
    fake_clock.jump(10.1)
    orphaned = await second.get(record.task_id, None)
    assert orphaned is not None
    assert orphaned.leg_lost
    outcomes: list[TaskRecord | None] = []

    def other_worker() -> None:  # between the first claim's read and its write
        racer = threading.Thread(
            target=lambda: outcomes.append(asyncio.run(second.claim(record.task_id, 1, "two")))
        )
        racer.start()
        racer.join(10)
        assert not racer.is_alive()

    first_store.between = other_worker
    lost = await first.claim(record.task_id, 1, "one")
    assert lost is None
    assert len(outcomes) == 1
    assert outcomes[0] is not None
    found = await first.get(record.task_id, None)
    assert found is not None
    assert (found.runner, found.resumes, found.orphaned) == ("two", 1, False)
    # The winner's lease was written with its claim: held to its end, lapsed after.
    fake_clock.jump(9.9)
    held = await first.get(record.task_id, None)
    assert held is not None
    assert not held.leg_lost
    fake_clock.jump(0.2)
    lapsed = await first.get(record.task_id, None)
    assert lapsed is not None
    assert lapsed.leg_lost


async def test_a_full_store_refuses_new_tasks_and_makes_room_only_from_ended_ones(
    tmp_path: Path,
) -> None:
    store = SqliteTaskStore(tmp_path / "records.sqlite3", max_tasks=2)
    first, second = fresh(), fresh()
    await store.create(first, dialogue=None)
    await store.create(second, dialogue="s")
    with pytest.raises(StoreFull, match=r"holds 2 unfinished tasks.*Raise max_tasks"):
        await store.create(fresh(), dialogue=None)
    assert await store.get(first.task_id) is not None  # nobody's running task was dropped

    def end(record: TaskRecord) -> bool:
        record.status = "completed"
        return True

    await store.change(second.task_id, end)
    third = fresh()
    assert await store.create(third, dialogue=None) == third
    assert await store.get(second.task_id) is None  # the ended one made room
    assert await store.get(first.task_id) is not None


async def test_records_expire_with_their_ttl(tmp_path: Path, fake_clock: FakeClock) -> None:
    store = SqliteTaskStore(tmp_path / "records.sqlite3")
    record = fresh()
    record.ttl_ms = 1000
    await store.create(record, dialogue="d")
    fake_clock.jump(1.5)
    assert await store.get(record.task_id) is None
    again = fresh()
    assert await store.create(again, dialogue="d") == again  # expired: a new task
