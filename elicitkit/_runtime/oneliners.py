"""One-line questions over `ask()`: a yes/no, a pick from a list, a line of text.

Each builds a one-field form from plain arguments, so a tool needs no form type for the
common small questions. The forms are ordinary annotations (``Annotated[Literal[...], ...]``),
compiled and cached like any other (a bounded cache keyed by value: see `compiled_forms`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, cast, overload

import annotated_types

from elicitkit._compiler.markers import MISSING_PREFILL, FormField
from elicitkit._compiler.overrides import Overrides
from elicitkit._runtime.asking import ask
from elicitkit.errors import FormDefinitionError

# Subscripted with values known only at run time, which type checkers cannot follow.
_LITERAL: Any = Literal
_ANNOTATED: Any = Annotated

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)


@dataclass
class _Confirm:
    """The one-field form of `confirm`: a boolean, optional, prefilled with the default."""

    confirm: bool = False


async def confirm(message: str, *, default: bool = False) -> bool:
    """Ask a yes/no question and return the answer.

    The form has one boolean field, prefilled with ``default`` (never an empty form, which
    some clients cannot answer). An accept whose content lacks the field counts as
    ``default``; a decline or a cancel counts as ``False``.

    Args:
        message: The question, shown above the checkbox.
        default: The prefilled answer, and the answer when the user accepts without it.

    Returns:
        ``True`` only when the user accepted with yes (or accepted the default ``True``).

    Raises:
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: The answer is not a boolean.
    """
    if type(default) is not bool:  # 1 and None are not answers to a yes/no question
        raise FormDefinitionError(
            f"Cannot ask confirm() with the default {default!r}: a yes/no question takes "
            "True or False. Pass default=True or default=False."
        )
    overrides = Overrides(defaults={"confirm": default}) if default else None
    answer = await ask(_Confirm, message, overrides=overrides)
    return answer.is_accepted() and answer.unwrap().confirm


@overload
async def choose(message: str, options: type[E]) -> E | None: ...
@overload
async def choose(message: str, options: Mapping[T, str]) -> T | None: ...
@overload
async def choose(message: str, options: Iterable[T]) -> T | None: ...
async def choose(message: str, options: Any) -> Any:
    """Ask the user to pick one option, and return it.

    Args:
        message: The question, shown above the options.
        options: An Enum class (members labelled as declared), a list of values (str, int
            or bool, shown as they are), or a mapping of value to display label.

    Returns:
        The option picked (the Enum member, list item or mapping key), or ``None`` when the
        user declined or cancelled.

    Raises:
        FormDefinitionError: The options cannot be offered (none, duplicates, a value that
            is not str, int or bool); nothing was sent.
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: The answer is not one of the options.
    """
    form: Any
    if isinstance(options, type) and issubclass(options, enum.Enum):
        form = cast("Any", options)
    else:
        values = list(cast("Iterable[object]", options))
        if not values:
            raise FormDefinitionError(
                "Cannot ask choose() without options: there is nothing to choose. Pass at "
                "least one option."
            )
        choice = _LITERAL[tuple(values)]  # Literal[*values]
        form = choice
        if isinstance(options, Mapping):
            labels = cast("Mapping[object, str]", options)
            form = _ANNOTATED[choice, FormField(labels=dict(labels))]
    answer = await ask(form, message)
    return answer.content if answer.is_accepted() else None


async def ask_text(
    message: str,
    *,
    title: str | None = None,
    description: str | None = None,
    default: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
) -> str | None:
    """Ask for one line of text, and return it.

    Args:
        message: The question, shown above the text box.
        title: The text box's label (default: "Answer").
        description: Help text shown with the text box.
        default: Text shown prefilled; the user still sends the answer.
        min_length: The fewest characters accepted.
        max_length: The most characters accepted.

    Returns:
        The text, or ``None`` when the user declined or cancelled.

    Raises:
        FormDefinitionError: The settings contradict each other; nothing was sent.
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: The text is missing or outside the lengths.
    """
    metadata: list[object] = []
    if min_length is not None:
        metadata.append(annotated_types.MinLen(min_length))
    if max_length is not None:
        metadata.append(annotated_types.MaxLen(max_length))
    settings = FormField(
        title=title,
        description=description,
        prefill=MISSING_PREFILL if default is None else default,
    )
    args = (str, *metadata, settings)
    form = _ANNOTATED[args]  # Annotated[str, *metadata, settings]
    answer = await ask(form, message)
    return answer.content if answer.is_accepted() else None
