"""The books of every task of one server: create, get, answer, cancel, and its legs.

A task's work runs in legs (`elicitkit.integrations._task_legs`): each leg is a run of the
tool from the top that replays the answers and durable steps so far, and ends with the
tool's result or with questions, when the task waits (holding no worker) until
``tasks/update`` answers them all and the next leg is queued. `TaskEngine` keeps each task
in a `TaskStore` and hands each leg to one worker at a time: a worker *claims* the leg (a
lease, renewed while the leg runs, `TaskEngine.hold`), and a leg whose worker went silent
is *orphaned* (`elicitkit._replay.tasks.lose_worker`) and claimed again by a live one.
SDK-free; ``go_async()`` and the integration's legs use it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Mapping
from typing import Any

import anyio

import elicitkit._clock as clock
from elicitkit._replay.once import HEAD_CHARS, Codec
from elicitkit._replay.sealed_tasks import sealed
from elicitkit._replay.tasks import INTERNAL_ERROR, TaskRecord, TaskStore
from elicitkit.errors import ElicitError

logger = logging.getLogger("elicitkit")

DEFAULT_TASK_TTL = 3600.0
"""Seconds a task's record lives from its creation, by default: an hour (its ``ttlMs``)."""
DEFAULT_POLL_INTERVAL = 1.0
"""Seconds suggested between two polls of a task (its ``pollIntervalMs``)."""
DEFAULT_TASK_LEASE = 10.0
"""Seconds a leg's worker holds it without renewing (renewed every third of it): how soon
a leg whose worker died is started again (``ELICITKIT_TASK_RESUME_AFTER``)."""
MAX_RESUMES = 3
"""How many times one leg is started again after its worker went silent, before the task
is failed: a leg that kills its worker each time must not loop for the task's lifetime."""


# A task's result is sent whole on every tasks/get for the task's lifetime (an hour by
# default): 1 MiB keeps ordinary results (and most documents) whole and bounds the store.
DEFAULT_MAX_RESULT_BYTES = 1024 * 1024
TOO_LARGE_RESULT = (
    "The task completed, but its result ({size} bytes, SHA-256 {digest}) was larger than the "
    "{limit} bytes the server keeps for a task, so only its beginning was kept: {head}"
)
RESUMED_TOO_OFTEN = (
    "The server process running this task stopped {times} times in the same part of the "
    "task (it crashed, was killed or lost its store each time), so the task was not started "
    "again. Check the outcome, then call the tool again."
)


class TaskGone(ElicitError):
    """The task's record is gone (expired, or its store lost it) while a leg ran."""


class TaskEngine:
    """The books of every task of one server, kept in a `TaskStore`.

    Attributes:
        store: Where task records live, as the engine reads them: the backend, sealing each
            record's content with the server's codec when the engine was given one.
        backend: The store as it was given (shared by every worker serving the same clients).
        ttl: Seconds a record lives from its creation (``None``: unlimited).
        poll: Seconds suggested between two polls.
        lease: Seconds a worker holds a leg without renewing: how soon a leg whose worker
            went silent is started again.
        max_result_bytes: The largest result kept whole (larger: its size, digest, head).
    """

    def __init__(
        self,
        store: TaskStore,
        *,
        ttl: float | None = DEFAULT_TASK_TTL,
        poll: float = DEFAULT_POLL_INTERVAL,
        lease: float = DEFAULT_TASK_LEASE,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        codec: Codec | None = None,
    ) -> None:
        """Keep tasks in ``store`` (sealed with ``codec``), each living ``ttl`` seconds."""
        self.max_result_bytes = max_result_bytes
        self.backend = store
        self.store = store if codec is None else sealed(store, codec)
        self.ttl = ttl
        self.poll = poll
        self.lease = lease

    @classmethod
    def of(cls, store: TaskStore, *, codec: Codec | None = None) -> TaskEngine:
        """An engine for ``store``, with the ``ttl``, ``lease`` and ``poll`` it is set up with.

        Stores carry those settings (a deployment's Redis sets how soon a dead worker is
        found); a store without them gets the defaults.
        """
        ttl: object = getattr(store, "ttl", DEFAULT_TASK_TTL)
        lease: object = getattr(store, "lease", DEFAULT_TASK_LEASE)
        poll: object = getattr(store, "poll", DEFAULT_POLL_INTERVAL)
        return cls(
            store,
            codec=codec,
            ttl=float(ttl) if isinstance(ttl, int | float) else None,
            lease=float(lease) if isinstance(lease, int | float) else DEFAULT_TASK_LEASE,
            poll=float(poll) if isinstance(poll, int | float) else DEFAULT_POLL_INTERVAL,
        )

    async def create(
        self,
        *,
        dialogue: str | None,
        principal: str | None,
        message: str | None,
        call: Mapping[str, Any],
        state: str,
    ) -> TaskRecord:
        """Create a task (or find the dialogue's) and return it once any worker can get it.

        Its first leg is queued (``leg`` 1, no runner) under the first lease: if it is never
        claimed (the queue lost it with its process), the lease lapses and the next
        request that sees the task queues it again.

        Args:
            dialogue: The dialogue the call went on as a task from (one task a dialogue).
            principal: The authenticated caller, or ``None``.
            message: The task's status message while it works.
            call: The ``tools/call`` params every leg replays (name, arguments).
            state: The ``requestState`` (plaintext) the first leg replays.
        """
        now = clock.now()
        record = TaskRecord(
            task_id=secrets.token_urlsafe(16),
            status="working",
            created_at=now,
            updated_at=now,
            ttl_ms=None if self.ttl is None else round(self.ttl * 1000),
            poll_ms=max(1, round(self.poll * 1000)),
            principal=principal,
            message=message,
            lease_until=now + self.lease,
            call=dict(call),
            state=state,
            leg=1,
        )
        return await self.store.create(record, dialogue=dialogue)

    async def get(self, task_id: str, principal: str | None) -> TaskRecord | None:
        """The task as its caller may see it, or ``None`` (unknown, expired, or another's).

        A leg whose lease lapsed lost its worker: it is orphaned first (by the store
        itself, on its clock), so ``leg_lost`` says to start it again.
        """
        record, _ = await self.look(task_id, principal)
        return record

    async def look(self, task_id: str, principal: str | None) -> tuple[TaskRecord | None, bool]:
        """`get`, and whether a leg of the task should be queued now by whoever looked.

        A leg is due when its worker was lost (``leg_lost``), or when the time of the
        last outstanding question ran out just now: the next leg runs, and the question
        times out there.
        """
        record = await self.store.get(task_id)
        if record is None or not _same_principal(record, principal):
            return None, False
        now = clock.now()
        due = False
        if record.deadlines and record.questions and min(record.deadlines.values()) < now:

            def time_up(record: TaskRecord) -> bool:
                nonlocal due
                changed = _timed_out(record)
                due = changed and not record.questions
                return changed

            record = await self.store.change(task_id, time_up, lease=self.lease) or record
        return record, due or record.leg_lost

    async def answer(
        self, task_id: str, principal: str | None, responses: Mapping[str, Any]
    ) -> tuple[TaskRecord | None, bool]:
        """Take the answers to outstanding questions; ignore any other key.

        Returns the task (``None`` if there is no such task for this caller) and whether
        these answers left no question outstanding: the next leg is then queued (under a
        fresh lease, as `create` queues the first) and the caller starts it.
        """
        completed = False

        def take(record: TaskRecord) -> bool:
            nonlocal completed
            completed = False
            if record.terminal or not record.questions:
                return False
            changed = False
            for key, response in responses.items():
                # Only outstanding questions: unknown, answered or withdrawn keys are
                # ignored, as the extension says. One lookup per key: linear.
                if key in record.questions and isinstance(response, Mapping):
                    del record.questions[key]
                    record.deadlines.pop(key, None)
                    record.answers[key] = dict(response)  # pyright: ignore[reportUnknownArgumentType]
                    changed = True
            completed = changed and not record.questions
            return changed

        record = await self.get(task_id, principal)
        if record is None:
            return None, False
        if record.terminal or not record.questions:
            return record, False
        changed = await self.store.change(task_id, take, lease=self.lease)
        return (changed or record), completed

    async def cancel(self, task_id: str, principal: str | None) -> TaskRecord | None:
        """Cancel the task: the task as it is then, or ``None`` if there is no such task.

        A task no worker runs (waiting for answers, or queued) ends ``cancelled`` at once;
        a running leg's worker is asked to cancel it (`hold` sees the flag).
        """

        def flag(record: TaskRecord) -> bool:
            if record.terminal or record.cancel:
                return False
            record.cancel = True
            if record.call is not None and (record.runner is None or record.orphaned):
                _end(record, cancelled=True)
            return True

        record = await self.get(task_id, principal)
        if record is None:
            return None
        return await self.store.change(task_id, flag) or record

    async def claim(self, task_id: str, leg: int, token: str) -> TaskRecord | None:
        """Claim leg ``leg`` of the task for the worker ``token``: the record, or ``None``.

        ``None`` when the leg is not this worker's to run: the task ended, waits for
        answers, is on another leg, or another worker holds it. A claim of an orphaned
        leg (its worker went silent) is a resume, counted; past `MAX_RESUMES` the task is
        failed instead. A leg whose lease lapsed unseen is judged first (orphaned), so a
        queue that delivers a dead worker's leg again resumes it without a request's look.
        """
        claimed = False

        def take(record: TaskRecord) -> bool:
            nonlocal claimed
            claimed = False
            if record.leg != leg or not record.wants_leg:
                return False
            if record.orphaned:
                record.resumes += 1
                if record.resumes > MAX_RESUMES:
                    message = RESUMED_TOO_OFTEN.format(times=record.resumes)
                    _end(record, error={"code": INTERNAL_ERROR, "message": message})
                    return True
            record.runner = token
            record.orphaned = False
            claimed = True
            return True

        record = await self.store.change(task_id, take, lease=self.lease)
        return record if claimed and record is not None else None

    async def wait_for_answers(
        self,
        task_id: str,
        token: str,
        questions: Mapping[str, dict[str, Any]],
        state: str,
        deadlines: Mapping[str, float],
    ) -> bool:
        """End worker ``token``'s leg with ``questions``: the task waits for their answers.

        ``state`` is what the next leg replays; ``deadlines`` says when each question asked
        with a timeout is too late. Returns ``False`` if the leg was no longer this
        worker's (orphaned and claimed again, or the task ended).
        """

        def park(record: TaskRecord) -> bool:
            if record.terminal or record.runner != token:
                return False
            record.runner = None
            record.orphaned = False
            if record.cancel:
                _end(record, cancelled=True)
                return True
            record.questions = dict(questions)
            record.answers = {}
            record.deadlines = {k: v for k, v in deadlines.items() if k in questions}
            record.state = state
            record.leg += 1
            return True

        return await self._changed(task_id, park)

    async def finish(
        self,
        task_id: str,
        token: str,
        *,
        result: dict[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        cancelled: bool = False,
    ) -> bool:
        """Record the task's end by worker ``token``'s leg: its result, error or cancellation.

        A result larger than ``max_result_bytes`` (as JSON) is kept as its size, digest and
        beginning, in an error result that says so: every ``tasks/get`` sends the record
        whole, for the task's lifetime. Returns ``False`` if the leg was no longer this
        worker's (orphaned and claimed again, or the task ended).
        """
        capped = None if result is None else self._capped(result)

        def end(record: TaskRecord) -> bool:
            if record.terminal or record.runner != token:
                return False
            _end(record, result=capped, error=error, cancelled=cancelled)
            return True

        return await self._changed(task_id, end)

    async def release(self, task_id: str, token: str) -> None:
        """Give up worker ``token``'s leg unfinished (its worker stops): orphan it now.

        The next request that sees the task starts the leg again, without waiting for the
        lease to lapse.
        """

        def give_up(record: TaskRecord) -> bool:
            if record.terminal or record.runner != token or record.orphaned:
                return False
            record.orphaned = True
            return True

        await self.store.change(task_id, give_up)

    async def fail(self, task_id: str, error: Mapping[str, Any]) -> None:
        """End the task ``failed`` with ``error``, whoever runs it (a leg that cannot run)."""

        def end(record: TaskRecord) -> bool:
            if record.terminal:
                return False
            _end(record, error=error)
            return True

        await self.store.change(task_id, end)

    async def _changed(self, task_id: str, edit: Any) -> bool:
        done = False

        def once(record: TaskRecord) -> bool:
            nonlocal done
            done = bool(edit(record))
            return done

        await self.store.change(task_id, once)
        return done

    def _capped(self, result: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        size = len(text.encode())
        if size <= self.max_result_bytes:
            return result
        message = TOO_LARGE_RESULT.format(
            size=size,
            digest=hashlib.sha256(text.encode()).hexdigest(),
            limit=self.max_result_bytes,
            head=text[:HEAD_CHARS],
        )
        return {"content": [{"type": "text", "text": message}], "isError": True}

    async def hold(self, task_id: str, token: str, cancel: anyio.CancelScope) -> str:
        """While worker ``token``'s leg runs: renew its lease, and stop it when it must.

        Runs until it cancels the leg, and returns why: ``"cancel"`` (the client asked),
        ``"ended"`` (the task is terminal already), ``"taken"`` (the leg is no longer this
        worker's: it was orphaned, its lease having lapsed, and maybe claimed again),
        ``"gone"`` (its record is gone) or ``"lost"`` (the store did not answer for a
        whole lease, so the leg may be judged orphaned any moment: it stops rather than
        run on unseen).
        """
        renew_every = self.lease / 3
        # The claim granted the first lease, just before the holder started.
        held_since = renewed = clock.monotonic()
        while True:
            try:
                if clock.monotonic() - renewed >= renew_every:
                    # Read before asking: the store's lease starts after this moment, so
                    # the leg stops (below) no later than the store judges it lost.
                    asked = clock.monotonic()
                    # No longer than the lease it still holds: a store that hangs past
                    # it stops the leg in time (below).
                    with anyio.fail_after(max(0.001, held_since + self.lease - asked)):
                        record = await self.store.renew(task_id, self.lease)
                    held_since = renewed = asked
                else:
                    record = await self.store.get(task_id)
            except Exception as error:  # noqa: BLE001  (a store that fails: retried below)
                record = None
                if clock.monotonic() - held_since >= self.lease:
                    logger.error(  # noqa: TRY400  (one line per task)
                        "elicitkit stopped task %s: its store (%s) did not renew its lease "
                        "for %s s (%s)",
                        task_id,
                        type(self.store).__name__,
                        self.lease,
                        error,
                    )
                    cancel.cancel()
                    return "lost"
                await clock.sleep(min(renew_every, 0.5))
                continue
            if record is None:
                logger.warning(
                    "elicitkit stopped task %s: its record is gone (it expired, or the task "
                    "store lost it, e.g. a Redis restarted empty)",
                    task_id,
                )
                cancel.cancel()
                return "gone"
            if record.terminal or record.cancel:
                cancel.cancel()
                return "ended" if record.terminal else "cancel"
            if record.runner != token or record.orphaned:
                logger.warning(
                    "elicitkit stopped a leg of task %s: its lease lapsed (this worker "
                    "stalled for over %s s), so the leg is another worker's to run",
                    task_id,
                    self.lease,
                )
                cancel.cancel()
                return "taken"
            try:
                with clock.move_on_after(renew_every):  # the store's own timeout may be longer
                    await self.store.wait(task_id, renew_every, version=record.version)
            except Exception:  # noqa: BLE001  (the next renewal finds the store out)
                await clock.sleep(min(renew_every, 0.5))


def _same_principal(record: TaskRecord, principal: str | None) -> bool:
    # A task made by an authenticated caller is that caller's alone; unauthenticated
    # servers bind nothing (the task id, 128 random bits, is the bearer name).
    return record.principal is None or secrets.compare_digest(record.principal, principal or "")


def _timed_out(record: TaskRecord) -> bool:
    """Give each question whose time is up an answer that the next leg reads as too late.

    Any answer past its deadline is a timeout to ``ask()`` (`elicitkit._runtime.answers`);
    this one says nothing else.
    """
    if record.terminal:
        return False
    now = clock.now()
    late = [key for key in record.questions if record.deadlines.get(key, now) < now]
    for key in late:
        del record.questions[key]
        record.answers[key] = {"action": "cancel"}
    return bool(late)


def _end(
    record: TaskRecord,
    *,
    result: dict[str, Any] | None = None,
    error: Mapping[str, Any] | None = None,
    cancelled: bool = False,
) -> None:
    """Make ``record`` terminal: cancelled, failed with ``error``, or completed."""
    record.questions.clear()
    record.answers.clear()
    record.deadlines.clear()
    record.runner = None
    record.orphaned = False
    record.state = None  # nothing is replayed any more: the answers go with it
    if cancelled:
        record.status = "cancelled"
        record.message = "The task was cancelled."
    elif error is not None:
        record.status = "failed"
        record.error = dict(error)
        record.message = str(error.get("message", "The task failed."))
    else:
        record.status = "completed"
        record.result = result or {}
        record.message = None  # "Rendering..." would no longer be true
