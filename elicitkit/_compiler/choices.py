"""Choice fields: the options of an Enum or a Literal, their labels, and multi-selects.

Options travel as strings, so every option gets a wire string that must be valid Unicode
and distinct from every other (``1`` and ``"1"`` collide). Labels come from an Enum's
``__labels__``, from ``FormField(labels=...)``, or from per-call overrides
(`choice_settings`); options without one get a humanised member name, or the value itself.
A multi-select is a list, set, frozenset or ``tuple[X, ...]`` of an Enum or a Literal.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

from elicitkit._compiler.field_settings import FieldSettings
from elicitkit._compiler.form_spec import MISSING, Choice
from elicitkit._compiler.names import humanise, quoted
from elicitkit._compiler.type_hints import Collection, literal_values, type_name, unwrap
from elicitkit._compiler.wire_formats import has_surrogate, sendable_text
from elicitkit.errors import FormDefinitionError


def is_choice_type(tp: Any) -> bool:
    """Whether ``tp`` (unwrapped) is an Enum or a Literal: a single choice."""
    return _is_enum_type(tp) or literal_values(tp) is not None


def single_choice_settings(
    core: Any, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> dict[str, Any]:
    """Return the `FieldSpec` values (``choices``, ``titled``) of an Enum or Literal field."""
    return _checked(_choices_of(core, problem), settings, problem)


def multi_choice_settings(
    core: Any,
    parts: Collection,
    settings: FieldSettings,
    problem: Callable[[str], FormDefinitionError],
) -> dict[str, Any]:
    """Return the `FieldSpec` values of a multi-select: ``choices``, ``titled``, ``container``.

    Args:
        core: The field's type, unwrapped (for messages).
        parts: ``core`` taken apart by `type_hints.collection`.
        settings: The field's settings; the item type's labels apply if the field has none.
        problem: Makes the error for this field.

    Raises:
        FormDefinitionError: ``core`` is not a collection of an Enum or a Literal.
    """
    if parts.fixed_length:
        raise problem(
            f"{type_name(core)} is a fixed-length tuple, which a form cannot express. Use "
            "tuple[X, ...] for a multi-select, or separate fields."
        )
    item_settings = FieldSettings()
    inner = unwrap(parts.item, item_settings, problem)
    if not is_choice_type(inner.core) or inner.optional:
        raise problem(
            f"{type_name(core)} has no flat JSON form. Use list[Literal[...]] or "
            "list[SomeEnum] for a multi-select."
        )
    item_settings.apply_own()
    if item_settings.labels is not None and settings.labels is None:
        settings.labels = item_settings.labels
    choices = _choices_of(inner.core, problem)
    return {**_checked(choices, settings, problem), "container": parts.container}


def choice_settings(
    choices: list[Choice],
    labels: Mapping[object, str] | None,
    problem: Callable[[str], FormDefinitionError],
) -> dict[str, Any]:
    """Check a list of options and apply labels; return ``choices`` and ``titled``."""
    return _checked(choices, FieldSettings(labels=labels), problem)


def default_label(choice: Choice) -> str:
    """Return the label an option shows when none was given."""
    if isinstance(choice.value, enum.Enum):
        return humanise(choice.value.name)
    return choice.wire


def _is_enum_type(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def _choices_of(core: Any, problem: Callable[[str], FormDefinitionError]) -> list[Choice]:
    if _is_enum_type(core):
        return _enum_choices(core, problem)
    return _literal_choices(core, problem)


def _enum_choices(
    tp: type[enum.Enum], problem: Callable[[str], FormDefinitionError]
) -> list[Choice]:
    members = list(tp)
    if not members:
        raise problem(f"{type_name(tp)} has no members, so there is nothing to choose.")
    labels: Mapping[str, str] = getattr(tp, "__labels__", None) or {}
    unknown = set(labels) - set(tp.__members__)
    if unknown:
        raise problem(
            f"{type_name(tp)}.__labels__ names {quoted(unknown)}, which "
            f"{'is not a member' if len(unknown) == 1 else 'are not members'}. Key "
            "__labels__ by member name."
        )
    choices: list[Choice] = []
    for member in members:
        value = member.value
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise problem(
                f"{type_name(tp)}.{member.name} has the value {value!r}; choices travel as "
                "strings, so Enum values must be str or int. Give the members str or int "
                "values."
            )
        choices.append(Choice(wire=str(value), value=member, label=labels.get(member.name)))
    return choices


def _literal_choices(tp: Any, problem: Callable[[str], FormDefinitionError]) -> list[Choice]:
    choices: list[Choice] = []
    for value in literal_values(tp) or ():
        if isinstance(value, enum.Enum):
            wire = str(value.value)
        elif isinstance(value, bool):
            wire = "true" if value else "false"
        elif isinstance(value, (str, int)):
            wire = str(value)
        else:
            raise problem(
                f"{type_name(tp)} contains {value!r}; choices travel as strings, so Literal "
                "values must be str, int or bool."
            )
        choices.append(Choice(wire=wire, value=value, label=None))
    return choices


def _checked(
    choices: list[Choice], settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> dict[str, Any]:
    wires = [choice.wire for choice in choices]
    unsendable = [wire for wire in wires if has_surrogate(wire)]
    if unsendable:
        raise problem(
            f"the option {unsendable[0]!r} holds a surrogate code point, which no JSON encoder "
            "accepts, and an option must come back exactly as it was sent. Use options of "
            "valid Unicode text."
        )
    seen: set[str] = set()
    duplicates: set[str] = set()
    for wire in wires:  # a set, not list.count: a Literal built from data may be long
        if wire in seen:
            duplicates.add(wire)
        seen.add(wire)
    if duplicates:
        raise problem(
            f"the options {quoted(duplicates)} appear more than once on the wire (choices "
            "travel as strings, so 1 and '1' collide). Make every option's string distinct."
        )
    if settings.labels is not None:
        choices = _apply_labels(choices, settings.labels, problem)
    titled = any(choice.label is not None for choice in choices)
    if titled:
        choices = [
            Choice(choice.wire, choice.value, sendable_text(choice.label))
            if choice.label is not None
            else Choice(choice.wire, choice.value, default_label(choice))
            for choice in choices
        ]
    return {"choices": tuple(choices), "titled": titled}


def _apply_labels(
    choices: list[Choice],
    labels: Mapping[object, str],
    problem: Callable[[str], FormDefinitionError],
) -> list[Choice]:
    matched: set[object] = set()
    labelled: list[Choice] = []
    for choice in choices:
        label = choice.label
        for candidate in (choice.value, getattr(choice.value, "value", MISSING), choice.wire):
            if _hashable(candidate) and candidate in labels:
                label = labels[candidate]
                matched.add(candidate)
                break
        labelled.append(Choice(choice.wire, choice.value, label))
    unknown = [key for key in labels if key not in matched]
    if unknown:
        raise problem(
            f"the labels name {quoted(unknown)}, which "
            f"{'is not an option' if len(unknown) == 1 else 'are not options'}. Key labels "
            "by Enum member, Literal value, or the option's string."
        )
    return labelled


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
