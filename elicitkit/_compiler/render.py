"""Rendering: FormSpec + protocol version -> the exact wire ``requestedSchema``.

A pure function that emits only the keys the spec's TypeScript types allow for the version:
never a top-level ``title``, ``$schema``, ``$ref``/``$defs``, ``anyOf`` with null,
``additionalProperties``, ``pattern`` or an empty ``properties``.
"""

from __future__ import annotations

from typing import Any

from elicitkit._compiler.checkboxes import render_checkboxes
from elicitkit._compiler.form_spec import MISSING, FieldSpec, FormSpec, Kind, Shape
from elicitkit._compiler.prefill import wire_default
from elicitkit.errors import FormDefinitionError
from elicitkit.protocol import FIRST_PROTOCOL, ProtocolVersion


def render_schema(
    spec: FormSpec, protocol: ProtocolVersion, *, legacy_enum_names: bool = False
) -> dict[str, Any]:
    """Return the ``requestedSchema`` for a form on one protocol version.

    Args:
        spec: The form.
        protocol: The negotiated protocol version.
        legacy_enum_names: Render labelled single choices as ``enum`` + ``enumNames``
            (the deprecated form) even where ``oneOf`` is available. Always on for
            2025-06-18, which knows no other.

    On 2025-06-18, which has no arrays, a multi-select is one checkbox per choice
    (`elicitkit._compiler.checkboxes`); checkboxes are never required. Every declared
    choice gets its box here; the limit on how many is judged on what a call shows
    (`too_many_checkboxes`, in the compile cache).

    Raises:
        FormDefinitionError: A checkbox's key is the key of another field.
    """
    legacy = legacy_enum_names or protocol == FIRST_PROTOCOL
    boxes = protocol == FIRST_PROTOCOL
    properties: dict[str, Any] = {}
    for field in spec.fields:
        if boxes and field.kind is Kind.MULTI_CHOICE:
            properties.update(render_checkboxes(spec, field))
        else:
            properties[field.key] = _render_field(spec, field, protocol, legacy=legacy)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [
        field.key
        for field in spec.fields
        if field.required and not (boxes and field.kind is Kind.MULTI_CHOICE)
    ]
    if required:
        schema["required"] = required
    return schema


def render_field(
    spec: FormSpec, field: FieldSpec, protocol: ProtocolVersion, *, legacy_enum_names: bool = False
) -> dict[str, Any]:
    """Return one field's wire schema, as `render_schema` renders it.

    Not for a multi-select on 2025-06-18, which is several properties (`render_checkboxes`).
    """
    legacy = legacy_enum_names or protocol == FIRST_PROTOCOL
    return _render_field(spec, field, protocol, legacy=legacy)


def _render_field(
    spec: FormSpec, field: FieldSpec, protocol: ProtocolVersion, *, legacy: bool
) -> dict[str, Any]:
    out: dict[str, Any]
    kind = field.kind
    if kind is Kind.TEXT:
        out = {"type": "string"}
    elif kind is Kind.INTEGER:
        out = {"type": "integer"}
    elif kind is Kind.NUMBER:
        out = {"type": "number"}
    elif kind is Kind.BOOLEAN:
        out = {"type": "boolean"}
    elif kind is Kind.CHOICE:
        out = {"type": "string"}
    else:
        out = {"type": "array"}
    if field.show_title:
        out["title"] = field.title
    description = _describe(field)
    if description:
        out["description"] = description
    if kind is Kind.TEXT:
        _put(out, "minLength", field.min_length)
        _put(out, "maxLength", field.max_length)
        _put(out, "format", field.format)
    elif kind in (Kind.INTEGER, Kind.NUMBER):
        _put(out, "minimum", field.minimum)
        _put(out, "maximum", field.maximum)
    elif kind is Kind.CHOICE:
        wires = [choice.wire for choice in field.choices]
        if not field.titled:
            out["enum"] = wires
        elif _legacy_labels(spec, field, protocol, legacy=legacy):
            out["enum"] = wires
            out["enumNames"] = [choice.label for choice in field.choices]
        else:
            out["oneOf"] = [{"const": c.wire, "title": c.label} for c in field.choices]
    elif kind is Kind.MULTI_CHOICE:
        _put(out, "minItems", field.min_length)
        _put(out, "maxItems", field.max_length)
        if field.titled:
            out["items"] = {"anyOf": [{"const": c.wire, "title": c.label} for c in field.choices]}
        else:
            out["items"] = {"type": "string", "enum": [choice.wire for choice in field.choices]}
    # Only booleans carry a default on 2025-06-18; every kind does from 2025-11-25 on.
    if kind is Kind.BOOLEAN or protocol != FIRST_PROTOCOL:
        default = wire_default(field)
        if default is MISSING and kind is Kind.BOOLEAN and spec.shape is Shape.SCALAR:
            # A bare yes/no question: form clients (the MCP Inspector) keep Submit disabled
            # until a required box without a default has been touched, so "no" would take a
            # tick and an untick. Prefilled with "no", either answer is one step.
            default = False
        if default is not MISSING:
            out["default"] = default
    return out


def _legacy_labels(
    spec: FormSpec, field: FieldSpec, protocol: ProtocolVersion, *, legacy: bool
) -> bool:
    """Whether a labelled single choice travels as enum + enumNames (the field decides first)."""
    if field.label_style is None:
        return legacy
    if field.label_style == "oneOf" and protocol == FIRST_PROTOCOL:
        raise FormDefinitionError(
            f"Cannot render field '{field.attr}' of {spec.name} for protocol {protocol}: "
            "it asks for label_style='oneOf', which exists only from 2025-11-25 on. Remove "
            "the label style (2025-06-18 then gets enumNames), or ask with a newer protocol."
        )
    return field.label_style == "enumNames"


def _describe(field: FieldSpec) -> str | None:
    """Return the field's description, plus any strict bound the wire cannot express.

    The grammar has only inclusive ``minimum``/``maximum``, so a float that must be more
    than 0 travels as ``minimum: 0``; the sentence tells the person what the server will
    accept, instead of letting them submit the bound and be refused.
    """
    low, high = field.exclusive_minimum, field.exclusive_maximum
    if low is not None and high is not None:
        bound = f"Must be more than {low} and less than {high}."
    elif low is not None:
        bound = f"Must be more than {low}."
    elif high is not None:
        bound = f"Must be less than {high}."
    else:
        return field.description
    if not field.description:
        return bound
    joiner = " " if field.description.rstrip().endswith((".", "!", "?")) else ". "
    return f"{field.description.rstrip()}{joiner}{bound}"


def _put(out: dict[str, Any], key: str, value: object) -> None:
    if value is not None:
        out[key] = value
