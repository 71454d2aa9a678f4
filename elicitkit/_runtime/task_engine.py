"""The books of every task of one server: create, get, answer, cancel, finish, and the lease.

`TaskEngine` keeps each task in a `TaskStore` and leases a running task to its worker:
while the body runs, its worker renews the lease and watches the record for a
cancellation (`TaskEngine.hold`). SDK-free; ``go_async()`` and the task's delivery use it
(`elicitkit._runtime.tasks`, `elicitkit._runtime.task_delivery`).
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
from elicitkit._replay.tasks import LeasingTaskStore, TaskRecord, TaskStore, lose_worker
from elicitkit.errors import ElicitError

logger = logging.getLogger("elicitkit")

DEFAULT_TASK_TTL = 3600.0
"""Seconds a task's record lives from its creation, by default: an hour (its ``ttlMs``)."""
DEFAULT_POLL_INTERVAL = 1.0
"""Seconds suggested between two polls of a task (its ``pollIntervalMs``)."""
DEFAULT_TASK_LEASE = 10.0
"""Seconds a task's worker holds it without renewing (renewed every third of it)."""


# A task's result is sent whole on every tasks/get for the task's lifetime (an hour by
# default): 1 MiB keeps ordinary results (and most documents) whole and bounds the store.
DEFAULT_MAX_RESULT_BYTES = 1024 * 1024
TOO_LARGE_RESULT = (
    "The task completed, but its result ({size} bytes, SHA-256 {digest}) was larger than the "
    "{limit} bytes the server keeps for a task, so only its beginning was kept: {head}"
)


class TaskGone(ElicitError):
    """The task's record is gone (expired, or its store lost it) while its body ran."""


class TaskEngine:
    """The books of every task of one server, kept in a `TaskStore`.

    Attributes:
        store: Where task records live, as the engine reads them: the backend, sealing each
            record's content with the server's codec when the engine was given one.
        backend: The store as it was given (shared by every worker serving the same clients).
        ttl: Seconds a record lives from its creation (``None``: unlimited).
        poll: Seconds suggested between two polls.
        lease: Seconds a worker holds a running task without renewing.
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
        self, *, dialogue: str | None, principal: str | None, message: str | None
    ) -> TaskRecord:
        """Create a task (or find the dialogue's) and return it once any worker can get it."""
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
        )
        return await self.store.create(record, dialogue=dialogue)

    async def get(self, task_id: str, principal: str | None) -> TaskRecord | None:
        """The task as its caller may see it, or ``None`` (unknown, expired, or another's).

        A task that is not terminal and whose lease lapsed lost its worker: it is marked
        ``failed`` (`WORKER_LOST`) first (by a `LeasingTaskStore` itself, on its clock).
        """
        record = await self.store.get(task_id)
        if record is None or not _same_principal(record, principal):
            return None
        # The protocol check last: it costs about 15 µs, and most records are not lapsed.
        if (
            not record.terminal
            and record.lease_until < clock.now()
            and not isinstance(self.store, LeasingTaskStore)
        ):
            record = await self.store.change(task_id, _lost_worker)
        return record

    async def answer(
        self, task_id: str, principal: str | None, responses: Mapping[str, Any]
    ) -> bool:
        """Take the answers to outstanding questions; ignore any other key.

        Returns ``False`` if there is no such task for this caller.
        """

        def take(record: TaskRecord) -> bool:
            changed = False
            for key, response in responses.items():
                # Only outstanding questions: unknown, answered or withdrawn keys are
                # ignored, as the extension says. One lookup per key: linear.
                if key in record.questions and isinstance(response, Mapping):
                    del record.questions[key]
                    record.answers[key] = dict(response)  # pyright: ignore[reportUnknownArgumentType]
                    changed = True
            return changed

        record = await self.get(task_id, principal)
        if record is None:
            return False
        if not record.terminal:
            await self.store.change(task_id, take)
        return True

    async def cancel(self, task_id: str, principal: str | None) -> bool:
        """Ask the task's worker to cancel it; ``False`` if there is no such task."""

        def flag(record: TaskRecord) -> bool:
            if record.terminal or record.cancel:
                return False
            record.cancel = True
            return True

        record = await self.get(task_id, principal)
        if record is None:
            return False
        await self.store.change(task_id, flag)
        return True

    async def ask(
        self, task_id: str, key: str, request: dict[str, Any], within: float | None
    ) -> dict[str, Any]:
        """Put a question to the client through the task and wait for its answer.

        Raises:
            TimeoutError: No answer within ``within`` seconds (the question is withdrawn).
            TaskGone: The task's record is gone.
        """

        def put(record: TaskRecord) -> bool:
            record.questions[key] = request
            return True

        def withdraw(record: TaskRecord) -> bool:
            return record.questions.pop(key, None) is not None

        if await self.store.change(task_id, put) is None:
            raise TaskGone(_GONE)
        deadline = None if within is None else clock.monotonic() + within
        try:
            return await self._answer(task_id, key, deadline)
        except BaseException:
            # Timed out, cancelled or gone: the question is withdrawn from inputRequests.
            with anyio.CancelScope(shield=True):
                await self.store.change(task_id, withdraw)
            raise

    async def _answer(self, task_id: str, key: str, deadline: float | None) -> dict[str, Any]:
        """Wait for the answer to question ``key``, and take it."""

        def take(record: TaskRecord) -> bool:
            return record.answers.pop(key, None) is not None

        while True:
            record = await self.store.get(task_id)
            if record is None:
                raise TaskGone(_GONE)
            answer = record.answers.get(key)
            if answer is not None:
                await self.store.change(task_id, take)
                return answer
            left = self.lease if deadline is None else deadline - clock.monotonic()
            if left <= 0:
                raise TimeoutError
            # Woken by any change of the record; the lease bounds a wake-up lost in transit.
            await self.store.wait(task_id, min(left, self.lease))

    async def finish(
        self,
        task_id: str,
        *,
        result: dict[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
        cancelled: bool = False,
    ) -> None:
        """Record the task's end: its result, its JSON-RPC error, or its cancellation.

        A result larger than ``max_result_bytes`` (as JSON) is kept as its size, digest and
        beginning, in an error result that says so: every ``tasks/get`` sends the record
        whole, for the task's lifetime.
        """
        capped = self._capped(result or {})

        def end(record: TaskRecord) -> bool:
            if record.terminal:
                return False
            record.questions.clear()
            record.answers.clear()
            if cancelled:
                record.status = "cancelled"
                record.message = "The task was cancelled."
            elif error is not None:
                record.status = "failed"
                record.error = dict(error)
                record.message = str(error.get("message", "The task failed."))
            else:
                record.status = "completed"
                record.result = capped
                record.message = None  # "Rendering..." would no longer be true
            return True

        await self.store.change(task_id, end)

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

    async def hold(self, task_id: str, cancel: anyio.CancelScope) -> str:
        """While the body runs: renew its lease, and cancel it when the client asks.

        Runs until it cancels the body, and returns why: ``"cancel"`` (the client asked),
        ``"ended"`` (the task is terminal already: its lease lapsed and it was reported
        ``failed``, say), ``"gone"`` (its record is gone) or ``"lost"`` (the store did not
        answer for a whole lease, so the task may be judged lost any moment: the body
        stops rather than run on unseen).
        """
        leasing = self.store if isinstance(self.store, LeasingTaskStore) else None

        def renew(record: TaskRecord) -> bool:
            record.lease_until = clock.now() + self.lease
            return True

        renew_every = self.lease / 3
        # The store granted the first lease at creation, just before the holder started.
        held_since = renewed = clock.monotonic()
        while True:
            try:
                if leasing is not None and clock.monotonic() - renewed >= renew_every:
                    # Read before asking: the store's lease starts after this moment, so
                    # the body stops (below) no later than the store judges it lost.
                    asked = clock.monotonic()
                    # No longer than the lease it still holds: a store that hangs past
                    # it stops the body in time (below).
                    with anyio.fail_after(max(0.001, held_since + self.lease - asked)):
                        record = await leasing.renew(task_id, self.lease)
                    held_since = renewed = asked
                else:
                    record = await self.store.get(task_id)
                    if leasing is None and (
                        clock.monotonic() - renewed >= renew_every
                        or (
                            record is not None
                            and record.lease_until - clock.now() < renew_every * 2
                        )
                    ):
                        await self.store.change(task_id, renew, wake=False)  # nobody's news
                        renewed = clock.monotonic()
                    held_since = renewed if leasing is not None else clock.monotonic()
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
            try:
                with clock.move_on_after(renew_every):  # the store's own timeout may be longer
                    await self.store.wait(task_id, renew_every)
            except Exception:  # noqa: BLE001  (the next renewal finds the store out)
                await clock.sleep(min(renew_every, 0.5))


def _same_principal(record: TaskRecord, principal: str | None) -> bool:
    # A task made by an authenticated caller is that caller's alone; unauthenticated
    # servers bind nothing (the task id, 128 random bits, is the bearer name).
    return record.principal is None or secrets.compare_digest(record.principal, principal or "")


def _lost_worker(record: TaskRecord) -> bool:
    if record.terminal or record.lease_until >= clock.now():
        return False
    lose_worker(record)
    return True


_GONE = (
    "The task's record is gone (it outlived its time to live, or the task store lost it), "
    "so nobody can see or answer it any more; the task stops."
)
