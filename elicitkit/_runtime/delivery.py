"""How a call's questions reach the user: one small interface, one object per mode.

A call asks through exactly one delivery at a time, its run's (`ToolRun.delivery`), and
switches it in one call (`ToolRun.switch_to`) when the way changes:

========================  ===============================================================
mode                      questions
========================  ===============================================================
`MidCall`                 2025 eras: ``elicitation/create`` sent mid-call, and awaited
`Replaying`               2026-07-28, and a 2025 era once a question goes to the model
                          (``on_unsupported="ask_model"``): answered from the replay, or
                          the round ends with the unanswered ones (``NeedInput``)
`InTask`                  after ``go_async()``: through the task's ``inputRequests``
                          (`elicitkit._runtime.task_delivery`)
========================  ===============================================================

Questions for the model (``"ask_model"``) are a replaying delivery's, their keys in
``ToolRun.model_keys``: the end of the round turns them into the model's listing and its
sealed ticket (`elicitkit.integrations._asking_call`), not an ``InputRequiredResult``.
``on_unsupported="defaults"`` needs no delivery: such a question is answered where it is
prepared (`elicitkit._runtime.asking.prepare`), whatever the mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import elicitkit._clock as clock
from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.state import Replay, WireQuestion
from elicitkit._runtime.answers import Asked, Rejected, need_input, rebuilt, replayed, typed_result
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.retries import kept_values
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


class Delivery(Reasons, Protocol):
    """How the questions of a call reach the user, and their answers come back.

    Attributes:
        replay: The answers carried into this round (the replaying mode), or ``None``
            where questions wait for their answers. Read by what keeps a round's state
            (durable steps, the end of the round), never to choose how to ask.
        in_task: The call goes on as a task (``go_async()``): it answers no round any more.
    """

    @property
    def replay(self) -> Replay | None: ...
    @property
    def in_task(self) -> bool: ...

    def carried(self, asked: Asked) -> ElicitResultTyped[Any] | None:
        """The accepted answer an earlier round carried for ``asked``, or ``None``.

        ``ask()``'s shortcut: most asks of a long dialogue were answered, and logged, in
        an earlier round.
        """
        ...

    def fresh(self, question: WireQuestion) -> bool:
        """Whether ``question``'s outcome is news (not carried from an earlier round)."""
        ...

    def seconds(self, started: float) -> float | None:
        """Seconds the user took to answer a question asked at ``started`` (monotonic)."""
        ...

    async def ask(self, asked: Asked) -> ElicitResultTyped[Any]:
        """Ask one question once, and decode its answer.

        Raises:
            Rejected: The answer does not fit the form.
            NeedInput: Not answered yet: the round ends with the question.
        """
        ...

    async def ask_all(self, asked: Sequence[Asked]) -> tuple[ElicitResultTyped[Any], ...]:
        """Ask several questions (``ask_all()``), and decode their answers in order.

        A question already ``answered`` is not asked. The first invalid answer raises its
        `InvalidContent`; nothing is asked again.

        Raises:
            NeedInput: Some are not answered yet: the round ends with all of them.
        """
        ...

    def for_the_model(self, limits: ReplayLimits) -> Delivery:
        """The delivery once a question goes to the model: a replaying one (this, if it is)."""
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

    def for_the_model(self, limits: ReplayLimits) -> Delivery:  # noqa: ARG002  (the interface's)
        return self
