"""``go_async()``: after the questions, the rest of a tool call runs as a task.

On MCP 2026-07-28 with a client that declared the Tasks extension on its request, a tool
body that calls ``await go_async()`` answers the call with a ``CreateTaskResult`` and goes
on in the background; the client polls the task. What this module does, SDK-free:

* `Detachable` runs a round's body in a background task from the start, so ``go_async()``
  can answer the call while the body goes on. Until then the round is an ordinary round:
  its result, its question (``NeedInput``) or its error is the round's. A round cancelled
  before ``go_async()`` cancels its body and waits for it.
* Once the task is created, the run switches to the task's delivery
  (`elicitkit._runtime.task_delivery.InTask`): its questions go out through ``tasks/get``.
  The task's books are kept by `elicitkit._runtime.task_engine.TaskEngine`.

What runs once: everything after ``go_async()`` runs exactly once per dialogue. The round
that reaches ``go_async()`` is the dialogue's final round: its answer, the
``CreateTaskResult``, is recorded as the dialogue's outcome (`elicitkit._replay.once`), so
a resent final round gets the same task back without running anything.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

import anyio

from elicitkit._compat import BaseExceptionGroup
from elicitkit._replay.store import CallerFull, StoreFull
from elicitkit._replay.tasks import INTERNAL_ERROR, TASKS_EXTENSION, WORKER_LOST, wire_task
from elicitkit._runtime.context import ToolRun, current_run
from elicitkit._runtime.entry import entry_point
from elicitkit._runtime.task_delivery import InTask
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit.errors import ElicitError, TasksUnsupported

logger = logging.getLogger("elicitkit")

R = TypeVar("R")


def _detached_in_step(run: ToolRun, step: str) -> str | None:
    """Why ``go_async()`` cannot run inside step ``step``; inside a task it just says so."""
    if run.delivery.in_task:  # already a task: nothing detaches, and the step is not recorded
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
    if run.delivery.in_task:
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
        except StoreFull as error:
            self._creating = False
            logger.error("elicitkit could not create a task: %s", error)  # noqa: TRY400
            full = isinstance(error, CallerFull)
            raise ElicitError(_TOO_MANY_OF_YOURS if full else _TOO_MANY_TASKS) from None
        except Exception as error:  # noqa: BLE001  (any store failure: the call is told)
            self._creating = False
            logger.error(  # noqa: TRY400  (one line: a store that is down fails many calls)
                "elicitkit could not create a task: its store (%s) failed: %s",
                type(self._engine.backend).__name__,
                error,
            )
            raise ElicitError(_NOT_CREATED) from None
        self._task_id = record.task_id
        self._start_holding(record.task_id)
        # From here on, the body runs once: its questions wait for answers in the task.
        run.switch_to(InTask(self._engine, record.task_id, run.channel))
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


_TOO_MANY_TASKS = (
    "The tool could not go on as a task: the server is running as many tasks as it can, so "
    "nothing after go_async() ran. Call the tool again in a few minutes."
)
_TOO_MANY_OF_YOURS = (
    "The tool could not go on as a task: this caller already has as many unfinished tasks "
    "as the server lets one caller have, so nothing after go_async() ran. Finish or cancel "
    "one of them (tasks/get shows which wait for an answer), then call the tool again."
)
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
