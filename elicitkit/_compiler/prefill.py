"""The default a client should prefill: one rule for rendering, decoding and overrides."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
from typing import Any

from elicitkit._compiler.form_spec import MISSING, FieldSpec, Kind


def wire_default(field: FieldSpec) -> Any:
    """Return the field's default as the client should prefill it, or `MISSING`.

    A ``FormField(prefill=...)`` wins over the default. Defaults from a ``default_factory``
    are not rendered: a factory may return a fresh value on every call (``datetime.now``),
    and schemas are rendered once and cached; the known pure factories of an empty
    collection (``list``, ``set``, ``frozenset``, ``tuple``) are the exception, rendered as
    ``[]`` on a multi-select. A default that does not fit the field (``None``, a value of
    another type) is left out.
    """
    value = field.default if field.prefill is MISSING else field.prefill
    if (
        value is MISSING
        and field.kind is Kind.MULTI_CHOICE
        and field.default_factory in _EMPTY_COLLECTIONS
    ):
        return []
    if value is MISSING or value is None:
        return MISSING
    kind = field.kind
    if kind is Kind.BOOLEAN:
        return value if isinstance(value, bool) else MISSING
    if kind is Kind.INTEGER:
        return value if isinstance(value, int) and not isinstance(value, bool) else MISSING
    if kind is Kind.NUMBER:
        if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
            return MISSING
        return value if isinstance(value, (int, float)) else float(value)
    if kind is Kind.TEXT:
        if isinstance(value, (dt.date, dt.datetime)):
            return value.isoformat()
        if isinstance(value, str) or field.convert is not None:
            return str(value)
        return MISSING
    by_value = {_choice_key(choice.value): choice.wire for choice in field.choices}
    if kind is Kind.CHOICE:
        return by_value.get(_choice_key(value), MISSING)
    try:
        wires = [by_value[_choice_key(item)] for item in value]
    except (KeyError, TypeError):
        return MISSING
    return wires


_EMPTY_COLLECTIONS: tuple[object, ...] = (list, set, frozenset, tuple)


def _choice_key(value: object) -> tuple[type, object]:
    # Keyed with the type so that True and 1 (equal in Python) stay different options.
    return (type(value), value.value if isinstance(value, enum.Enum) else value)
