"""Multi-selects on MCP 2025-06-18: one checkbox (a boolean) per choice, folded back on return.

2025-06-18 has no arrays, so a multi-select cannot be sent as one. Booleans are in its
grammar, so each choice becomes a boolean property ``<key>__<n>`` (n counts the choices from
1), titled with the field's title and the choice's label, prefilled from the field's default.
The answer is folded back into the list of chosen wire values, in the choices' order,
before the form's decoder runs: the same ``minItems``/``maxItems`` checks, the same
messages, against the multi-select's own key. A box the answer leaves out (or sends as
``null``, which means absent) keeps its default, and an answer with none of a field's boxes
leaves the field out, so it gets its default as on the other versions. Up to
`MAX_CHECKBOXES` of the choices a call offers (after its per-call options); more raise
`TooManyCheckboxes`, an `ElicitError`, before anything is sent (`too_many_checkboxes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from elicitkit._compiler.form_spec import MISSING, FieldSpec, FormSpec, Kind
from elicitkit._compiler.prefill import wire_default
from elicitkit.errors import FieldError, FormDefinitionError, InvalidContent
from elicitkit.protocol import MAX_CHECKBOXES

SEPARATOR = "__"


def box_key(key: str, index: int) -> str:
    """The wire key of the checkbox of choice ``index`` (from 0) of the multi-select ``key``."""
    return f"{key}{SEPARATOR}{index + 1}"


def checkbox_key(field: FieldSpec, index: int) -> str:
    """The wire key of the checkbox of choice ``index`` (from 0) of ``field``."""
    return box_key(field.key, index)


def box_of(name: str) -> tuple[str, int] | None:
    """The multi-select key and choice index (from 0) a checkbox's wire key stands for.

    The inverse of `box_key`: ``None`` for a key that is not a checkbox's.
    """
    key, separator, number = name.rpartition(SEPARATOR)
    if not (separator and key and number.isascii() and number.isdigit() and number[0] != "0"):
        return None
    return key, int(number) - 1


def has_multi(spec: FormSpec) -> bool:
    """Whether the form has a multi-select (so 2025-06-18 gets checkboxes)."""
    return any(field.kind is Kind.MULTI_CHOICE for field in spec.fields)


def too_many_checkboxes(spec: FormSpec, hidden: frozenset[str] = frozenset()) -> str | None:
    """Why ``spec`` cannot be asked on 2025-06-18 (`TooManyCheckboxes`'s text), or ``None``.

    Judged on the form as one call shows it: ``spec`` carries the call's own options
    (``Overrides(choices=...)``), and a field in ``hidden`` (wire keys) shows no box at all,
    so narrowing or hiding a long multi-select for a call lets it be asked.
    """
    for field in spec.fields:
        count = len(field.choices)
        if field.kind is Kind.MULTI_CHOICE and count > MAX_CHECKBOXES and field.key not in hidden:
            return (
                f"Cannot ask for '{field.attr}' of {spec.name} on MCP 2025-06-18: it has "
                f"{count} choices, and that version has no multi-select, so elicitkit sends "
                f"one checkbox per choice, up to {MAX_CHECKBOXES}. Offer at most "
                f"{MAX_CHECKBOXES} choices (per call with Overrides(choices=...)), or catch "
                "the error and carry on without it."
            )
    return None


def render_checkboxes(spec: FormSpec, field: FieldSpec) -> dict[str, dict[str, Any]]:
    """The boolean properties that stand for ``field`` on 2025-06-18.

    Renders every choice: whether there are too many is judged on the form a call finally
    shows (`too_many_checkboxes`), since a call may narrow the declared ones.

    Raises:
        FormDefinitionError: A checkbox's key is also the key of another field.
    """
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
            said = _described(field.description, bounds)
            if said:
                box["description"] = said
        box["default"] = choice.wire in chosen
        out[key] = box
    return out


def _described(description: str | None, bounds: str | None) -> str | None:
    """The first box's help: the field's description, then the bounds, as sentences."""
    if not description or not bounds:
        return description or bounds
    # "Pick your toppings" + "Tick at least 1." would read as one run-on sentence.
    text = description.rstrip()
    if not text.endswith((".", "!", "?")):
        text += "."
    return f"{text} {bounds}"


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
    out: dict[str, Any] = {}
    placed = False
    for name, prop in properties.items():
        box = box_of(name)
        if box is not None and box[0] == key:
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
    refuse; a checkbox that is not ``true``, ``false`` or ``null`` is refused here, on its
    own key.

    Each box is a property with its own ``default`` (ticked when its choice is in the
    field's default), so a box left out, or sent as ``null`` (absent, as everywhere in an
    answer), keeps that default: a client that sends only what the user touched loses
    nothing. An answer without any of a field's boxes leaves the field out, so the decoder
    gives it its default (or ``None``) exactly as on 2025-11-25, where the whole list is one
    property; only a required field without a default, whose boxes are never required on
    the wire, is then the empty choice.

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
        default = wire_default(field)
        chosen = set(cast("list[str]", default)) if default is not MISSING else set[str]()
        ticked: list[str] = []
        answered = False
        for index, choice in enumerate(field.choices):
            key = checkbox_key(field, index)
            value = folded.pop(key, None)
            if value is None:
                value = choice.wire in chosen
            elif type(value) is not bool:
                problems.append(FieldError(key, "Expected true or false."))
                continue
            else:
                answered = True
            if value:
                ticked.append(choice.wire)
        if not answered:
            if field.required and default is MISSING:
                folded[field.key] = []  # its boxes were never required: none ticked
            continue  # absent: the decoder gives the field's default, as on other versions
        # Boxes given and none ticked, on an optional field without a default: no answer
        # (``None``), as when the field is left out; with a default, the user unticked
        # it, so it is the empty choice.
        if ticked or field.required or default is not MISSING:
            folded[field.key] = ticked
    if problems:
        raise InvalidContent(spec.name, problems)
    return folded
