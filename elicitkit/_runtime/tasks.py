"""``go_async()``: after the questions, the rest of a tool call runs as a task.

On MCP 2026-07-28 with a client that declared the Tasks extension on its request, a tool
body that calls ``await go_async()`` answers the call with a ``CreateTaskResult``; the
client polls the task. What this module does, SDK-free:

* `TaskStarter` is the round's way to become a task: ``go_async()`` creates the task's
  record, holding the call and a ``requestState`` that carries every answer and durable
  step so far, and ends the round with `GoneAsync`, which the integration answers with
  the ``CreateTaskResult``.
* The task's work then runs in *legs* on a queue (`elicitkit._runtime.leg_queue`): each
  leg runs the tool from the top, replaying that state (``go_async()`` returns ``True`` at
  once in a leg), and ends with the result, or with questions the task shows in
  ``tasks/get`` until ``tasks/update`` answers them and the next leg is queued
  (`elicitkit.integrations._task_legs`). The task's books are kept by
  `elicitkit._runtime.task_engine.TaskEngine`.

What runs once: a durable ``step()`` runs once per task, across legs, workers and crashes
(a plain step interrupted by a crash fails the task; a ``retry_safe`` one runs again);
any other code runs again in each leg, as in each round of questions. The round that
reaches ``go_async()`` is the dialogue's final round: its answer, the ``CreateTaskResult``,
is recorded as the dialogue's outcome (`elicitkit._replay.once`), so a resent final round
gets the same task back without running anything.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio

from elicitkit._replay.store import CallerFull, StoreFull
from elicitkit._replay.tasks import TASKS_EXTENSION, TaskRecord
from elicitkit._runtime.context import ToolRun, current_run
from elicitkit._runtime.entry import entry_point
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit.errors import ElicitError, TasksUnsupported

logger = logging.getLogger("elicitkit")


def _detached_in_step(run: ToolRun, step: str) -> str | None:
    """Why ``go_async()`` cannot run inside step ``step``; inside a task it just says so."""
    if run.delivery.in_task:  # a leg of the task: nothing detaches, and nothing is recorded
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
    this call, the call is answered with a task the client polls, and the tool's work
    goes on as that task, on a worker of the server: the tool runs again from the top,
    replaying its answers and durable steps, and this call returns ``True`` at once.
    Questions asked after it reach the user through the task (``tasks/get`` shows them,
    ``tasks/update`` answers them); while they wait, no worker holds the task. Put side
    effects in ``step()``: a step runs once per task, whatever happens to the workers.
    Otherwise (another era, or a client without the extension) the body simply goes on,
    synchronously.

    Args:
        message: The task's status message while it works (e.g. "Rendering the report").
        required: Refuse a client that cannot follow a task (the extension's -32021
            error) instead of going on synchronously.

    Returns:
        ``True`` if the rest of the body runs as a task (also when called again inside
        it), ``False`` if it goes on synchronously.

    Raises:
        TasksUnsupported: ``required`` is set and the client cannot follow a task.
        ElicitError: The task could not be created (its store is full or failed): nothing
            after ``go_async()`` ran.
        ElicitError: ``go_async()`` was called outside a tool call of a server
            elicitkit is installed on.
        StepError: ``go_async()`` was called inside a durable step's function.
    """
    run = current_run.get()
    if run.delivery.in_task:
        return True
    if run.detacher is None:
        if required and run.no_tasks_here is not None:
            raise ElicitError(
                f"The tool {run.target!r} runs only as a task, and this server cannot run "
                f"tasks: {run.no_tasks_here}"
            )
        if required:
            raise TasksUnsupported(
                f"The tool {run.target!r} runs only as a task, and this client cannot "
                f"follow a task ({run.no_tasks}), so it was not run on. Call it from a "
                f"client that declares the {TASKS_EXTENSION} extension (MCP 2026-07-28)."
            )
        return False
    await run.detacher.detach(run, message)
    return True


class GoneAsync(BaseException):
    """Ends the round at ``go_async()``: the call is answered with the task ``record``.

    A `BaseException`, as `NeedInput` is, so a tool's ``except Exception:`` cannot keep
    the round going past ``go_async()``.
    """

    def __init__(self, record: TaskRecord) -> None:
        """Carry the task the call went on as."""
        super().__init__(record.task_id)
        self.record = record


class TaskStarter:
    """How a round on 2026-07-28 becomes a task: ``go_async()`` creates it (`detach`).

    Args (of ``__init__``):
        engine: The server's task engine.
        call: The ``tools/call`` params every leg replays.
        principal: The authenticated caller, or ``None``.

    Attributes:
        record: The task this round went on as, once created.
    """

    def __init__(
        self, engine: TaskEngine, *, call: Mapping[str, Any], principal: str | None
    ) -> None:
        self._engine = engine
        self._call = call
        self._principal = principal
        self.record: TaskRecord | None = None
        self._creating: anyio.Event | None = None

    async def detach(self, run: ToolRun, message: str | None) -> None:
        """See `elicitkit._runtime.context.Detacher` (called by ``go_async()``).

        Raises:
            GoneAsync: Always, once the task exists: the round ends, the legs go on.
            ElicitError: The task store refused or failed; nothing after ``go_async()`` ran.
        """
        if self._creating is not None:  # a sibling task of the body got here first
            await self._creating.wait()
            if self.record is not None:
                raise GoneAsync(self.record)
        replay = run.delivery.replay
        if replay is None:  # not a replaying round: the integration offers no starter then
            raise ElicitError("go_async() found no replayable round to go on from.")
        self._creating = anyio.Event()
        try:
            # Everything the round knows so far, answers and steps, for the legs to replay.
            state = replay.next_state(())
            self.record = await self._engine.create(
                dialogue=replay.dialogue,
                principal=self._principal,
                message=message,
                call=self._call,
                state=state,
            )
        except StoreFull as error:
            logger.error("elicitkit could not create a task: %s", error)  # noqa: TRY400
            full = isinstance(error, CallerFull)
            raise ElicitError(_TOO_MANY_OF_YOURS if full else _TOO_MANY_TASKS) from None
        except ElicitError:
            raise
        except Exception as error:  # noqa: BLE001  (any store failure: the call is told)
            logger.error(  # noqa: TRY400  (one line: a store that is down fails many calls)
                "elicitkit could not create a task: its store (%s) failed: %s",
                type(self._engine.backend).__name__,
                error,
            )
            raise ElicitError(_NOT_CREATED) from None
        finally:
            self._creating.set()
        raise GoneAsync(self.record)


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
