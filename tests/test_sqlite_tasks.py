"""`SqliteTaskStore`: task records in a real SQLite file, two stores standing for two processes.

Each store holds its own connection to the one file, so what one writes the other must read
from the file; a waiter in one is woken by a change made through the other (the poller).
Leases are judged by the store on elicitkit's wall clock (a fake clock here), and a lease of
another boot of the machine has lapsed. End to end, with real worker processes and no
configuration, in tests/test_records_default.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

import elicitkit._clock as clock
from elicitkit._replay import sqlite_tasks
from elicitkit._replay.tasks import WORKER_LOST, LeasingTaskStore, TaskRecord
from elicitkit.stores import SqliteTaskStore, StoreFull
from elicitkit.testing import FakeClock

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_clock() -> Iterator[FakeClock]:
    with FakeClock() as clock:
        yield clock


def fresh(status: str = "working") -> TaskRecord:
    now = clock.now()
    return TaskRecord(secrets.token_hex(8), status, now, now, 3_600_000, 50)  # type: ignore[arg-type]


def answer(record: TaskRecord) -> bool:
    record.answers["copies"] = {"action": "accept", "content": {"copies": 2}}
    return True


async def test_a_task_created_through_one_is_found_and_changed_through_the_other(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records.sqlite3"
    one, two = SqliteTaskStore(path), SqliteTaskStore(path)
    assert isinstance(one, LeasingTaskStore)
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
    await body.get(record.task_id)  # what the body last read
    woke = anyio.Event()

    async def wait() -> None:
        await body.wait(record.task_id, 3600)  # on the fake clock: only a change ends it
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
    await body.get(record.task_id)
    await request.change(record.task_id, answer)  # lands before the body waits
    with anyio.fail_after(20):
        await body.wait(record.task_id, 3600)  # returns at once: the row moved on


async def test_a_lapsed_lease_or_another_boot_fails_the_task_and_renew_keeps_it(
    tmp_path: Path, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "records.sqlite3"
    one, two = SqliteTaskStore(path, lease=10), SqliteTaskStore(path, lease=10)
    kept, lost, rebooted = fresh(), fresh(), fresh()
    for record in (kept, lost, rebooted):
        await one.create(record, dialogue=None)
    fake_clock.jump(6)
    assert await one.renew(kept.task_id, 10) is not None
    fake_clock.jump(6)  # lost's lease (10 s) lapsed; kept's was renewed to 16 s
    gone = await two.get(lost.task_id)
    assert gone is not None
    assert (gone.status, gone.error) == ("failed", {"code": -32603, "message": WORKER_LOST})
    alive = await two.get(kept.task_id)
    assert alive is not None
    assert alive.status == "working"
    # A change after the judgement sees the failed task: it never completes after that.
    assert (await one.change(lost.task_id, answer)) is not None
    after = await two.get(lost.task_id)
    assert after is not None
    assert after.status == "failed"
    monkeypatch.setattr(sqlite_tasks, "BOOT", "another-boot")  # the machine restarted
    renewed = await two.renew(rebooted.task_id, 10)
    assert renewed is not None
    assert renewed.status == "failed"


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
