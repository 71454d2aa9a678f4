"""How a call's questions reach the user: one object per mode, behind one small interface.

The interface is `elicitkit._runtime.context.Delivery` (beside the run that holds one). A
call asks through exactly one delivery at a time, its run's (`ToolRun.delivery`), and
switches it in one call (`ToolRun.switch_to`) when the way changes:

========================  ===============================================================
mode                      questions
========================  ===============================================================
`MidCall`                 2025 eras: ``elicitation/create`` sent mid-call, and awaited
`Replaying`               2026-07-28, and a 2025 era once a question goes to the model
                          (``on_unsupported="ask_model"``): answered from the replay, or
                          the round ends with the unanswered ones (``NeedInput``); a
                          task's legs too (``in_task``): the task's ``inputRequests``
                          show them (`elicitkit.integrations._task_legs`)
========================  ===============================================================

Questions for the model (``"ask_model"``) are a replaying delivery's, their keys in
``ToolRun.keys.for_the_model``: the end of the round turns them into the model's listing
and its sealed ticket (`elicitkit.integrations._asking_call`), not an ``InputRequiredResult``.
``on_unsupported="defaults"`` needs no delivery: such a question is answered where it is
prepared (`elicitkit._runtime.asking.prepare`), whatever the mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, NoReturn, Protocol

import elicitkit._clock as clock
from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.state import Replay, WireQuestion
from elicitkit._runtime.answers import Asked, Rejected, need_input, rebuilt, replayed, typed_result
from elicitkit._runtime.context import Delivery, ToolRun
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.retries import kept_values
from elicitkit._runtime.url_mode import (
    ask_url_by_replay,
    ask_url_mid_call,
    require_url_by_replay,
    require_url_mid_call,
)
from elicitkit.errors import InvalidContent


class FormReasons(Protocol):
    """Why a call cannot show forms (its channel, or the delivery before)."""

    def why_no_forms(self) -> str | None:
        """See `elicitkit._runtime.context.Channel.why_no_forms`."""
        ...


class UrlReasons(Protocol):
    """Why a call cannot open a URL (its URL channel, or the delivery before)."""

    def why_no_url(self) -> str | None:
        """See `elicitkit._runtime.url_routes.UrlChannel.why_no_url`."""
        ...


class Reasons(FormReasons, UrlReasons, Protocol):
    """Why a call cannot show forms or open a URL."""


class FormSender(FormReasons, Protocol):
    """What a mid-call delivery sends through: a channel's ``send``."""

    async def send(
        self, params: dict[str, Any], within: float | None, *, key: str | None = None
    ) -> Mapping[str, Any]:
        """See `elicitkit._runtime.context.Channel.send`."""
        ...


class MidCall:
    """2025 eras: each question is an ``elicitation/create`` request, awaited mid-call."""

    replay: Replay | None = None
    in_task: bool = False

    def __init__(self, channel: FormSender, urls: UrlReasons) -> None:
        """Send through ``channel``; ``urls`` says whether a URL can be opened."""
        self._channel = channel
        self._urls = urls

    def why_no_forms(self) -> str | None:
        return self._channel.why_no_forms()

    def why_no_url(self) -> str | None:
        return self._urls.why_no_url()

    async def send(
        self, params: dict[str, Any], within: float | None, key: str
    ) -> Mapping[str, Any]:
        """Send one question and wait for the client's raw answer."""
        return await self._channel.send(params, within, key=key)

    def carried(self, asked: Asked) -> ElicitResultTyped[Any] | None:  # noqa: ARG002  (the interface's)
        return None

    def fresh(self, question: WireQuestion) -> bool:  # noqa: ARG002  (the interface's)
        return True

    def seconds(self, started: float) -> float | None:
        return clock.monotonic() - started

    async def ask(self, asked: Asked) -> ElicitResultTyped[Any]:
        form, question = asked.form, asked.question
        raw = await self.send(question.params, question.timeout, question.key)
        try:
            return typed_result(form, raw)
        except InvalidContent as error:
            kept = kept_values(form.spec, raw.get("content"), error.errors, form.protocol)
            raise Rejected(error, kept) from None

    async def ask_all(self, asked: Sequence[Asked]) -> tuple[ElicitResultTyped[Any], ...]:
        # One request per question, in order: the handshake eras have no batch.
        results: list[ElicitResultTyped[Any]] = []
        for one in asked:
            if one.answered is not None:
                results.append(one.answered)
                continue
            question = one.question
            raw = await self.send(question.params, question.timeout, question.key)
            results.append(typed_result(one.form, raw))
        return tuple(results)

    async def ask_url(
        self,
        run: ToolRun,
        message: str,
        url: str | Callable[[str], str],
        *,
        elicitation_id: str | None,
        timeout: float | None,
        completed: Callable[[str], Awaitable[bool]] | None,  # noqa: ARG002  (2026 only)
        key: str | None,
        model: bool,  # noqa: ARG002  (a question for the model switched to a replay first)
    ) -> ElicitResultTyped[str]:
        return await ask_url_mid_call(
            run, message, url, elicitation_id=elicitation_id, timeout=timeout, key=key
        )

    async def require_url(
        self, run: ToolRun, message: str, url: str, *, elicitation_id: str | None, key: str | None
    ) -> NoReturn:
        await require_url_mid_call(run, message, url, elicitation_id=elicitation_id, key=key)

    def for_the_model(self, limits: ReplayLimits) -> Delivery:
        # The rest of the dialogue runs as on 2026-07-28, across answer_form's calls.
        return Replaying(Replay(limits=limits), self, in_task=self.in_task)


class Replaying:
    """2026-07-28 (and a dialogue handed to the model): answers come with the round.

    An unanswered question ends the round (``NeedInput``, an ``InputRequiredResult`` or the
    model's listing); the client runs the handler again with its answer.
    """

    def __init__(self, replay: Replay, reasons: Reasons, *, in_task: bool = False) -> None:
        """Answer from ``replay``; ``reasons`` says why forms or URLs cannot be shown."""
        self.replay: Replay = replay
        self.in_task = in_task
        self._reasons = reasons

    def why_no_forms(self) -> str | None:
        return self._reasons.why_no_forms()

    def why_no_url(self) -> str | None:
        return self._reasons.why_no_url()

    def carried(self, asked: Asked) -> ElicitResultTyped[Any] | None:
        question = asked.question
        carried = self.replay.carried(question.key, question.digest)
        if carried is not None and carried.action == "accept":
            return rebuilt(asked.form, carried)
        return None

    def fresh(self, question: WireQuestion) -> bool:
        return self.replay.carried(question.key, question.digest) is None

    def seconds(self, started: float) -> float | None:  # noqa: ARG002  (the interface's)
        # Since the round that asked: the user answered between two rounds.
        asked_at = self.replay.asked_at
        if asked_at is None:
            return None
        return max(0.0, clock.now() - asked_at)

    async def ask(self, asked: Asked) -> ElicitResultTyped[Any]:
        replay, form, question = self.replay, asked.form, asked.question
        try:
            answer = replayed(replay, form, question)
        except InvalidContent as error:
            carried = replay.carried(question.key, question.digest)
            raise Rejected(error, [] if carried is None else carried.kept) from None
        if answer is None:
            raise need_input(replay, (question,))
        return answer

    async def ask_all(self, asked: Sequence[Asked]) -> tuple[ElicitResultTyped[Any], ...]:
        replay = self.replay
        answered: list[ElicitResultTyped[Any]] = []
        unanswered: list[WireQuestion] = []
        for one in asked:
            question = one.question
            result = (
                one.answered if one.answered is not None else replayed(replay, one.form, question)
            )
            if result is None:
                unanswered.append(question)
            else:
                answered.append(result)
        if unanswered:
            raise need_input(replay, tuple(unanswered))
        return tuple(answered)

    async def ask_url(
        self,
        run: ToolRun,
        message: str,
        url: str | Callable[[str], str],
        *,
        elicitation_id: str | None,  # noqa: ARG002  (the id comes from the state)
        timeout: float | None,
        completed: Callable[[str], Awaitable[bool]] | None,
        key: str | None,
        model: bool,
    ) -> ElicitResultTyped[str]:
        return await ask_url_by_replay(
            run,
            self.replay,
            message,
            url,
            completed=completed,
            key=key,
            timeout=None if model else timeout,
            model=model,
        )

    async def require_url(
        self,
        run: ToolRun,
        message: str,
        url: str,
        *,
        elicitation_id: str | None,  # noqa: ARG002  (the id comes from the state)
        key: str | None,
    ) -> NoReturn:
        require_url_by_replay(run, self.replay, message, url, key=key)

    def for_the_model(self, limits: ReplayLimits) -> Delivery:  # noqa: ARG002  (the interface's)
        return self
