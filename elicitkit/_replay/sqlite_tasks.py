"""`SqliteTaskStore`: task records in an SQLite file, shared by every process on one machine.

The tasks of ``go_async()`` next to the dialogue records of `SqliteStore`, in the same file
by default, so ``tasks/get`` on any worker of ``uvicorn --workers 4`` finds a task another
one started. One row a task::

    tasks(id, dialogue, record, terminal, lease_until, boot, seq, expires)
    task_callers(id, caller)    the unfinished tasks of each caller (triggers drop ended ones)

``record`` is the `TaskRecord` as JSON; ``seq`` is the file's change counter at the row's
last change (one more than the largest in the table), which is how a process sees another's
changes. Each operation is one transaction of the file (`elicitkit._replay.sqlite_file`).

It is a `LeasingTaskStore`: the store, not the worker, judges each running task's lease, on
the machine's clock (``elicitkit._clock.machine``, the time since boot, which every process
shares and a wall clock set by hours does not move), in the same transaction that reads the
record, so a task never goes ``completed`` after it was reported ``failed``. A lease written
during another boot of the machine has lapsed (its worker did not survive the reboot), and
so has one an earlier elicitkit wrote on the wall clock (`elicitkit._clock.MACHINE_STAMP`).

**Bounded, never evicting a running task.** At most ``max_tasks`` records: past that, the
oldest ended task is deleted to make room, and a store full of unfinished tasks refuses new
ones (`StoreFull`). At most ``max_per_caller`` unfinished tasks (waiting ones included: they
hold no worker, but go on when answered) per caller (a principal; anonymous callers share
one), counted on an index by caller: past that, that caller is refused (`CallerFull`) and
the others go on. Records expire ``ttl_ms`` after their creation.

**Waiting.** A change made by this process wakes its waiters at once. One made by another
process is seen by this process's one poller, which runs while anything waits: every
``notice`` seconds (real seconds: it is I/O, not the logic's time) it asks the index on
``seq`` for the rows changed since its last look, one query however many tasks wait, and
wakes their waiters; so an answer sent to another worker reaches the task's body within
about ``notice`` seconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import anyio

import elicitkit._clock as clock
from elicitkit._clock import MACHINE_STAMP as STAMP
from elicitkit._replay.sqlite_file import SqliteFile
from elicitkit._replay.store import StoreFull
from elicitkit._replay.tasks import (
    DEFAULT_MAX_PER_CALLER,
    TaskRecord,
    caller_full,
    caller_of,
    check_limits,
    lose_worker,
)


class SqliteTaskStore:
    """An `elicitkit.stores.TaskStore` in one SQLite file, for every process on a machine.

    Attributes:
        ttl: Seconds a task's record lives from its creation (``None``: unlimited).
        lease: Seconds a worker holds a running task without renewing it: how soon a dead
            worker's task is reported ``failed``.
        poll: Seconds suggested to clients between two polls.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_tasks: int = 10_000,
        max_per_caller: int = DEFAULT_MAX_PER_CALLER,
        ttl: float | None = 3600.0,
        lease: float = 10.0,
        poll: float = 1.0,
        notice: float = 0.05,
        busy_timeout: float = 2.0,
        synchronous: Literal["FULL", "NORMAL"] | None = None,
    ) -> None:
        """Keep task records in the file at ``path`` (`SqliteStore`'s file, say).

        Args:
            path: The database file; every process that serves the same clients passes it.
            max_tasks: How many records the store holds at most (see the module's docs).
            max_per_caller: How many unfinished tasks one caller holds at most.
            ttl: Seconds a record lives from its task's creation (``None``: unlimited).
            lease: Seconds the body's worker holds a running task without renewing it.
            poll: Seconds suggested to clients between two polls.
            notice: Seconds between two looks for another process's change (`wait`).
            busy_timeout: Seconds an operation waits for another process's write lock.
            synchronous: SQLite's ``synchronous`` (see `elicitkit._replay.sqlite_file`).
        """
        check_limits(max_tasks, max_per_caller, "SqliteTaskStore")
        self._max_per_caller = max_per_caller
        self.path = Path(path)
        self.ttl = ttl
        self.lease = lease
        self.poll = poll
        self._max = max_tasks
        self._notice = notice
        self._file = SqliteFile(self.path, busy_timeout=busy_timeout, synchronous=synchronous)
        self._changed: dict[str, anyio.Event] = {}
        # The seq of each task as this process last read it (one per task it serves), so a
        # waiter tells a change that landed between that read and its wait.
        self._seen: dict[str, int] = {}
        self._poller: asyncio.Task[None] | None = None
        self._cursor = 0

    def __repr__(self) -> str:
        return f"SqliteTaskStore({str(self.path)!r})"

    async def create(self, record: TaskRecord, *, dialogue: str | None) -> TaskRecord:
        """See `elicitkit.stores.TaskStore.create`."""

        def create(db: sqlite3.Connection) -> TaskRecord:
            now = clock.now()
            db.execute("DELETE FROM tasks WHERE expires <= ?", (now,))
            if dialogue is not None:
                found = db.execute(
                    "SELECT record FROM tasks WHERE dialogue = ?", (dialogue,)
                ).fetchone()
                if found is not None:
                    return TaskRecord.from_json(json.loads(found[0]))
            caller = caller_of(record)
            (held,) = db.execute(
                "SELECT count(*) FROM task_callers c JOIN tasks t ON t.id = c.id "
                "WHERE c.caller = ? AND t.terminal = 0",
                (caller,),
            ).fetchone()
            if held >= self._max_per_caller:
                raise caller_full(f"SQLite task store at {self.path}", self._max_per_caller)
            self._make_room(db)
            ends = record.expires_at()
            db.execute(
                "INSERT INTO tasks VALUES "
                "(?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM tasks), ?)",
                (
                    record.task_id,
                    dialogue,
                    _dumps(record),
                    int(record.terminal),
                    clock.machine() + self.lease,
                    STAMP,
                    ends,
                ),
            )
            if not record.terminal:
                db.execute("INSERT INTO task_callers VALUES (?, ?)", (record.task_id, caller))
            return record

        return await self._file.run(create)

    async def get(self, task_id: str) -> TaskRecord | None:
        """See `elicitkit.stores.TaskStore.get`: a task whose lease lapsed is ``failed``."""
        return await self._file.run(lambda db: self._read(db, task_id, renew=None))

    async def renew(self, task_id: str, seconds: float) -> TaskRecord | None:
        """See `elicitkit._replay.tasks.LeasingTaskStore.renew`."""
        return await self._file.run(lambda db: self._read(db, task_id, renew=seconds))

    async def change(
        self,
        task_id: str,
        edit: Callable[[TaskRecord], bool],
        *,
        wake: bool = True,
        lease: float | None = None,
    ) -> TaskRecord | None:
        """See `elicitkit.stores.TaskStore.change`."""

        def change(db: sqlite3.Connection) -> TaskRecord | None:
            record = self._read(db, task_id, renew=None)
            if record is None or not edit(record):
                return record
            now = clock.now()
            if wake:
                record.updated_at = now
            self._write(db, record, bump=wake)
            if lease is not None:
                db.execute(
                    "UPDATE tasks SET lease_until = ?, boot = ? WHERE id = ?",
                    (clock.machine() + lease, STAMP, task_id),
                )
            return record

        changed = await self._file.run(change)
        if wake:
            self._wake(task_id)
        return changed

    async def wait(self, task_id: str, seconds: float) -> None:
        """See `elicitkit.stores.TaskStore.wait`."""
        event = self._changed.get(task_id)
        if event is None:
            event = self._changed[task_id] = anyio.Event()
        # Registered first, then read: a change after the read is the poller's to see.
        rows = await self._file.read(
            "SELECT (SELECT seq FROM tasks WHERE id = ?), (SELECT max(seq) FROM tasks)", (task_id,)
        )
        ((now_seq, top),) = rows
        if now_seq != self._seen.get(task_id, now_seq):
            return  # changed by another process since this one last read it
        if self._poller is None or self._poller.done():
            self._cursor = max(self._cursor, int(top or 0))
            self._poller = asyncio.get_running_loop().create_task(self._poll())
        with clock.move_on_after(seconds):
            await event.wait()

    async def _poll(self) -> None:
        """Wake the waiters of rows another process changed, while anything waits."""
        while self._changed:
            await anyio.sleep(self._notice)
            try:
                changed = await self._file.read(
                    "SELECT id, seq FROM tasks WHERE seq > ?", (self._cursor,)
                )
            except sqlite3.Error:
                continue  # a busy or replaced file: the waits end by their own timeout
            for task_id, seq in changed:
                self._cursor = max(self._cursor, int(seq))
                self._wake(task_id)

    def close(self) -> None:
        """Close this process's connection (the next operation opens it again)."""
        self._file.close()

    def _read(
        self, db: sqlite3.Connection, task_id: str, *, renew: float | None
    ) -> TaskRecord | None:
        found = db.execute(
            "SELECT record, lease_until, boot, expires, seq FROM tasks WHERE id = ?", (task_id,)
        ).fetchone()
        now = clock.now()
        if found is None or (found[3] is not None and found[3] <= now):
            self._seen.pop(task_id, None)
            return None
        record = TaskRecord.from_json(json.loads(found[0]))
        self._seen[task_id] = int(found[4])
        lapsed = found[1] < clock.machine() or found[2] != STAMP
        if not record.terminal and lapsed:
            if lose_worker(record):
                record.updated_at = now
                self._write(db, record, bump=True)
                self._wake(task_id)
        elif renew is not None and not record.terminal:
            db.execute(
                "UPDATE tasks SET lease_until = ?, boot = ? WHERE id = ?",
                (clock.machine() + renew, STAMP, task_id),
            )
        return record

    def _write(self, db: sqlite3.Connection, record: TaskRecord, *, bump: bool) -> None:
        # A change others must see takes the next seq; a lease renewal keeps its own.
        db.execute(
            "UPDATE tasks SET record = ?, terminal = ?, seq = CASE WHEN ? THEN "
            "(SELECT coalesce(max(seq), 0) + 1 FROM tasks) ELSE seq END WHERE id = ?",
            (_dumps(record), int(record.terminal), int(bump), record.task_id),
        )
        # `_seen` stays the reader's: a waiter after this change (its own, even) finds the
        # row moved on since it last read it, and reads it again.
        if record.terminal:
            self._seen.pop(record.task_id, None)

    def _make_room(self, db: sqlite3.Connection) -> None:
        # Kept by triggers: a count(*) would read the whole table at every creation.
        (count,) = db.execute("SELECT tasks FROM task_totals").fetchone()
        if count < self._max:
            return
        ended = db.execute(
            "SELECT id FROM tasks WHERE terminal = 1 ORDER BY expires LIMIT 1"
        ).fetchone()
        if ended is None:
            raise StoreFull(
                f"The SQLite task store at {self.path} holds {count} unfinished tasks, its "
                "max_tasks, so it takes no new one until one ends or expires. Raise max_tasks."
            )
        db.execute("DELETE FROM tasks WHERE id = ?", (ended[0],))

    def _wake(self, task_id: str) -> None:
        event = self._changed.pop(task_id, None)
        if event is not None:
            event.set()


def _dumps(record: TaskRecord) -> str:
    data: dict[str, Any] = record.to_json()
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
