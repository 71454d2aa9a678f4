"""``ask_all()``: several independent questions at once, one round trip where it can be."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast, overload

from elicitkit._runtime.asking import marked, prepare
from elicitkit._runtime.context import current_run
from elicitkit._runtime.entry import asks_a_question, entry_point
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.unsupported import OnUnsupported, check_policy

T = TypeVar("T")


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
    # Read after preparing: a question handed to the model switches a 2025 era's run to a
    # replay. Mid-call asks them one after the other, a task all at once, a replay ends
    # the round with every unanswered one.
    results = await run.delivery.ask_all(prepared)
    return tuple(
        marked(run, asked.question.key, result)
        for asked, result in zip(prepared, results, strict=True)
    )
