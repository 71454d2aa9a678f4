"""The keys the MCP spec's TypeScript types allow in a ``requestedSchema``, per version.

A strict client (Codex deserialises with serde's ``deny_unknown_fields``) refuses a schema
with any other key. Checked in one pass over the schema: linear in its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from elicitkit.protocol import FIRST_PROTOCOL

_TOP = frozenset({"$schema", "type", "properties", "required"})
_COMMON = frozenset({"type", "title", "description", "default"})
_BY_TYPE: dict[str, frozenset[str]] = {
    "string": _COMMON | {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
    "integer": _COMMON | {"minimum", "maximum"},
    "number": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"minItems", "maxItems", "items"},
}
_OPTION = frozenset({"const", "title"})
_ITEMS = frozenset({"type", "enum", "anyOf"})
# 2025-06-18 had no titled (oneOf) or multi-select (array) variants.
_NOT_IN_FIRST = frozenset({"oneOf", "array"})


def unknown_key(schema: Mapping[str, Any], protocol: str) -> str | None:
    """Return the path of the first key the spec does not allow, or ``None``."""
    extra = _first_extra(schema, _TOP)
    if extra is not None:
        return extra
    properties = _mapping(schema.get("properties"))
    if properties is None:
        return "properties"
    for name, value in properties.items():
        field = _mapping(value)
        if field is None:
            return f"properties.{name}"
        kind = field.get("type")
        allowed = _BY_TYPE.get(kind) if isinstance(kind, str) else None
        if allowed is None or (protocol == FIRST_PROTOCOL and kind in _NOT_IN_FIRST):
            return f"properties.{name}.type"
        extra = _first_extra(field, allowed)
        if extra is None and protocol == FIRST_PROTOCOL and "oneOf" in field:
            extra = "oneOf"
        if extra is not None:
            return f"properties.{name}.{extra}"
        nested = _nested_extra(field)
        if nested is not None:
            return f"properties.{name}.{nested}"
    return None


def _first_extra(node: Mapping[str, Any], allowed: frozenset[str]) -> str | None:
    for key in node:
        if key not in allowed:
            return str(key)
    return None


def _mapping(value: object) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _nested_extra(field: Mapping[str, Any]) -> str | None:
    items = _mapping(field.get("items"))
    if items is not None:
        extra = _first_extra(items, _ITEMS)
        if extra is not None:
            return f"items.{extra}"
        options: object = items.get("anyOf", ())
    else:
        options = field.get("oneOf", ())
    for value in cast("list[object]", options) if isinstance(options, list) else ():
        option = _mapping(value)
        if option is not None:
            extra = _first_extra(option, _OPTION)
            if extra is not None:
                return extra
    return None
