"""Task records of the 2026-07-28 Tasks extension, and where they are kept: SDK-free.

A task is the rest of a tool call after ``go_async()``: its body runs in the background
on one worker while the client polls (``tasks/get``), answers (``tasks/update``) and
cancels (``tasks/cancel``) through any worker. So everything a request needs lives in the
record, in a `TaskStore` every worker shares, and nothing in the worker's memory:

* the status, with the result or the JSON-RPC error once terminal;
* the questions the body is waiting on (``questions``, the wire ``inputRequests``), and
  the answers that arrived for them but have not been taken by the body yet
  (``answers``): an answer moves a question out of ``questions`` at once, so the next
  ``tasks/get`` shows only what is still outstanding, whichever worker serves it;
* a cancellation request (``cancel``), which the running leg's worker acts on;
* what the next leg replays (``call``, ``state``, ``answers``): the task's work runs in
  legs, each a run of the tool from the top with the answers and step records so far
  (`elicitkit.integrations._task_legs`), so no worker holds a task while a person thinks;
* the running leg's lease, renewed by its worker: a lease that lapsed while a leg ran
  means the worker died, and the leg is *orphaned*: the next request that sees the task
  starts it again on a live worker (`lose_worker`). The store keeps the lease on its
  backend's clock (`elicitkit._replay.records`), so that no worker's clock decides whether
  another worker is alive (``lease_until`` in the record is informative only).

There is one task store, `RecordTaskStore`, over any record backend (memory, SQLite, Redis):
what a task's record means is written here once. It changes a record only through
`RecordTaskStore.change`, by compare-and-set (an edit that raced another write is redone on
the fresh record), and wakes whoever waits on it (`RecordTaskStore.wait`): the body's
worker waiting for an answer or a cancel. Records expire ``ttlMs`` after their creation
(the extension's ``ttlMs``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Literal, Protocol

import elicitkit._clock as clock
from elicitkit._lru import Lru
from elicitkit._replay.limits import check_limits as check_limits  # noqa: PLC0414  (re-exported to the task stores)
from elicitkit._replay.records import Entry, Full, MemoryRecords, Records
from elicitkit._replay.store import CallerFull, StoreFull
from elicitkit._replay.ticket import principal_digest

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier, in capabilities and in ``-32021`` errors."""

Status = Literal["working", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})

WORKER_LOST = (
    "The server process running this task stopped before the task finished (it crashed, "
    "was killed or lost its store), so what the task had done is unknown and it will not "
    "finish. Check the outcome, then call the tool again."
)
# JSON-RPC's "internal error": how a lost worker's task is reported.
INTERNAL_ERROR = -32603


@dataclass
class TaskRecord:
    """One task, as every worker sees it.

    Attributes:
        task_id: The task's id: 128 random bits, base64url (an unguessable bearer name).
        status: ``working`` until terminal; ``input_required`` is ``working`` with
            outstanding ``questions`` (see `wire_status`).
        created_at: When the task was created (seconds since the epoch).
        updated_at: When the record last changed.
        ttl_ms: The task's lifetime from creation, in milliseconds (``None``: unlimited).
        poll_ms: The polling interval suggested to the client, in milliseconds.
        principal: The authenticated caller the task belongs to (``None``: no auth).
        message: The status message shown with the task, if any.
        questions: The outstanding questions by key: ``{"method": ..., "params": ...}``.
        answers: Answers by key that arrived for questions and await the body.
        result: The tool's result (wire JSON), once ``completed``.
        error: The JSON-RPC error (code, message, data), once ``failed``.
        cancel: The client asked to cancel the task.
        lease_until: The running leg's worker holds the task until then (seconds since
            the epoch), renewed while the leg runs.
        call: The ``tools/call`` params the legs replay (name, arguments), or ``None`` for
            a record of a task that ran as one body (no legs).
        state: The ``requestState`` (plaintext) the next leg replays: the answers and
            durable steps so far, and the questions ``answers`` answer.
        leg: The number of the leg to run next, or running (1 for the first).
        runner: The token of the worker running the leg, or ``None`` while none does
            (the leg is queued, or the task waits for answers).
        orphaned: The running leg's lease lapsed (its worker died or stalled): the leg is
            started again by the next request that sees the task.
        resumes: How many times an orphaned leg was started again (bounded: a leg that
            kills its worker each time fails the task instead of looping).
        deadlines: When each outstanding question's answer is too late (seconds since the
            epoch), for questions asked with a timeout: past it, the next leg runs and the
            question times out there.
        version: The store's version of the record as it was read (never stored): what
            `TaskStore.wait` waits to change.
    """

    task_id: str
    status: Status
    created_at: float
    updated_at: float
    ttl_ms: int | None
    poll_ms: int
    principal: str | None = None
    message: str | None = None
    questions: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    answers: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    cancel: bool = False
    lease_until: float = 0.0
    call: dict[str, Any] | None = None
    state: str | None = None
    leg: int = 0
    runner: str | None = None
    orphaned: bool = False
    resumes: int = 0
    deadlines: dict[str, float] = field(default_factory=dict[str, float])
    version: int = field(default=0, compare=False)

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    @property
    def wants_leg(self) -> bool:
        """Whether a leg should run and none does: queued, or orphaned by a dead worker."""
        return (
            self.call is not None
            and not self.terminal
            and not self.questions
            and (self.runner is None or self.orphaned)
        )

    @property
    def leg_lost(self) -> bool:
        """Whether the leg that should run was orphaned: a request that sees it restarts it.

        Orphaned by a worker that died or stopped mid-leg, or by a queue that lost the leg
        with its process (its lease, granted when it was queued, lapsed unclaimed).
        """
        return self.wants_leg and self.orphaned

    @property
    def wire_status(self) -> str:
        """The status on the wire: ``input_required`` while questions are outstanding."""
        if self.status == "working" and self.questions:
            return "input_required"
        return self.status

    def expires_at(self) -> float | None:
        """When the record may be forgotten (seconds since the epoch), or ``None``."""
        return None if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-able data (for a store that keeps text).

        Shallow: the values are the record's own (``dataclasses.asdict`` would copy each
        nested dict, a quarter of a memory store's cost of a change, for text to be made).
        """
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TaskRecord:
        """Rebuild a record `to_json` wrote (fields a later version added are left out)."""
        return cls(**{name: data[name] for name in _FIELDS if name in data})


_FIELDS = tuple(field.name for field in fields(TaskRecord) if field.name != "version")


def iso(moment: float) -> str:
    """An ISO 8601 UTC timestamp with milliseconds, as the extension's fields take."""
    stamp = datetime.fromtimestamp(moment, tz=timezone.utc)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def wire_task(record: TaskRecord) -> dict[str, Any]:
    """The extension's ``Task`` fields of ``record`` (for ``CreateTaskResult``)."""
    task: dict[str, Any] = {
        "taskId": record.task_id,
        "status": record.wire_status,
        "createdAt": iso(record.created_at),
        "lastUpdatedAt": iso(record.updated_at),
        "ttlMs": record.ttl_ms,
        "pollIntervalMs": record.poll_ms,
    }
    if record.message is not None:
        task["statusMessage"] = record.message
    return task


def detailed_task(record: TaskRecord) -> dict[str, Any]:
    """The ``DetailedTask`` of ``record``, as ``tasks/get`` answers it."""
    task = wire_task(record)
    status = task["status"]
    if status == "input_required":
        task["inputRequests"] = dict(record.questions)
    elif status == "completed":
        task["result"] = record.result or {}
    elif status == "failed":
        task["error"] = record.error or {"code": INTERNAL_ERROR, "message": "Task failed."}
    return task


class TaskStore(Protocol):
    """Keeps task records, shared by every worker that serves the same clients.

    Every method is atomic for one task id. Records are forgotten after their ``ttl_ms``.
    Every call must end, returning or raising, within a bounded time of its own (`wait`:
    ``seconds`` at most): elicitkit bounds only the lease renewal of a running task, so a
    store that hangs would hang the ``tasks/*`` requests that reach it.

    The store keeps each running task's lease by its backend's clock (several workers'
    clocks disagree: one running ahead would judge a live worker's lease lapsed, one
    running behind would keep a dead worker's task ``working``):

    * `create` grants the new task's first lease, and `change` with ``lease`` a fresh one;
    * `get` (and so every request and the leg's worker) applies `lose_worker` to a task
      whose lease lapsed, and that is not terminal, atomically with respect to `change`:
      a task never goes ``completed`` after it was reported ``failed``, nor the reverse,
      and a leg orphaned is never claimed by two workers;
    * `renew` extends a lease that has not lapsed.
    """

    async def create(self, record: TaskRecord, *, dialogue: str | None) -> TaskRecord:
        """Store a new record; return it once a `get` by any worker finds it.

        Args:
            record: The new task.
            dialogue: The dialogue the task continues (2026-07-28 replay), if any. A
                dialogue has at most one task: if it has one already, that record is
                returned and ``record`` is dropped.
        """
        ...

    async def get(self, task_id: str) -> TaskRecord | None:
        """Return the record, or ``None`` if there is none (never created, or expired)."""
        ...

    async def change(
        self, task_id: str, edit: Callable[[TaskRecord], bool], *, lease: float | None = None
    ) -> TaskRecord | None:
        """Apply ``edit`` to the record atomically, and keep the result if it changed.

        ``edit`` mutates the record it is given and returns whether it changed anything;
        it may be called more than once (a store that retries on a concurrent write), so
        it must depend on the record alone. A change sets ``updated_at`` and wakes `wait`.
        With ``lease``, a change also grants the task a fresh lease of that many seconds
        (by the store's clock, in the same atomic step): how a worker claims a leg.
        Returns the record after the edit, or ``None`` if there is no record.
        """
        ...

    async def renew(self, task_id: str, seconds: float) -> TaskRecord | None:
        """Extend the task's lease to ``seconds`` from now, by the store's clock.

        Returns the record; a task whose lease had already lapsed is not renewed but
        given to `lose_worker`, so its worker stops the leg. ``None`` if there is no
        record.
        """
        ...

    async def wait(self, task_id: str, seconds: float, *, version: int | None = None) -> None:
        """Return when the record is no longer at ``version`` (``None``: as it is now).

        Returns after ``seconds`` at most.
        """
        ...


DEFAULT_MAX_PER_CALLER = 1_000
"""How many unfinished tasks one principal may hold in a task store, by default."""


def caller_of(record: TaskRecord) -> str:
    """Whose count ``record`` is in: a digest of its principal, ``""`` for anonymous callers.

    A digest: a principal may be long, and the stores keep it beside other records.
    """
    return principal_digest(record.principal) or ""


def caller_full(store: str, limit: int) -> CallerFull:
    """The refusal of a caller's task past ``limit`` (``store`` names the store)."""
    return CallerFull(
        f"The {store} holds {limit} unfinished tasks of this caller (a principal; every "
        "anonymous caller shares one count), its max_per_caller, so it takes no new task of "
        "theirs until one ends or expires; other callers' tasks go on. Raise max_per_caller."
    )


def lose_worker(record: TaskRecord) -> bool:
    """Judge ``record``, whose worker's lease lapsed; return whether that changed it.

    A task that runs in legs loses nothing but the leg: the leg is orphaned (started again
    by the next request that sees it); a task that waits for answers holds no worker, so
    nothing changes. A task of one body (no legs) is ``failed`` (`WORKER_LOST`).
    """
    if record.call is not None:
        # Waiting for answers holds no lease; a leg running or queued did.
        if record.questions or record.orphaned:
            return False
        record.orphaned = True
        return True
    record.status = "failed"
    record.error = {"code": INTERNAL_ERROR, "message": WORKER_LOST}
    record.message = WORKER_LOST
    record.questions.clear()
    record.answers.clear()
    return True


# A change that keeps losing its race this often is refused rather than retried for ever.
_MAX_ATTEMPTS = 50


class RecordTaskStore:
    """The `TaskStore`: task records kept in a record backend (`elicitkit._replay.records`).

    A record is the `TaskRecord` as JSON, open (counted against its caller, never dropped
    to make room) until the task ends, with the task's dialogue as its alias. Its lease is
    the backend's: a read that finds a running task's lease lapsed judges it
    (`lose_worker`) and writes that over the version it read, so the judgement and the
    leg's own end are ordered: whichever lands first stands, and the other is redone on
    the fresh record.

    Attributes:
        records: The backend.
        ttl: Seconds a task's record lives from its creation (``None``: unlimited).
        lease: Seconds a worker holds a running task without renewing it: how soon a dead
            worker's leg is started again.
        poll: Seconds suggested to clients between two polls.
    """

    def __init__(
        self,
        records: Records,
        *,
        name: str,
        ttl: float | None,
        lease: float,
        poll: float,
    ) -> None:
        """Keep tasks in ``records``; ``name`` says which store in refusals."""
        self.records = records
        self.ttl = ttl
        self.lease = lease
        self.poll = poll
        self._name = name
        # The version of each task this process last read (bounded), for a `wait` told
        # no version: the change it waits for is one since that read.
        self._seen: Lru[str, int] = Lru(10_000)

    async def create(self, record: TaskRecord, *, dialogue: str | None) -> TaskRecord:
        """See `TaskStore.create`."""
        try:
            found = await self.records.create(
                record.task_id,
                _dumps(record),
                caller=caller_of(record),
                unfinished=not record.terminal,
                ttl=None if record.ttl_ms is None else record.ttl_ms / 1000,
                lease=self.lease,
                alias=dialogue,
            )
        except Full as full:
            if full.caller:
                raise caller_full(self._name, full.limit) from None
            raise StoreFull(
                f"The {self._name} holds {full.limit} unfinished tasks, its max_tasks, so "
                "it takes no new one until one ends or expires. Raise max_tasks."
            ) from None
        return record if found is None else _record(found)

    async def get(self, task_id: str) -> TaskRecord | None:
        """See `TaskStore.get`: a task whose lease lapsed is judged (`lose_worker`)."""
        found = await self._judged(task_id, None)
        return None if found is None else found[1]

    async def renew(self, task_id: str, seconds: float) -> TaskRecord | None:
        """See `TaskStore.renew`."""
        entry = await self.records.renew(task_id, seconds)
        found = None if entry is None else await self._judged(task_id, entry)
        return None if found is None else found[1]

    async def change(
        self, task_id: str, edit: Callable[[TaskRecord], bool], *, lease: float | None = None
    ) -> TaskRecord | None:
        """See `TaskStore.change`."""
        for _ in range(_MAX_ATTEMPTS):
            found = await self._judged(task_id, None)
            if found is None:
                return None
            entry, record = found
            if not edit(record):
                return record
            record.updated_at = clock.now()
            if lease is not None:
                record.lease_until = record.updated_at + lease  # informative only
            written = await self.records.update(
                task_id, entry.version, _dumps(record), unfinished=not record.terminal, lease=lease
            )
            if written is not None:
                record.version = written.version
                self._seen.put(task_id, written.version)
                return record
            # Another worker wrote first: edit the fresh record.
        raise RuntimeError(
            f"Task {task_id} changed {_MAX_ATTEMPTS} times while elicitkit tried to change it."
        )

    async def wait(self, task_id: str, seconds: float, *, version: int | None = None) -> None:
        """See `TaskStore.wait`."""
        if version is None:
            version = self._seen.get(task_id)
        if version is None:
            entry = await self.records.read(task_id)
            if entry is None:
                return
            version = entry.version
        await self.records.wait(task_id, version, seconds)

    async def _judged(self, task_id: str, entry: Entry | None) -> tuple[Entry, TaskRecord] | None:
        """The record (read unless ``entry`` is given), its lapsed lease judged and kept."""
        for _ in range(_MAX_ATTEMPTS):
            if entry is None:
                entry = await self.records.read(task_id)
                if entry is None:
                    return None
            record = _record(entry)
            # A lapsed lease stays lapsed until a write grants another (which changes the
            # version): this judgement cannot race a renewal, only a write.
            if entry.held or record.terminal or not lose_worker(record):
                self._seen.put(task_id, entry.version)
                return entry, record
            record.updated_at = clock.now()
            written = await self.records.update(
                task_id, entry.version, _dumps(record), unfinished=not record.terminal
            )
            if written is not None:
                record.version = written.version
                self._seen.put(task_id, written.version)
                return written, record
            entry = None  # the leg's worker wrote first: judge the fresh record
        raise RuntimeError(
            f"Task {task_id} changed {_MAX_ATTEMPTS} times while elicitkit read its lease."
        )


class MemoryTaskStore(RecordTaskStore):
    """Task records in this process's memory, bounded and expiring: for one process.

    Several processes serving the same clients need a shared store (``SqliteTaskStore`` on
    one machine, ``RedisTaskStore`` on several).
    """

    def __init__(
        self,
        *,
        max_tasks: int = 10_000,
        max_per_caller: int = DEFAULT_MAX_PER_CALLER,
        ttl: float | None = 3600.0,
        lease: float = 10.0,
        poll: float = 1.0,
    ) -> None:
        """Hold at most ``max_tasks`` records, ``max_per_caller`` unfinished ones per caller.

        Past ``max_tasks``, the oldest ended task is dropped to make room; a store full of
        unfinished tasks refuses new ones (`StoreFull`) rather than drop one, since a
        dropped task stops its body and refuses its caller's answer. A caller (a principal;
        anonymous callers share one) holding ``max_per_caller`` unfinished tasks is refused
        a new one (`CallerFull`), so one client cannot fill the store for the others.

        Args:
            max_tasks: How many records the store holds at most.
            max_per_caller: How many unfinished tasks one caller holds at most.
            ttl: Seconds a record lives from its task's creation (``None``: unlimited).
            lease: Seconds the body's worker holds a running task without renewing it.
            poll: Seconds suggested to clients between two polls.

        Raises:
            ValueError: A limit is not a whole number of at least 1.
        """
        check_limits(max_tasks, max_per_caller, "MemoryTaskStore")
        self.backend = MemoryRecords(max_entries=max_tasks, max_per_caller=max_per_caller)
        super().__init__(
            self.backend,
            name="MemoryTaskStore",
            ttl=ttl,
            lease=lease,
            poll=poll,
        )

    def __len__(self) -> int:
        """Return how many records the store holds."""
        return len(self.backend)


def _dumps(record: TaskRecord) -> str:
    return json.dumps(record.to_json(), separators=(",", ":"), ensure_ascii=False)


def _record(entry: Entry) -> TaskRecord:
    record = TaskRecord.from_json(json.loads(entry.value))
    record.version = entry.version
    return record
