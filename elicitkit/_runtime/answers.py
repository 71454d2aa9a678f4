"""Reading a question's answer: a client's raw result, or one carried in the replay.

Shared by every delivery (`elicitkit._runtime.delivery`): how an answer is decoded does not
depend on how the question reached the user.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, cast

import elicitkit._clock as clock
from elicitkit._compiler.prepared_form import PreparedForm
from elicitkit._replay.state import Carried, NeedInput, Replay, WireQuestion
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.retries import kept_values
from elicitkit._runtime.timeouts import timed_out
from elicitkit.errors import ElicitationFailed, ElicitationTimeout, FieldError, InvalidContent

_ACTIONS = ("accept", "decline", "cancel")


class Asked(NamedTuple):
    """One question of a call: its prepared form, and the question as it goes on the wire.

    Attributes:
        form: The form type prepared for this call's protocol version and overrides.
        question: Its key, digest, params and timeout.
        answered: Its outcome already, without asking (``on_unsupported="defaults"``).
    """

    form: PreparedForm
    question: WireQuestion
    answered: ElicitResultTyped[Any] | None = None


class Rejected(Exception):  # an internal signal: never escapes ask()
    """An invalid answer, with the values that passed (to offer again as defaults)."""

    def __init__(self, error: InvalidContent, kept: list[Any]) -> None:
        super().__init__(str(error))
        self.error = error
        self.kept = kept


def need_input(replay: Replay, questions: tuple[WireQuestion, ...]) -> NeedInput:
    """The signal that ends the run with these questions.

    Raises:
        TooManyRounds: The dialogue would exceed its rounds (`Replay.next_state`).
        StateTooLarge: Its state would exceed its size.
    """
    return NeedInput(questions, replay.next_state(questions))


def replayed(
    replay: Replay, form: PreparedForm, question: WireQuestion
) -> ElicitResultTyped[Any] | None:
    """The answer to ``question`` from the state or the client's retry, or ``None``."""
    spec = form.spec
    carried = replay.carried(question.key, question.digest)
    if carried is not None and carried.action == "invalid":
        # The same failure as in the round the answer came in, so a tool that catches it
        # and asks again takes the same path every round.
        errors = [FieldError(*pair) for pair in carried.values]
        raise InvalidContent(spec.name, errors)
    if carried is not None:
        if carried.action == "timeout":
            raise ElicitationTimeout(timed_out(question.timeout or 0.0))
        if carried.action != "accept":
            return typed_result(form, {"action": carried.action})
        return rebuilt(form, carried)
    raw_answer = in_time(replay, question)
    if raw_answer is None:
        return None
    try:
        result = typed_result(form, raw_answer)
    except InvalidContent as error:
        problems = [[problem.field, problem.message] for problem in error.errors]
        kept = kept_values(spec, raw_answer.get("content"), error.errors, form.protocol)
        replay.keep(question.key, Carried(question.digest, "invalid", problems, kept))
        raise
    # Only now, checked, does the answer join the state: its validated wire values only.
    content = raw_answer.get("content") if result.action == "accept" else None
    values: list[Any] = []
    if isinstance(content, Mapping):
        fields = cast("Mapping[str, Any]", content)
        values = [fields.get(field.key) for field in spec.fields]
    replay.keep(question.key, Carried(question.digest, result.action, values))
    return result


def in_time(
    replay: Replay, question: WireQuestion, *, link: bool = False
) -> Mapping[str, Any] | None:
    """The client's raw answer to ``question`` in this round, if it came before the deadline.

    The one reader of a new answer for every question that replays, form or URL (``link``),
    so a late answer is a timeout whatever was asked.

    Raises:
        ElicitationTimeout: The answer came after the question's deadline: it was withdrawn
            when its time ran out, whatever the answer says. The timeout is carried, so
            every later round raises it again.
    """
    raw_answer = replay.response(question.key, question.digest)
    if raw_answer is None:
        return None
    deadline = replay.deadlines.get(question.key)
    if deadline is not None and clock.now() > deadline:
        replay.keep(question.key, Carried(question.digest, "timeout"))
        raise ElicitationTimeout(timed_out(question.timeout or 0.0, link=link))
    return raw_answer


def rebuilt(form: PreparedForm, carried: Carried) -> ElicitResultTyped[Any]:
    """An accepted answer carried in the state, rebuilt.

    It was checked in the round it arrived (`replayed`), and sealed by the server since,
    so it is rebuilt from its wire values, not checked again (why that is safe: see
    ``_compiler.decode.build_rebuilder``). The type's own ``__post_init__`` or validators
    run again, and may still raise `InvalidContent`.
    """
    return ElicitResultTyped("accept", form.rebuild(carried.values))


def typed_result(form: PreparedForm, raw: Mapping[str, Any]) -> ElicitResultTyped[Any]:
    """The client's raw answer to ``form``, decoded.

    Raises:
        ElicitationFailed: It is not an elicitation result.
        InvalidContent: It does not fit the form.
    """
    action = raw.get("action")
    if action not in _ACTIONS:
        raise ElicitationFailed(
            f"The client's answer to {form.spec.name} is not an elicitation result: its "
            f"action is {action!r}, not 'accept', 'decline' or 'cancel'."
        )
    if action != "accept":
        return ElicitResultTyped(action, None)
    content = raw.get("content")
    # Some clients accept with no content at all; every required field then says so.
    return ElicitResultTyped("accept", form.decode({} if content is None else content))
