"""The router's last handler: the asking call, run once per round, at most once per dialogue.

A ``tools/call``, ``prompts/get`` or ``resources/read`` runs with elicitkit's per-call
state (`ToolRun`) in its context variable, so ``ask()`` needs no ``ctx`` parameter:

* on the handshake eras (2025-06-18, 2025-11-25) ``ask()`` sends ``elicitation/create`` on
  the call's own stream (`SdkChannel`) and waits for the answer;
* on 2026-07-28 the run-ending `NeedInput` becomes an ``InputRequiredResult``, and the
  answers are read back on the client's retry. The SDK's ``RequestStateBoundary`` (outside
  elicitkit's middleware) seals the ``requestState``, so only state the server minted
  reaches this handler. The later rounds of a dialogue run through `AtMostOnce`, which
  claims, records and replays (`_outcomes` says how the SDK's results become records);
* questions handed to the model become its listing with a ticket (`Companion`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any, cast

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.request_state import authenticated_principal
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit._compat import BaseExceptionGroup
from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.once import AtMostOnce, RoundLease
from elicitkit._replay.state import NeedInput, Replay, WireQuestion
from elicitkit._runtime.context import ToolRun, current_run
from elicitkit._runtime.delivery import MidCall, Replaying
from elicitkit._runtime.model_listing import HandedToModel
from elicitkit._runtime.steps import CALL_TAG, observe, observers
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit._runtime.tasks import GoneAsync, TaskStarter
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit._runtime.url_routes import UrlRouter
from elicitkit.errors import ElicitError
from elicitkit.integrations._answer_form import Companion, corrections_of
from elicitkit.integrations._channel import SdkChannel
from elicitkit.integrations._host import Host
from elicitkit.integrations._outcomes import (
    ASKING_METHODS,
    OUTCOMES,
    RoundOutcomes,
    error_outcome,
    handed_result,
)
from elicitkit.integrations._task_requests import (
    TaskLegStarter,
    created_task,
    declares_tasks,
    task_answer,
    why_no_tasks,
)

# The logger of the module this code grew in: a crash beside a question logs where it did.
logger = logging.getLogger("elicitkit.integrations.mcp")


class AskingCall:
    """Runs a handler that may ask: its rounds, its dialogue's books, its questions' wire form."""

    def __init__(
        self,
        host: Host,
        *,
        limits: ReplayLimits,
        once: AtMostOnce,
        url_router: UrlRouter | None,
        tasks: TaskEngine,
        on_unsupported: OnUnsupported,
        companion: Companion | None,
    ) -> None:
        self.host = host
        self.limits = limits
        self.once = once
        self.router = url_router
        self.tasks = tasks
        self.on_unsupported: OnUnsupported = on_unsupported
        self.companion = companion
        # Runs the legs of the tasks go_async() starts (set by the router, which makes both).
        self.legs: TaskLegStarter | None = None

    def claims(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """A request of a method whose handler may ask (a notification never asks)."""
        return ctx.method in ASKING_METHODS and ctx.request_id is not None

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Run the request's handler as one round of its dialogue."""
        companion = self.companion
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        params = ctx.params or {}
        replay = (
            Replay.from_request(
                params.get("inputResponses"), params.get("requestState"), self.limits
            )
            if modern
            else None
        )
        run = self.new_run(ctx, replay, modern=modern)
        # Whose count a new dialogue or task is in (anonymous callers share one).
        principal = authenticated_principal(ctx)
        legs = self.legs
        starter = None
        if (
            modern
            and ctx.method == "tools/call"
            and replay is not None
            and legs is not None
            and declares_tasks(ctx)
        ):
            if legs.can_run():
                starter = TaskStarter(self.tasks, call=_task_call(ctx), principal=principal)
                run.detacher = starter
            else:
                run.no_tasks_here = legs.why_not()
        else:
            run.no_tasks = why_no_tasks(ctx, modern=modern)
        outcomes = RoundOutcomes(OUTCOMES[ctx.method])
        token = current_run.set(run)
        try:
            round_ = functools.partial(self.run_round, ctx, call_next, run, outcomes)
            if replay is None:
                if companion is None:
                    return await round_()
                # A question handed to the model starts a dialogue on a 2025 era too: it is
                # opened in the store before its ticket leaves the server.
                return await self.once.begin(
                    round_, lambda: _dialogue(run), outcomes, principal=principal
                )
            if replay.dialogue is None:
                # Round one: a round that asks mints the dialogue, opened in the store
                # before its state leaves the server.
                result = await self.once.begin(
                    round_, lambda: replay.dialogue, outcomes, principal=principal
                )
            else:
                run.lease = RoundLease(self.once, replay.dialogue)
                result = await self.once.run(
                    replay.dialogue, round_, outcomes, known=replay.known, lease=run.lease
                )
        finally:
            current_run.reset(token)
        if legs is None or starter is None:
            return result
        if starter.record is not None and created_task(result) == starter.record.task_id:
            # The call's answer is recorded: the task's first leg may run now.
            await legs.start(starter.record, ctx, call_next)
            return result
        # A resent final round replays the task it created: as the task is now.
        return await legs.as_it_is(result, ctx, call_next)

    def new_run(
        self,
        ctx: ServerRequestContext[Any, Any],
        replay: Replay | None,
        *,
        modern: bool,
        in_task: bool = False,
    ) -> ToolRun:
        """The run of one round; ``in_task``: a leg of a task (`_task_legs`)."""
        host = self.host
        channel = SdkChannel(ctx, modern=modern, host=host)
        return ToolRun(
            channel,
            MidCall(channel, channel)
            if replay is None
            else Replaying(replay, channel, in_task=in_task),
            channel,
            # Worked out by the first ask() only: a call that never asks never reads it.
            refuses=functools.partial(host.refusal, ctx),
            target=_target(ctx),
            url_router=self.router,
            steps=self.once if modern or replay is not None else None,
            call_tag=_call_tag(ctx.params or {}) if observers else None,
            on_unsupported=self.on_unsupported,
            # A listing for the model is a tool's result: prompts and resources cannot.
            answer_tool=self.companion is not None and ctx.method == "tools/call",
            limits=self.limits,
        )

    async def run_round(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
        run: ToolRun,
        outcomes: RoundOutcomes,
        *,
        answering: bool = False,
    ) -> HandlerResult:
        """Run the handler; turn its question(s) into an ``InputRequiredResult``.

        Questions handed to the model become its listing with a ticket instead.
        """
        if observers:  # the testing kit counts the rounds that run the body
            observe("body", _target(ctx), run.call_tag)
        try:
            return await call_next(ctx)
        except HandedToModel as handed:  # @fill_missing's listing, for a tool call only
            return handed_result(handed)
        except GoneAsync as gone:  # go_async(): the call is answered with the task
            return task_answer(gone.record)
        except BaseException as signal:  # noqa: BLE001  (our question, else re-raised by _failure)
            went = _gone(signal)
            if went is not None:  # from a task group of the body
                return task_answer(went.record)
            questions = _questions(signal)
            replay = run.delivery.replay
            if not questions or replay is None:
                return _failure(signal, crash_text=self.host.crash_text(_target(ctx)))
            state = questions[0].state if len(questions) == 1 else None
            asked = _merged(questions)
            if state is None:  # several concurrent ask()s ended the run together
                try:
                    state = replay.next_state(asked)
                except ElicitError as error:
                    return error_outcome(ctx.method, str(error))
            if (
                run.keys.for_the_model
                and self.companion is not None
                and replay.dialogue is not None
            ):
                outcomes.ticketed = True
                params = ctx.params or {}
                arguments: object = params.get("arguments")
                return await self.companion.ticket_result(
                    ctx,
                    tool=str(params.get("name")),
                    arguments=cast("dict[str, Any]", arguments)
                    if isinstance(arguments, dict)
                    else {},
                    dialogue=replay.dialogue,
                    state=state,
                    questions=asked,
                    model_keys=run.keys.for_the_model,
                    corrections=corrections_of(replay.answers, asked),
                    answering=answering,
                )
            return types.InputRequiredResult(
                input_requests={question.key: _elicit_request(question) for question in asked},
                request_state=state,
            )


def _task_call(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any]:
    """The call a task's legs replay: its params, without the round's own answers."""
    params = ctx.params or {}
    return {
        key: value
        for key, value in params.items()
        if key not in ("requestState", "inputResponses", "task")
    }


def _gone(signal: BaseException) -> GoneAsync | None:
    """The `GoneAsync` that ended the run from inside a task group, if any."""
    if not isinstance(signal, BaseExceptionGroup):
        return None
    found: BaseException | None = cast("BaseExceptionGroup[BaseException]", signal)
    while isinstance(found, BaseExceptionGroup):
        gone, _others = found.split(GoneAsync)
        found = None if gone is None else gone.exceptions[0]
    return found if isinstance(found, GoneAsync) else None


def _dialogue(run: ToolRun) -> str | None:
    """The dialogue a 2025 era's call started by handing a question to the model, if any."""
    replay = run.delivery.replay
    return None if replay is None else replay.dialogue


def _call_tag(params: Mapping[str, Any]) -> str | None:
    """The testing kit's tag of this call, from the request's ``_meta``, or ``None``."""
    meta: object = params.get("_meta")
    tag = cast("dict[str, object]", meta).get(CALL_TAG) if isinstance(meta, dict) else None
    return tag if isinstance(tag, str) else None


def _target(ctx: ServerRequestContext[Any, Any]) -> str:
    params = ctx.params or {}
    return str(params.get("uri") if ctx.method == "resources/read" else params.get("name"))


def _elicit_request(question: WireQuestion) -> types.ElicitRequest:
    """The SDK's request model of a question.

    Built afresh each time: it takes 2 to 4 microseconds (4 to 20 fields, measured with
    timeit), less than dumping the result it goes into, so a cache would only add state.
    """
    return types.ElicitRequest.model_validate(
        {"method": "elicitation/create", "params": question.params}
    )


def _merged(questions: list[NeedInput]) -> tuple[WireQuestion, ...]:
    """All questions of the run's `NeedInput` signal(s), each key once, in order."""
    seen: dict[str, WireQuestion] = {}
    for need in questions:
        for question in need.questions:
            seen.setdefault(question.key, question)
    return tuple(seen.values())


def _failure(signal: BaseException, *, crash_text: str) -> types.CallToolResult:
    """Report a run that failed beside an unanswered ask() in a task group, or re-raise.

    A task group that holds a `NeedInput` is a `BaseExceptionGroup`, which the SDK's tool
    runner lets through. Without the question it is an ordinary crash: report it as the SDK
    reports one (``crash_text``, naming only the tool), with the traceback in the log.
    """
    if not isinstance(signal, BaseExceptionGroup):
        raise signal
    group = cast("BaseExceptionGroup[BaseException]", signal)
    questions, others = group.split(NeedInput)
    if questions is None or others is None or not isinstance(others, Exception):
        raise signal  # no question in it, or a cancellation: not ours to handle
    logger.error("%s", crash_text, exc_info=others)
    text = types.TextContent(type="text", text=crash_text)
    return types.CallToolResult(content=[text], is_error=True)


def _questions(signal: BaseException) -> list[NeedInput]:
    """The question signal(s) that ended the run, also from task groups (only if alone)."""
    if isinstance(signal, NeedInput):
        return [signal]
    if isinstance(signal, BaseExceptionGroup):
        group = cast("BaseExceptionGroup[BaseException]", signal)
        questions, others = group.split(NeedInput)
        if questions is not None and others is None:
            return list(_leaves(questions))
    return []


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[NeedInput]:
    found: list[NeedInput] = []
    for inner in group.exceptions:
        if isinstance(inner, BaseExceptionGroup):
            found.extend(_leaves(cast("BaseExceptionGroup[BaseException]", inner)))
        elif isinstance(inner, NeedInput):
            found.append(inner)
    return found
