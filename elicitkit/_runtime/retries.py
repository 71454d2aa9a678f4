"""Re-asking after an invalid answer: the corrected question, built the same every round.

When an accepted answer fails the form's checks, ``ask(..., retries=N)`` asks again with
the same form, the message extended with the problems in plain words, and the parts of
the previous answer that passed as defaults (where the protocol version has defaults for
that kind: booleans only on 2025-06-18, every kind from 2025-11-25 on). On 2026-07-28 the
re-ask is derived only from what the sealed state carries (the errors and the kept
values), so every round renders the very same question, with the very same digest.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from elicitkit._compiler.form_spec import FieldSpec, FormSpec, Kind
from elicitkit._compiler.wire_formats import sendable_text
from elicitkit.errors import FieldError
from elicitkit.protocol import FIRST_PROTOCOL

DEFAULT_RETRIES: Final = 2
"""How many times ``ask()`` asks again after an invalid answer, by default.

Two: a person who mistyped gets two more chances with the problems spelled out, while a
client that does not validate and sends the same bad answer every time (some accept with
no content at all) ends in `InvalidContent` after three requests instead of looping, and
on 2026-07-28 a re-ask costs a round of `ReplayLimits.max_rounds`.
"""

# A re-ask's key on 2026-07-28: the question's key, this marker, and the attempt number.
# '~' is not allowed in explicit keys, so a re-ask never collides with another question.
RETRY_MARK: Final = "~"


def check_retries(retries: int) -> int:
    """Refuse a retry count that is not a small non-negative integer."""
    if retries.__class__ is int and 0 <= retries <= 20:
        return retries  # the usual case (not a bool: its class is bool)
    given = cast("object", retries)  # checked at run time: callers may pass anything
    if isinstance(given, bool) or not isinstance(given, int) or not 0 <= given <= 20:
        raise ValueError(
            f"ask() got retries={retries!r}, which is not a whole number from 0 to 20. Pass "
            "how many times to ask again after an invalid answer, e.g. retries=2 (0: never)."
        )
    return retries


def kept_values(
    spec: FormSpec, content: object, errors: Sequence[FieldError], protocol: str
) -> list[Any]:
    """The previous answer's values that passed and can be sent back as defaults.

    In the form's field order, ``None`` where nothing is kept: a field with an error, a
    value of the wrong wire type, or a kind with no default on this version.
    """
    if not isinstance(content, Mapping):
        return []
    fields = cast("Mapping[object, object]", content)
    wrong = {error.field for error in errors}
    kept: list[Any] = []
    for field in spec.fields:
        value = fields.get(field.key)
        usable = (
            field.key not in wrong
            and (field.kind is Kind.BOOLEAN or protocol != FIRST_PROTOCOL)
            and _fits(field, value)
        )
        kept.append(_sendable(value) if usable else None)
    while kept and kept[-1] is None:
        kept.pop()
    return kept


def _fits(field: FieldSpec, value: object) -> bool:
    kind = field.kind
    if kind is Kind.BOOLEAN:
        return isinstance(value, bool)
    if kind is Kind.INTEGER:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is Kind.NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is Kind.MULTI_CHOICE:
        return isinstance(value, list) and all(
            isinstance(item, str) for item in cast("list[object]", value)
        )
    return isinstance(value, str)


def _sendable(value: Any) -> Any:
    if isinstance(value, str):
        return sendable_text(value)
    if isinstance(value, list):
        return [sendable_text(item) for item in cast("list[str]", value)]
    return value


def corrected_params(
    params: Mapping[str, Any],
    spec: FormSpec,
    errors: Sequence[FieldError],
    kept: Sequence[Any],
) -> dict[str, Any]:
    """The re-ask of ``params``: the problems appended to the message, kept values as defaults."""
    again = copy.deepcopy(dict(params))
    # The paragraph without_corrections takes off again, for the listing.
    again["message"] = f"{params['message']}\n\n{problems_in_words(spec, errors)}"
    properties = cast("dict[str, dict[str, Any]]", again["requestedSchema"]["properties"])
    for field, value in zip(spec.fields, kept, strict=False):
        if value is not None and field.key in properties:
            properties[field.key]["default"] = value
    return again


def problems_in_words(spec: FormSpec, errors: Sequence[FieldError]) -> str:
    """``"Please correct your answer: City: This field is required."`` and so on."""
    titles = {field.key: field.title for field in spec.fields}
    said = " ".join(
        error.message
        if error.field is None
        else f"{titles.get(error.field, error.field)}: {error.message}"
        for error in errors
    )
    return f"{CORRECTION_LEAD} {said}"


CORRECTION_LEAD: Final = "Please correct your answer."
"""How the paragraph `corrected_params` appends to a re-asked question's message begins."""


def without_corrections(message: str) -> str:
    """The message of a re-ask as first asked, without the paragraph of its problems.

    The listing for the model gives those problems once, as its ``corrections``.
    """
    asked, found, _ = message.rpartition(f"\n\n{CORRECTION_LEAD} ")
    return asked if found else message
