"""``go_async()``: after the questions, the rest of a tool call runs as a task.

On MCP 2026-07-28 with a client that declared the Tasks extension on its request, a tool
body that calls ``await go_async()`` answers the call with a ``CreateTaskResult`` and goes
on in the background; the client polls the task. What this module does, SDK-free:

* `Detachable` runs a round's body in a background task from the start, so ``go_async()``
  can answer the call while the body goes on. Until then the round is an ordinary round:
  its result, its question (``NeedInput``) or its error is the round's. A round cancelled
  before ``go_async()`` cancels its body and waits for it.
* `TaskEngine` keeps the books of every task in a `TaskStore` (create, get, answer,
  cancel, finish) and leases each running task to its worker: while the body runs, its
  worker renews the lease and watches the record for a cancellation.
* `TaskChannel` is ``ask()``'s channel inside a task: a question becomes an entry of the
  task's ``inputRequests`` (status ``input_required``) and its answer arrives through
  ``tasks/update``; ``ask()`` decodes, re-asks and logs exactly as on the eras that ask
  mid-call, since to ``ask()`` the channel is one that sends and waits.

What runs once: everything after ``go_async()`` runs exactly once per dialogue. The round
that reaches ``go_async()`` is the dialogue's final round: its answer, the
``CreateTaskResult``, is recorded as the dialogue's outcome (`elicitkit._replay.once`), so
a resent final round gets the same task back without running anything.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

import anyio

import elicitkit._clock as clock
from elicitkit._compat import BaseExceptionGroup
from elicitkit._replay.tasks import (
    INTERNAL_ERROR,
    TASKS_EXTENSION,
    WORKER_LOST,
    LeasingTaskStore,
    TaskRecord,
    TaskStore,
    lose_worker,
    wire_task,
)
from elicitkit._runtime.context import AskingSession, Channel, ToolRun, current_run
from elicitkit._runtime.entry import entry_point
from elicitkit._runtime.timeouts import timed_out
from elicitkit.errors import (
    ElicitationTimeout,
    ElicitError,
    FormDefinitionError,
    TasksUnsupported,
)

logger = logging.getLogger("elicitkit")

R = TypeVar("R")

DEFAULT_TASK_TTL = 3600.0
"""Seconds a task's record lives from its creation, by default: an hour (its ``ttlMs``)."""
DEFAULT_POLL_INTERVAL = 1.0
"""Seconds suggested between two polls of a task (its ``pollIntervalMs``)."""
DEFAULT_TASK_LEASE = 10.0
"""Seconds a task's worker holds it without renewing (renewed every third of it)."""


def _detached_in_step(run: ToolRun, step: str) -> str | None:
    """Why ``go_async()`` cannot run inside step ``step``; inside a task it just says so."""
    if run.in_task:  # already a task: nothing detaches, and the step is not recorded
        return None
    return (
        f"The step {step!r} called go_async(), which a step cannot do: its outcome is "
        "recorded once, and the task would outlive it. Call go_async() before or after the "
        "step."
    )


# Not refused beside the SDK's Resolve: a task asks nothing through the call's requestState.
@entry_point("go_async()", in_step=_detached_in_step)
async def go_async(message: str | None = None, *, required: bool = False) -> bool:
    """Go on as a task: answer the call now, and run the rest of the tool in the background.

    Call it after the questions a tool needs before its long work. On MCP 2026-07-28,
    with a client that declared the Tasks extension (``io.modelcontextprotocol/tasks``) on
    this call, the call is answered with a task the client polls, and the rest of the
    body runs as that task, exactly once; questions asked after it reach the user through
    the task (``tasks/get`` shows them, ``tasks/update`` answers them). Otherwise the
    body simply goes on, synchronously.

    Args:
        message: The task's status message while it works (e.g. "Rendering the report").
        required: Refuse a client that cannot follow a task (the extension's -32021
            error) instead of going on synchronously.

    Returns:
        ``True`` if the rest of the body runs as a task (also when called again inside
        it), ``False`` if it goes on synchronously.

    Raises:
        TasksUnsupported: ``required`` is set and the client cannot follow a task.
        ElicitError: ``go_async()`` was called outside a tool call of a server
            elicitkit is installed on.
        StepError: ``go_async()`` was called inside a durable step's function.
    """
    run = current_run.get()
    if run.in_task:
        return True
    if run.detacher is None:
        if required:
            raise TasksUnsupported(
                f"The tool {run.target!r} runs only as a task, and this client cannot "
                f"follow a task ({run.no_tasks}), so it was not run on. Call it from a "
                f"client that declares the {TASKS_EXTENSION} extension (MCP 2026-07-28)."
            )
        return False
    await run.detacher.detach(run, message)
    return True


class TaskGone(ElicitError):
    """The task's record is gone (expired, or its store lost it) while its body ran."""


class TaskEngine:
    """The books of every task of one server, kept in a `TaskStore`.

    Attributes:
        store: Where task records live; shared by every worker serving the same clients.
        ttl: Seconds a record lives from its creation (``None``: unlimited).
        poll: Seconds suggested between two polls.
        lease: Seconds a worker holds a running task without renewing.
    """

    def __init__(
        self,
        store: TaskStore,
        *,
        ttl: float | None = DEFAULT_TASK_TTL,
        poll: float = DEFAULT_POLL_INTERVAL,
        lease: float = DEFAULT_TASK_LEASE,
    ) -> None:
        """Keep tasks in ``store``, each living ``ttl`` seconds."""
        self.store = store
        self.ttl = ttl
        self.poll = poll
        self.lease = lease

    @classmethod
    def of(cls, store: TaskStore) -> TaskEngine:
        """An engine for ``store``, with the ``ttl``, ``lease`` and ``poll`` it is set up with.

        Stores carry those settings (a deployment's Redis sets how soon a dead worker is
        found); a store without them gets the defaults.
        """
        ttl: object = getattr(store, "ttl", DEFAULT_TASK_TTL)
        lease: object = getattr(store, "lease", DEFAULT_TASK_LEASE)
        poll: object = getattr(store, "poll", DEFAULT_POLL_INTERVAL)
        return cls(
            store,
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
        """Record the task's end: its result, its JSON-RPC error, or its cancellation."""

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
                record.result = result or {}
                record.message = None  # "Rendering..." would no longer be true
            return True

        await self.store.change(task_id, end)

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


class TaskChannel:
    """``ask()``'s channel inside a task: questions go out through ``tasks/get``."""

    def __init__(self, engine: TaskEngine, task_id: str, call: Channel) -> None:
        """Ask through ``engine``'s task ``task_id``; the rest is the call's ``call``."""
        self._engine = engine
        self._task_id = task_id
        self._call = call
        self._why_not = call.why_no_forms()  # read while the call's request is current

    @property
    def protocol(self) -> str:
        return self._call.protocol

    def why_no_forms(self) -> str | None:
        return self._why_not

    async def send(
        self, params: dict[str, Any], within: float | None, *, key: str | None = None
    ) -> Mapping[str, Any]:
        # ask() claims a key unique in the run for each question and each re-ask, and the
        # run is the task's whole life after go_async(): so it is unique for the task's
        # lifetime, as the extension requires. (A caller without a key gets a random one.)
        key = key or "q-" + secrets.token_urlsafe(8)
        try:
            return await self._engine.ask(
                self._task_id, key, {"method": "elicitation/create", "params": params}, within
            )
        except TimeoutError:
            raise self.surface(ElicitationTimeout(timed_out(within or 0.0))) from None

    async def send_all(
        self, questions: list[tuple[dict[str, Any], float | None, str]]
    ) -> list[Mapping[str, Any]]:
        """Ask ``questions`` (params, within, key) at once: ``ask_all()`` in a task.

        All of them are outstanding together, and answered in any order.
        """
        answers: list[Mapping[str, Any]] = [{} for _ in questions]

        async def one(index: int, params: dict[str, Any], within: float | None, key: str) -> None:
            answers[index] = await self.send(params, within, key=key)

        async with anyio.create_task_group() as group:
            for index, (params, within, key) in enumerate(questions):
                group.start_soon(one, index, params, within, key)
        return answers

    def why_no_url(self) -> str | None:
        return "elicitkit does not ask URL questions inside a task yet"

    def completion_notifier(self, elicitation_id: str) -> Callable[[], Awaitable[None]]:
        return self._call.completion_notifier(elicitation_id)

    @property
    def session(self) -> AskingSession:
        return self._call.session

    def url_required(self, message: str, url: str, elicitation_id: str) -> BaseException:
        return self._call.url_required(message, url, elicitation_id)

    def surface(self, error: ElicitError | FormDefinitionError) -> BaseException:
        return self._call.surface(error)


class Detachable(Generic[R]):
    """Runs one round's body so that ``go_async()`` can answer the call mid-body.

    Args (of ``__init__``):
        engine: The server's task engine.
        dialogue: The dialogue the round belongs to (its task is keyed on it).
        principal: The authenticated caller, or ``None``.
        created: Turns the ``CreateTaskResult`` (wire JSON) into the round's result.
        result_json: Turns the body's result into the task's ``result`` (wire JSON).
        error_json: The JSON-RPC error of an exception that is one, else ``None``.
    """

    def __init__(
        self,
        engine: TaskEngine,
        *,
        dialogue: Callable[[], str | None],
        principal: str | None,
        created: Callable[[dict[str, Any]], R],
        result_json: Callable[[R], dict[str, Any]],
        error_json: Callable[[BaseException], Mapping[str, Any] | None],
    ) -> None:
        self._engine = engine
        self._dialogue = dialogue
        self._principal = principal
        self._created = created
        self._result_json = result_json
        self._error_json = error_json
        self._handed = anyio.Event()
        self._outcome: tuple[R] | None = None
        self._failure: BaseException | None = None
        self._task_id: str | None = None
        self._creating = False
        self._holder: asyncio.Task[str] | None = None
        self._scope = anyio.CancelScope()

    async def detach(self, run: ToolRun, message: str | None) -> None:
        """See `elicitkit._runtime.context.Detacher` (called by ``go_async()``).

        Raises:
            ElicitError: The task store failed; nothing after ``go_async()`` ran.
        """
        if self._creating:  # a sibling task of the body got here first: one task per call
            await self._handed.wait()
            return
        self._creating = True
        try:
            record = await self._engine.create(
                dialogue=self._dialogue(), principal=self._principal, message=message
            )
        except Exception as error:  # noqa: BLE001  (any store failure: the call is told)
            self._creating = False
            logger.error(  # noqa: TRY400  (one line: a store that is down fails many calls)
                "elicitkit could not create a task: its store (%s) failed: %s",
                type(self._engine.store).__name__,
                error,
            )
            raise run.channel.surface(ElicitError(_NOT_CREATED)) from None
        self._task_id = record.task_id
        self._start_holding(record.task_id)
        run.channel = TaskChannel(self._engine, record.task_id, run.channel)
        run.replay = None  # from here on, the body runs once: questions wait for answers
        run.steps = None
        run.in_task = True
        self._outcome = (self._created({"resultType": "task", **wire_task(record)}),)
        self._handed.set()

    async def run(self, body: Callable[[], Awaitable[R]]) -> R:
        """Run ``body``; return its result, or the task's creation if it went async.

        Raises:
            BaseException: What the body raised before ``go_async()``.
        """
        task = asyncio.get_running_loop().create_task(self._background(body))
        _RUNNING.add(task)
        task.add_done_callback(_RUNNING.discard)
        try:
            await self._handed.wait()
        except BaseException:
            if self._task_id is None:  # the round itself was cancelled: so is its body
                self._scope.cancel()
                with anyio.CancelScope(shield=True):
                    await asyncio.wait({task})
            raise
        if self._failure is not None:
            raise self._failure
        assert self._outcome is not None  # noqa: S101  (set with _handed)
        return self._outcome[0]

    async def _background(self, body: Callable[[], Awaitable[R]]) -> None:
        # Only the body here: the lease's holder starts with the task (`_start_holding`),
        # so a call that never goes async pays for one background task, not a task group
        # too (the whole detour measured about 130 µs a call with the group, at load 5).
        value: tuple[R] | None = None
        try:
            with self._scope:
                value = (await body(),)
        except BaseException as error:  # noqa: BLE001  (handed on, or recorded)
            await self._ended(None, error)
            return
        finally:
            if self._holder is not None:
                self._holder.cancel()
        # No value: the body's scope was cancelled (tasks/cancel, or the round's cancel).
        await self._ended(value, None)

    def _start_holding(self, task_id: str) -> None:
        """Renew the task's lease and watch for its cancellation while the body runs."""
        holder = asyncio.get_running_loop().create_task(self._engine.hold(task_id, self._scope))
        self._holder = holder
        _HOLDERS.add(holder)
        holder.add_done_callback(_HOLDERS.discard)

    def _lost_lease(self) -> bool:
        """Whether the lease's holder stopped the body because its store did not answer."""
        holder = self._holder
        return (
            holder is not None
            and holder.done()
            and not holder.cancelled()
            and holder.exception() is None
            and holder.result() == "lost"
        )

    async def _ended(self, value: tuple[R] | None, error: BaseException | None) -> None:
        task_id = self._task_id
        if task_id is None:  # not a task: the round's own outcome
            if error is not None:
                self._failure = _unwrapped(error)
            elif value is not None:
                self._outcome = value
            else:
                self._failure = anyio.get_cancelled_exc_class()()
            self._handed.set()
            return
        with anyio.CancelScope(shield=True):
            try:
                if value is not None:
                    await self._engine.finish(task_id, result=self._result_json(value[0]))
                elif error is None and self._lost_lease():
                    # Its store stopped answering: the task is failed, as a lost worker's.
                    await self._engine.finish(
                        task_id, error={"code": INTERNAL_ERROR, "message": WORKER_LOST}
                    )
                elif error is None:
                    await self._engine.finish(task_id, cancelled=True)
                else:
                    error = _unwrapped(error)
                    data = self._error_json(error)
                    if isinstance(error, anyio.get_cancelled_exc_class()):
                        # Cancelled from outside the task: the server is shutting down.
                        data = {"code": INTERNAL_ERROR, "message": _STOPPED}
                    elif data is None:
                        logger.error("elicitkit task %s crashed", task_id, exc_info=error)
                        data = {"code": INTERNAL_ERROR, "message": _CRASHED}
                    await self._engine.finish(task_id, error=data)
            except Exception:
                # The lease lapses, and tasks/get reports the worker as lost: closed.
                logger.exception("elicitkit could not record the end of task %s", task_id)


_NOT_CREATED = (
    "The tool could not go on as a task: the server's task store failed (see its log), so "
    "nothing after go_async() ran. Call the tool again in a little while."
)
_STOPPED = (
    "The server stopped while this task ran (it was shut down or restarted), so the task "
    "did not finish and what it had done is unknown. Check the outcome, then call the tool "
    "again."
)
_CRASHED = (
    "The task failed with an unexpected error in the server (see its log), so it did not "
    "finish. Call the tool again, or report the problem to the server's authors."
)


def _unwrapped(error: BaseException) -> BaseException:
    """The one exception inside the body's task group, if it holds just one."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        error = error.exceptions[0]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return error  # pyright: ignore[reportUnknownVariableType]


# Background bodies and lease holders: referenced until done, or the event loop may collect
# them mid-run.
_RUNNING: set[asyncio.Task[None]] = set()
_HOLDERS: set[asyncio.Task[str]] = set()
