"""What a form that always fills its inputs sends for an optional field the user left alone.

fast-agent's terminal forms (docs/clients.json, ``untouched_optional_form``) send a radio
list's selected first option, an unticked box as ``false`` and an empty checklist as ``[]``;
text and numbers left alone stay out of the answer. The testing kit reproduces it
(``fills_untouched`` profiles) and ``elicitkit check`` warns about it, from this one rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, cast

NOTHING: Final = object()
"""`untouched_value` for a field that stays out of the answer."""


def untouched_value(field: Mapping[str, Any]) -> Any:
    """The value sent for ``field`` (a ``requestedSchema`` property) left alone, or `NOTHING`."""
    kind = field.get("type")
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    options = field.get("enum")
    if kind == "string" and isinstance(options, list) and options:
        return cast("list[object]", options)[0]
    titled = field.get("oneOf")
    if kind == "string" and isinstance(titled, list) and titled:
        first = cast("list[object]", titled)[0]
        if isinstance(first, Mapping) and "const" in first:
            return cast("Mapping[str, Any]", first)["const"]
    return NOTHING


def input_value(field: Mapping[str, Any]) -> Any:
    """What a web form whose inputs always hold a value sends for ``field`` left alone.

    The mcp-use Inspector (docs/clients.json, ``untouched_optional_form``) sends an
    unticked box as ``false``, an empty checklist as ``[]`` and a number input as the ``0``
    it shows; a select left on its placeholder and text left empty stay out of the answer.
    """
    kind = field.get("type")
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    return NOTHING


def filled_when_untouched(
    schema: Mapping[str, Any], value_of: Callable[[Mapping[str, Any]], Any] = untouched_value
) -> list[str]:
    """The keys of optional fields without a default that such a form sends when left alone.

    ``value_of`` is the client's rule: `untouched_value` (the default) or `input_value`.
    """
    required = set(schema.get("required", ()))
    properties: Mapping[str, Any] = schema.get("properties", {})
    return [
        key
        for key, field in properties.items()
        if key not in required
        and isinstance(field, Mapping)
        and "default" not in field
        and value_of(cast("Mapping[str, Any]", field)) is not NOTHING
    ]
