"""``ask_all()``: several independent questions at once, one round trip where it can be."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

from elicitkit._replay.state import WireQuestion
from elicitkit._runtime.asking import (
    Asked,
    marked,
    need_input,
    prepare,
    replayed,
    typed_result,
)
from elicitkit._runtime.context import current_run
from elicitkit._runtime.entry import asks_a_question, entry_point
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.unsupported import OnUnsupported, check_policy

T = TypeVar("T")

# A channel's way to send several questions at once (a task's): (params, within, key) each.
SendAll = Callable[
    [list[tuple[dict[str, Any], float | None, str]]], Awaitable[list[Mapping[str, Any]]]
]


@dataclass(frozen=True)
class Question(Generic[T]):
    """One question for `ask_all`: a form type with its own message and key.

    Attributes:
        tp: The form type, as for `ask`.
        message: What the client shows above the form (as for `ask`).
        key: The question's key on the wire (as for `ask`).
    """

    tp: type[T]
    message: str | None = None
    key: str | None = None


A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")


@overload
async def ask_all(
    a: type[A] | Question[A],
    b: type[B] | Question[B],
    /,
    *,
    on_unsupported: OnUnsupported | None = None,
) -> tuple[ElicitResultTyped[A], ElicitResultTyped[B]]: ...
@overload
async def ask_all(
    a: type[A] | Question[A],
    b: type[B] | Question[B],
    c: type[C] | Question[C],
    /,
    *,
    on_unsupported: OnUnsupported | None = None,
) -> tuple[ElicitResultTyped[A], ElicitResultTyped[B], ElicitResultTyped[C]]: ...
@overload
async def ask_all(
    a: type[A] | Question[A],
    b: type[B] | Question[B],
    c: type[C] | Question[C],
    d: type[D] | Question[D],
    /,
    *,
    on_unsupported: OnUnsupported | None = None,
) -> tuple[
    ElicitResultTyped[A], ElicitResultTyped[B], ElicitResultTyped[C], ElicitResultTyped[D]
]: ...
@overload
async def ask_all(
    *questions: Any, on_unsupported: OnUnsupported | None = None
) -> tuple[ElicitResultTyped[Any], ...]: ...
@entry_point("ask_all()", in_step=asks_a_question, beside_resolve=True)
async def ask_all(
    *questions: Any, on_unsupported: OnUnsupported | None = None
) -> tuple[ElicitResultTyped[Any], ...]:
    """Ask several independent questions at once, and return their answers in order.

    On 2026-07-28 every unanswered question goes out in one ``InputRequiredResult`` (one
    round trip for all); on 2025-06-18 and 2025-11-25, which have one question per
    request, they are asked one after the other.

    Args:
        questions: Form types, or `Question` objects to give one its message or key.
        on_unsupported: What to do if the client cannot show forms (as for `ask`); with
            ``"ask_model"`` all the questions go to the model together, under one ticket.

    Returns:
        One outcome per question, in the order given, each typed like `ask`'s.

    Raises:
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: An answer does not fit its form (``ask_all`` does not re-ask);
            ``.errors`` says why.
        ElicitationTimeout: A question was not answered within 600 seconds.
        ElicitationFailed: The client answered with an error.
        ClientDisconnected: The client's connection closed while a question was open
            (2025-06-18, 2025-11-25).
        FormDefinitionError: A form type cannot be expressed as a form, or a key is
            malformed or already used in this call; nothing was sent.
        TooManyRounds: The call reached ``ReplayLimits.max_rounds`` (2026-07-28).
        StateTooLarge: The carried answers reached ``ReplayLimits.max_state_bytes``.
        ElicitError: ``ask_all()`` was called outside a handler, or beside the SDK's
            Resolve.
    """
    asked: list[tuple[Any, str | None, str | None]] = []
    for item in cast("tuple[object, ...]", questions):
        if isinstance(item, Question):
            question: Question[object] = cast("Question[object]", item)
            asked.append((question.tp, question.message, question.key))
        else:
            asked.append((item, None, None))
    if on_unsupported is not None:
        check_policy(on_unsupported, "ask_all()")
    return await _ask_round(asked, on_unsupported)


async def _ask_round(
    questions: Sequence[tuple[Any, str | None, str | None]],
    policy: OnUnsupported | None = None,
) -> tuple[ElicitResultTyped[Any], ...]:
    run = current_run.get()
    prepared = [prepare(run, tp, message, key, policy=policy) for tp, message, key in questions]
    # Read after preparing: a question handed to the model starts a replay on a 2025 era.
    channel, replay = run.channel, run.replay
    # Only a task's channel sends several questions at once; `Channel` does not require it.
    send_all: SendAll | None = getattr(channel, "send_all", None)
    if replay is None and send_all is not None and all(a.answered is None for a in prepared):
        return await _ask_at_once(prepared, send_all)
    if replay is None:  # handshake eras: one request per question, in order
        results: list[ElicitResultTyped[Any]] = []
        for asked in prepared:
            if asked.answered is not None:
                results.append(asked.answered)
                continue
            question = asked.question
            raw = await channel.send(question.params, question.timeout, key=question.key)
            results.append(typed_result(asked.form, raw))
        return tuple(results)
    answered: list[ElicitResultTyped[Any]] = []
    unanswered: list[WireQuestion] = []
    for asked in prepared:
        question = asked.question
        result = (
            asked.answered if asked.answered is not None else replayed(replay, asked.form, question)
        )
        if result is None:
            unanswered.append(question)
        else:
            answered.append(marked(run, question.key, result))
    if unanswered:
        raise need_input(replay, tuple(unanswered))
    return tuple(answered)


async def _ask_at_once(
    prepared: Sequence[Asked], send_all: SendAll
) -> tuple[ElicitResultTyped[Any], ...]:
    """Ask every question together through ``send_all`` (a task's ``inputRequests``).

    The answers are decoded in order once all have arrived, so the outcome is the same as
    asking one after the other: the first invalid answer raises.
    """
    raws = await send_all(
        [(asked.question.params, asked.question.timeout, asked.question.key) for asked in prepared]
    )
    return tuple(typed_result(asked.form, raw) for asked, raw in zip(prepared, raws, strict=True))
