"""Multi-selects on MCP 2025-06-18: one checkbox (a boolean) per choice, folded back on return.

2025-06-18 has no arrays, so a multi-select cannot be sent as one. Booleans are in its
grammar, so each choice becomes a boolean property ``<key>__<n>`` (n counts the choices from
1), titled with the field's title and the choice's label, prefilled from the field's default.
The answer is folded back into the list of chosen wire values, in the choices' order
(nothing ticked on an optional field without a default: left out, so ``None``),
before the form's decoder runs: the same ``minItems``/``maxItems`` checks, the same
messages, against the multi-select's own key. Up to `MAX_CHECKBOXES` choices; more raise
`TooManyCheckboxes`, an `ElicitError`, before anything is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from elicitkit._compiler.form_spec import MISSING, FieldSpec, FormSpec, Kind
from elicitkit._compiler.prefill import wire_default
from elicitkit.errors import FieldError, FormDefinitionError, InvalidContent, TooManyCheckboxes
from elicitkit.protocol import MAX_CHECKBOXES

SEPARATOR = "__"


def checkbox_key(field: FieldSpec, index: int) -> str:
    """The wire key of the checkbox of choice ``index`` (from 0) of ``field``."""
    return f"{field.key}{SEPARATOR}{index + 1}"


def has_multi(spec: FormSpec) -> bool:
    """Whether the form has a multi-select (so 2025-06-18 gets checkboxes)."""
    return any(field.kind is Kind.MULTI_CHOICE for field in spec.fields)


def render_checkboxes(spec: FormSpec, field: FieldSpec) -> dict[str, dict[str, Any]]:
    """The boolean properties that stand for ``field`` on 2025-06-18.

    Raises:
        TooManyCheckboxes: The field has more than `MAX_CHECKBOXES` choices.
        FormDefinitionError: A checkbox's key is also the key of another field.
    """
    count = len(field.choices)
    if count > MAX_CHECKBOXES:
        raise TooManyCheckboxes(
            f"Cannot ask for '{field.attr}' of {spec.name} on MCP 2025-06-18: it has {count} "
            f"choices, and that version has no multi-select, so elicitkit sends one checkbox "
            f"per choice, up to {MAX_CHECKBOXES}. Offer at most {MAX_CHECKBOXES} choices (per "
            "call with Overrides(choices=...)), or catch the error and carry on without it."
        )
    keys = {other.key for other in spec.fields}
    default = wire_default(field)
    chosen = set(cast("list[str]", default)) if default is not MISSING else set[str]()
    bounds = _bounds(field)
    out: dict[str, dict[str, Any]] = {}
    for index, choice in enumerate(field.choices):
        key = checkbox_key(field, index)
        if key in keys:
            raise FormDefinitionError(
                f"Cannot render field '{field.attr}' of {spec.name} for protocol 2025-06-18: "
                f"its checkbox {key!r} has the key of another field. Rename that field."
            )
        box: dict[str, Any] = {"type": "boolean"}
        label = choice.wire if choice.label is None else choice.label
        box["title"] = f"{field.title}: {label}" if field.show_title else label
        if index == 0:
            said = " ".join(part for part in (field.description, bounds) if part)
            if said:
                box["description"] = said
        box["default"] = choice.wire in chosen
        out[key] = box
    return out


def _bounds(field: FieldSpec) -> str | None:
    low, high = field.min_length, field.max_length
    if low and high is not None:
        return f"Tick at least {low} and at most {high}."
    if low:
        return f"Tick at least {low}."
    if high is not None:
        return f"Tick at most {high}."
    return None


def replace_checkboxes(
    properties: Mapping[str, Any], key: str, boxes: Mapping[str, Any]
) -> dict[str, Any]:
    """``properties`` with the checkboxes of the multi-select ``key`` replaced by ``boxes``.

    In place, so the form's order holds (per-call options render a field's boxes again;
    hiding the field passes no boxes).
    """
    prefix = f"{key}{SEPARATOR}"
    out: dict[str, Any] = {}
    placed = False
    for name, prop in properties.items():
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            if not placed:
                out.update(boxes)
                placed = True
            continue
        out[name] = prop
    if not placed:
        out.update(boxes)
    return out


def fold_checkboxes(spec: FormSpec, content: object) -> object:
    """The answer with each multi-select's checkboxes folded back into its list.

    Linear in the content. Content that is not an object is passed on for the decoder to
    refuse; a checkbox that is not ``true`` or ``false`` is refused here, on its own key.

    Raises:
        InvalidContent: A checkbox holds something other than a boolean.
    """
    if not isinstance(content, Mapping):
        return content
    given = cast("Mapping[str, object]", content)
    folded = dict(given)
    problems: list[FieldError] = []
    for field in spec.fields:
        if field.kind is not Kind.MULTI_CHOICE:
            continue
        ticked: list[str] = []
        for index, choice in enumerate(field.choices):
            key = checkbox_key(field, index)
            value = folded.pop(key, False)
            if type(value) is not bool:
                problems.append(FieldError(key, "Expected true or false."))
            elif value:
                ticked.append(choice.wire)
        # Nothing ticked on an optional field without a default: no answer (``None``), as
        # when the field is left out; with a default, or required, it is the empty choice.
        if ticked or field.required or wire_default(field) is not MISSING:
            folded[field.key] = ticked
    if problems:
        raise InvalidContent(spec.name, problems)
    return folded
