"""`SqliteTaskStore`: task records in an SQLite file, shared by every process on one machine.

The tasks of ``go_async()`` next to the dialogue records of `SqliteStore`, in the same file
by default, so ``tasks/get`` on any worker of ``uvicorn --workers 4`` finds a task another
one started: the one task store (`elicitkit._replay.tasks.RecordTaskStore`) over the SQLite
record backend (`elicitkit._replay.sqlite_records`), whose leases are on the machine's time
since boot, shared by every process on it.

**Bounded, never evicting a running task.** At most ``max_tasks`` records: past that, the
oldest ended task is deleted to make room, and a store full of unfinished tasks refuses new
ones (`StoreFull`). At most ``max_per_caller`` unfinished tasks (waiting ones included: they
hold no worker, but go on when answered) per caller (a principal; anonymous callers share
one): past that, that caller is refused (`CallerFull`) and the others go on. Records expire
``ttl_ms`` after their creation.

**Waiting.** A change made by this process wakes its waiters at once; one made by another
process within about ``notice`` seconds (the backend's one poller).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from elicitkit._replay.sqlite_records import SqliteRecords
from elicitkit._replay.tasks import DEFAULT_MAX_PER_CALLER, RecordTaskStore, check_limits


class SqliteTaskStore(RecordTaskStore):
    """An `elicitkit.stores.TaskStore` in one SQLite file, for every process on a machine.

    Attributes:
        path: The database file.
        ttl: Seconds a task's record lives from its creation (``None``: unlimited).
        lease: Seconds a worker holds a running task without renewing it: how soon a dead
            worker's leg is started again.
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
        self.path = Path(path)
        self.backend = SqliteRecords(
            self.path,
            "task",
            max_entries=max_tasks,
            max_per_caller=max_per_caller,
            notice=notice,
            busy_timeout=busy_timeout,
            synchronous=synchronous,
        )
        super().__init__(
            self.backend,
            name=f"SQLite task store at {self.path}",
            ttl=ttl,
            lease=lease,
            poll=poll,
        )

    def __repr__(self) -> str:
        return f"SqliteTaskStore({str(self.path)!r})"

    def close(self) -> None:
        """Close this process's connection (the next operation opens it again)."""
        self.backend.close()
