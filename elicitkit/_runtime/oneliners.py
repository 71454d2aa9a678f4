"""One-line questions over `ask()`: a yes/no, a pick from a list, a line of text.

Each builds a one-field form from plain arguments, so a tool needs no form type for the
common small questions. The forms are ordinary annotations (``Annotated[Literal[...], ...]``),
compiled and cached like any other (a bounded cache keyed by value: see `compiled_forms`).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, TypeVar, cast, overload

import annotated_types

from elicitkit._compiler.markers import MISSING_PREFILL, FormField
from elicitkit._compiler.overrides import Overrides
from elicitkit._runtime.asking import ask
from elicitkit._runtime.entry import asks_a_question, entry_point
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit.errors import FormDefinitionError

# Subscripted with values known only at run time, which type checkers cannot follow.
_LITERAL: Any = Literal
_ANNOTATED: Any = Annotated

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)

DEFAULT_TITLE: Final = "Answer"
"""The label of a one-liner's field when no ``title=`` is given (and no Enum names it).

Clients label an untitled field with its wire key, ``value``, which no person would write;
"Answer" under the question reads like a form written by hand.
"""


class _Default(enum.Enum):
    """``choose()``'s default title: the Enum's name, or `DEFAULT_TITLE`."""

    TITLE = "default"

    def __repr__(self) -> str:
        return "<the Enum's name, or 'Answer'>"


def _titled(function: str, title: str | None) -> FormField:
    """The one-liner field's title setting: ``title=None`` sends none at all."""
    if title is None:
        return FormField(title_style="omit")
    given = cast("object", title)  # checked at run time: callers may pass anything
    if not isinstance(given, str) or not given:
        raise FormDefinitionError(
            f"Cannot ask {function}() with the title {title!r}: a title is text the client "
            "shows above the field. Pass a non-empty str, or title=None to send none."
        )
    return FormField(title=title)


@dataclass
class _Confirm:
    """The one-field form of `confirm`: a boolean, optional, prefilled with the default."""

    confirm: bool = False


# Each guarded under its own name (outside a call, the error names the one called), and
# asking through ask(), which applies the same checks again at no visible cost.
@entry_point("confirm()", in_step=asks_a_question, beside_resolve=True)
async def confirm(
    message: str, *, default: bool = False, on_unsupported: OnUnsupported | None = None
) -> bool:
    """Ask a yes/no question and return the answer.

    The form has one boolean field, ``confirm`` (so a yes is ``{"confirm": true}``; a bare
    ``ask(bool)``'s field is ``value``), prefilled with ``default`` (never an empty form,
    which some clients cannot answer). An accept whose content lacks the field counts as
    ``default``; a decline or a cancel counts as ``False``.

    Args:
        message: The question, shown above the checkbox.
        default: The prefilled answer, and the answer when the user accepts without it.
        on_unsupported: What to do if the client cannot show forms (as for `ask`). The
            answer is a plain ``bool``, which cannot say the model typed it: for a yes/no
            that guards a destructive action, pass ``"raise"``, or use ``ask(bool, ...)``
            and check ``answered_by``.

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
    answer = await ask(_Confirm, message, overrides=overrides, on_unsupported=on_unsupported)
    return answer.is_accepted() and answer.unwrap().confirm


_ChooseTitle = str | None | Literal[_Default.TITLE]


@overload
async def choose(
    message: str,
    options: type[E],
    *,
    title: _ChooseTitle = _Default.TITLE,
    on_unsupported: OnUnsupported | None = None,
) -> E | None: ...
@overload
async def choose(
    message: str,
    options: Mapping[T, str],
    *,
    title: _ChooseTitle = _Default.TITLE,
    on_unsupported: OnUnsupported | None = None,
) -> T | None: ...
@overload
async def choose(
    message: str,
    options: Iterable[T],
    *,
    title: _ChooseTitle = _Default.TITLE,
    on_unsupported: OnUnsupported | None = None,
) -> T | None: ...
@entry_point("choose()", in_step=asks_a_question, beside_resolve=True)
async def choose(
    message: str,
    options: Any,
    *,
    title: _ChooseTitle = _Default.TITLE,
    on_unsupported: OnUnsupported | None = None,
) -> Any:
    """Ask the user to pick one option, and return it.

    Args:
        message: The question, shown above the options.
        options: An Enum class (members labelled as declared), a list of values (str, int
            or bool, shown as they are), or a mapping of value to display label.
        title: The label above the options. By default the Enum's name ("Colour"), or
            "Answer" for a list or a mapping; ``None`` sends no title, so the message alone
            asks the question.
        on_unsupported: What to do if the client cannot show forms (as for `ask`).

    Returns:
        The option picked (the Enum member, list item or mapping key), or ``None`` when the
        user declined or cancelled.

    Raises:
        FormDefinitionError: The options cannot be offered (none, duplicates, a value that
            is not str, int or bool), or the title is not text; nothing was sent.
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: The answer is not one of the options.
    """
    form: Any
    if isinstance(options, type) and issubclass(options, enum.Enum):
        form = cast("Any", options)  # titled with its name, as ask(Colour) is
        if title is not _Default.TITLE:
            form = _ANNOTATED[form, _titled("choose", title)]
    else:
        values = list(cast("Iterable[object]", options))
        if not values:
            raise FormDefinitionError(
                "Cannot ask choose() without options: there is nothing to choose. Pass at "
                "least one option."
            )
        settings = _titled("choose", DEFAULT_TITLE if title is _Default.TITLE else title)
        if isinstance(options, Mapping):
            labels = cast("Mapping[object, str]", options)
            settings = dataclasses.replace(settings, labels=dict(labels))
        form = _ANNOTATED[_LITERAL[tuple(values)], settings]  # Literal[*values]
    answer = await ask(form, message, on_unsupported=on_unsupported)
    return answer.content if answer.is_accepted() else None


@entry_point("ask_text()", in_step=asks_a_question, beside_resolve=True)
async def ask_text(
    message: str,
    *,
    title: str | None = DEFAULT_TITLE,
    description: str | None = None,
    default: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    on_unsupported: OnUnsupported | None = None,
) -> str | None:
    """Ask for one line of text, and return it.

    Args:
        message: The question, shown above the text box.
        title: The text box's label; ``None`` sends no title, so the message alone asks
            the question.
        description: Help text shown with the text box.
        default: Text shown prefilled; the user still sends the answer.
        min_length: The fewest characters accepted.
        max_length: The most characters accepted.
        on_unsupported: What to do if the client cannot show forms (as for `ask`).

    Returns:
        The text, or ``None`` when the user declined or cancelled.

    Raises:
        FormDefinitionError: The settings contradict each other, or the title is not text;
            nothing was sent.
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: The text is missing or outside the lengths.
    """
    metadata: list[object] = []
    if min_length is not None:
        metadata.append(annotated_types.MinLen(min_length))
    if max_length is not None:
        metadata.append(annotated_types.MaxLen(max_length))
    settings = dataclasses.replace(
        _titled("ask_text", title),
        description=description,
        prefill=MISSING_PREFILL if default is None else default,
    )
    args = (str, *metadata, settings)
    form = _ANNOTATED[args]  # Annotated[str, *metadata, settings]
    answer = await ask(form, message, on_unsupported=on_unsupported)
    return answer.content if answer.is_accepted() else None
