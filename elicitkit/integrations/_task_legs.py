"""The legs of a task: each a run of the tool from the top, replaying what the task knows.

A task's record holds the call (its name and arguments) and a ``requestState`` with every
answer and durable step so far (`elicitkit._runtime.tasks.TaskStarter`). A leg is one more
round of that dialogue, run by a worker instead of a client's retry:

* it replays the state with the answers ``tasks/update`` brought (``go_async()`` returns
  ``True`` at once; an answered ``ask()`` returns its answer; a recorded ``step()`` its
  outcome; a plain step whose earlier run was interrupted fails the task, naming it);
* it ends with the tool's result (the task completes), or with questions: the task shows
  them in ``tasks/get`` and waits, holding no worker, until the last one is answered and
  the next leg is queued (`TaskRequests` queues it, with that request's context);
* while it runs, its worker holds it (`TaskEngine.hold`): a leg whose worker dies is
  orphaned when its lease lapses, and the next request that sees the task queues it again.

A leg runs through the same middleware chain as a request (the SDK's ``call_next`` reads
the method and params off the context it is given), with the context of the request that
queued it: a ``tools/call`` of the task's call, on that request's session.

**Whose leg it is.** A leg runs as the task's owner, or as nobody, never as another caller.
Queued in this process, it runs in the context variables of the request that queued it
(the ``go_async()`` round, the ``tasks/update`` that answered the last question, or the
``tasks/get`` that found it orphaned: each its owner's, the task being its owner's alone),
so the SDK's ``get_access_token()`` says who the owner is, as in the call. Delivered from
another worker of a shared Docket, with no request of its owner at hand here, it runs with
no caller at all: empty context variables and no HTTP request. The worker itself starts in
an empty context: before, every leg of a process read the identity of the request that
happened to start that process's worker.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
import secrets
from collections.abc import Mapping
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.request_state import authenticated_principal

from elicitkit._compat import BaseExceptionGroup
from elicitkit._lru import Lru
from elicitkit._replay.state import Replay
from elicitkit._replay.tasks import INTERNAL_ERROR, TaskRecord
from elicitkit._runtime.context import current_run
from elicitkit._runtime.leg_queue import TASKS_EXTRA_HINT, LegQueue, docket_available
from elicitkit._runtime.steps import CALL_TAG
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit.integrations._asking_call import AskingCall
from elicitkit.integrations._outcomes import OUTCOMES, RoundOutcomes
from elicitkit.integrations._task_requests import created_task, task_answer, task_result

logger = logging.getLogger("elicitkit")

Template = tuple[ServerRequestContext[Any, Any], CallNext]
Queued = tuple[ServerRequestContext[Any, Any], CallNext, contextvars.Context]
"""A leg's request context, and the context variables of the request that queued it."""

_CRASHED = (
    "The task failed with an unexpected error in the server (see its log), so it did not "
    "finish. Call the tool again, or report the problem to the server's authors."
)
_UNREADABLE = (
    "The server cannot read what this task's next part replays (its record was sealed with "
    "another key, or altered in the store), so the task stops. Call the tool again."
)
_NO_CONTEXT = (
    "This server process has served no request yet, so it cannot run a part of a task "
    "queued elsewhere; another worker will. (A dedicated worker must also serve requests.)"
)


class TaskLegs:
    """Runs the legs of one server's tasks, and queues them (`LegQueue`).

    Args (of ``__init__``):
        engine: The server's task engine.
        asking: The router's asking call, which runs a round of a dialogue.
        url: The Redis URL of a Docket every worker shares, or ``None`` for an embedded one.
        name: The Docket's name (the same on every worker of the server).
    """

    def __init__(
        self, engine: TaskEngine, asking: AskingCall, *, url: str | None, name: str
    ) -> None:
        self.engine = engine
        self.asking = asking
        self.queue = LegQueue(self.run, url=url, name=name, resume_after=engine.lease)
        # The context each leg was queued with (a leg runs on this process's worker, as a
        # rule, and reads the capabilities of the request that queued it); bounded, since
        # a leg queued here may run on another worker of a shared Docket.
        self._queued: Lru[tuple[str, int], Queued] = Lru(1024)
        self._latest: Template | None = None
        self._can_run: bool | None = None
        self._told = False

    def saw(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> None:
        """Remember a task request's context: a leg delivered here from elsewhere runs with it.

        On a shared Docket this process's worker starts too, so it takes legs that Docket
        redelivers from a dead worker even before this process queued one.
        """
        self._latest = (ctx, call_next)
        if self.can_run():
            self.queue.warm()

    async def start(
        self, record: TaskRecord, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> None:
        """Queue ``record``'s next leg, to run with the context of request ``ctx``.

        A queue that fails is logged, not raised: the leg's lease lapses, and the next
        request that sees the task queues it again.
        """
        self._latest = (ctx, call_next)
        # The request's context variables (who is calling, above all), for the leg to run in.
        queued = (ctx, call_next, contextvars.copy_context())
        self._queued.put((record.task_id, record.leg), queued)
        try:
            await self.queue.put(record.task_id, record.leg)
        except Exception as error:  # noqa: BLE001  (one line; the lease brings it back)
            logger.error(  # noqa: TRY400
                "elicitkit could not queue part %s of task %s: %s",
                record.leg,
                record.task_id,
                error,
            )
            if not self.queue_works():
                await self.engine.fail(
                    record.task_id, {"code": INTERNAL_ERROR, "message": str(error)}
                )

    def queue_works(self) -> bool:
        """Whether the queue can run at all (Docket is installed)."""
        return self.can_run()

    def can_run(self) -> bool:
        """Whether this server can run tasks: Docket (the ``tasks`` extra) is installed.

        Looked up once (without importing Docket): a server without it offers no tasks,
        and ``go_async()`` goes on synchronously.
        """
        if self._can_run is None:
            self._can_run = docket_available()
        return self._can_run

    def why_not(self) -> str:
        """Why this server cannot run tasks at all: a sentence, with the fix.

        Logged once: a client asked for a task, and the call goes on synchronously.
        """
        why = f"Docket is not installed. {TASKS_EXTRA_HINT}"
        if not self._told:
            self._told = True
            logger.warning("elicitkit ran a go_async() call synchronously: %s", why)
        return why

    async def as_it_is(
        self, result: Any, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> Any:
        """A replayed ``CreateTaskResult`` as the task is now, its lost leg queued again.

        A resent final round replays the answer recorded when the task was created, which
        said ``working``; ``tasks/get`` may say more since (``completed``, ``failed``).
        """
        task_id = created_task(result)
        if task_id is None:
            return result
        record = await self.engine.get(task_id, authenticated_principal(ctx))
        if record is None:
            return result
        if record.leg_lost:
            await self.start(record, ctx, call_next)
        return task_answer(record)

    async def run(self, task_id: str, leg: int) -> None:
        """Run leg ``leg`` of task ``task_id`` here, if it is still this worker's to run."""
        token = secrets.token_urlsafe(8)
        record = await self.engine.claim(task_id, leg, token)
        if record is None:
            return  # run, ended, or another worker's
        queued = self._queued.pop((task_id, leg))
        if queued is not None:
            template: Template | None = queued[:2]
            variables = queued[2]
        else:
            # Another worker's leg: run as nobody, on no caller's HTTP request.
            latest = self._latest
            template = None if latest is None else (_as_nobody(latest[0]), latest[1])
            variables = contextvars.Context()
        if template is None:
            logger.warning("elicitkit did not run task %s here: %s", task_id, _NO_CONTEXT)
            return  # the claim's lease lapses; a worker that served a request takes it
        if not record.call or record.state is None:
            await self.engine.finish(
                task_id, token, error={"code": INTERNAL_ERROR, "message": _UNREADABLE}
            )
            return
        try:
            # A task of its own, made in those variables (a copy: the leg's changes stay
            # its own). Cancelling this one cancels it, as it waits on it.
            loop = asyncio.get_running_loop()
            await variables.run(loop.create_task, self._run(record, token, template))
        except Exception:
            # elicitkit's own fault, not the tool's (the tool's errors end the task above):
            # the task must not sit "working" for its lifetime.
            logger.exception("elicitkit could not run part %s of task %s", leg, task_id)
            with anyio.CancelScope(shield=True):
                await self.engine.finish(
                    task_id, token, error={"code": INTERNAL_ERROR, "message": _CRASHED}
                )

    async def _run(self, record: TaskRecord, token: str, template: Template) -> None:
        engine, asking = self.engine, self.asking
        task_id = record.task_id
        base, call_next = template
        ctx = _leg_context(base, record)
        replay = Replay.from_request(record.answers, record.state, asking.limits)
        run = asking.new_run(ctx, replay, modern=True, in_task=True)
        run.answer_tool = False  # the call was answered: no model can answer a question now
        scope = anyio.CancelScope()
        why = ""
        result: Any = None
        failure: BaseException | None = None
        current = current_run.set(run)
        try:
            async with anyio.create_task_group() as group:

                async def hold() -> None:
                    nonlocal why
                    why = await engine.hold(task_id, token, scope)

                group.start_soon(hold)
                try:
                    with scope:
                        outcomes = RoundOutcomes(OUTCOMES["tools/call"])
                        result = await asking.run_round(ctx, call_next, run, outcomes)
                except BaseException as error:  # noqa: BLE001  (recorded as the task's end)
                    failure = _unwrapped(error)
                finally:
                    group.cancel_scope.cancel()
        finally:
            current_run.reset(current)
        with anyio.CancelScope(shield=True):
            try:
                await self._ended(record, token, why, result, failure)
            except Exception:
                # The lease lapses, the leg is orphaned and runs again: closed either way.
                logger.exception("elicitkit could not record the end of task %s", task_id)
        if isinstance(failure, anyio.get_cancelled_exc_class()):
            raise failure

    async def _ended(
        self,
        record: TaskRecord,
        token: str,
        why: str,
        result: Any,
        failure: BaseException | None,
    ) -> None:
        engine, task_id = self.engine, record.task_id
        if why in ("ended", "taken", "gone", "lost"):
            return  # not this worker's to record any more
        if isinstance(failure, anyio.get_cancelled_exc_class()):
            # Cancelled from outside: the server is stopping (a deploy, say). The leg is
            # given up at once, so the next request that sees the task starts it again on
            # a live worker; a plain step it was inside reads as interrupted there.
            await engine.release(task_id, token)
            return
        if why == "cancel":
            await engine.finish(task_id, token, cancelled=True)
        elif failure is not None:
            data = OUTCOMES["tools/call"].error_data(failure)
            if data is None:
                logger.error("elicitkit task %s crashed", task_id, exc_info=failure)
                data = {"code": INTERNAL_ERROR, "message": _CRASHED}
            await engine.finish(task_id, token, error=data)
        elif isinstance(result, types.InputRequiredResult):
            questions = {
                key: request.model_dump(by_alias=True, mode="json", exclude_none=True)
                for key, request in (result.input_requests or {}).items()
            }
            state = result.request_state or ""
            # The questions' deadlines, as the state the next leg replays carries them.
            deadlines = Replay.from_request(None, state).deadlines
            await engine.wait_for_answers(task_id, token, questions, state, deadlines)
        else:
            await engine.finish(task_id, token, result=task_result(result))


def _leg_context(
    base: ServerRequestContext[Any, Any], record: TaskRecord
) -> ServerRequestContext[Any, Any]:
    """A ``tools/call`` of the task's call, as the request that queued the leg would send it.

    Its ``_meta`` is that request's (on 2026-07-28 it says who the client is and what it
    can do), without a progress token, which would name a request long answered; the
    testing kit's tag of the call comes from the call.
    """
    call = dict(record.call or {})
    called: object = call.pop("_meta", None)
    queued: object = (base.params or {}).get("_meta")
    meta = {
        key: value
        for key, value in cast(
            "dict[str, Any]", queued if isinstance(queued, Mapping) else {}
        ).items()
        if key not in ("progressToken", CALL_TAG)
    }
    tag = cast("dict[str, object]", called).get(CALL_TAG) if isinstance(called, Mapping) else None
    if tag is not None:
        meta[CALL_TAG] = tag
    call["_meta"] = meta
    return dataclasses.replace(
        base,
        method="tools/call",
        params=call,
        request_id=f"elicitkit-task-{record.task_id}-{record.leg}",
    )


def _as_nobody(base: ServerRequestContext[Any, Any]) -> ServerRequestContext[Any, Any]:
    """``base`` without what says who sent it: its HTTP request and its streams."""
    return dataclasses.replace(
        base, request=None, close_sse_stream=None, close_standalone_sse_stream=None
    )


def _unwrapped(error: BaseException) -> BaseException:
    """The one exception inside the body's task group, if it holds just one."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        error = error.exceptions[0]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return error  # pyright: ignore[reportUnknownVariableType]
