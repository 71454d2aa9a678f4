"""Field checks made when a form is compiled: constraints that fit the kind, and no secrets."""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Callable
from typing import Any

from elicitkit._compiler.field_settings import FieldSettings
from elicitkit._compiler.form_spec import Kind
from elicitkit._compiler.names import secret_word
from elicitkit._compiler.wire_formats import pattern_matcher
from elicitkit.errors import FormDefinitionError


def constraints(
    kind: Kind,
    fmt: str | None,
    written: str,
    settings: FieldSettings,
    problem: Callable[[str], FormDefinitionError],
) -> dict[str, Any]:
    """Check that every constraint fits the field's kind; return them as FieldSpec values."""
    has_bounds = any(v is not None for v in (settings.ge, settings.gt, settings.le, settings.lt))
    has_lengths = settings.min_length is not None or settings.max_length is not None
    numeric = kind in (Kind.INTEGER, Kind.NUMBER)
    if has_bounds and not numeric:
        raise problem(
            f"bounds (ge, gt, le, lt) apply only to numbers, and this field is "
            f"{written}. Remove them, or use min_length/max_length for lengths."
        )
    if has_lengths and kind not in (Kind.TEXT, Kind.MULTI_CHOICE):
        raise problem(
            f"length limits apply only to text and multi-selects, and this field is "
            f"{written}. Remove them, or use ge/le for bounds."
        )
    if settings.pattern is not None and kind is not Kind.TEXT:
        raise problem(f"a pattern applies only to text, and this field is {written}.")
    if settings.format is not None and fmt != settings.format:
        raise problem(
            f"format '{settings.format}' applies only to a plain str field, and this field is "
            f"{written}. Remove it: dates, datetimes, EmailStr and URL types carry "
            "their own format."
        )
    values: dict[str, Any] = {}
    if numeric:
        values.update(_bounds(kind, settings, problem))
    if has_lengths:
        values["min_length"] = settings.min_length
        values["max_length"] = settings.max_length
        low, high = settings.min_length or 0, settings.max_length
        if high is not None and low > high:
            raise problem(f"min length {low} is greater than max length {high}.")
    if settings.pattern is not None:
        try:
            re.compile(settings.pattern)  # the author's text, never the client's
        except re.error as exc:
            raise problem(
                f"the pattern {settings.pattern!r} is not a valid regular expression ({exc})."
            ) from exc
        try:
            pattern_matcher(settings.pattern)
        except ValueError as exc:
            raise problem(
                f"the pattern {settings.pattern!r} cannot be checked in linear time ({exc}). "
                "Answers are checked with a linear-time regular-expression engine, so that no "
                "answer can stall the server; write the pattern without look-around and "
                "backreferences, or check the value in a validator."
            ) from exc
        values["pattern"] = settings.pattern
    return values


def _bounds(
    kind: Kind, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> dict[str, Any]:
    for name in ("ge", "gt", "le", "lt"):
        value = getattr(settings, name)
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, (int, float, decimal.Decimal))
            or not math.isfinite(value)
        ):
            raise problem(f"the bound {name}={value!r} is not a finite number.")
    minimum, maximum = settings.ge, settings.le
    out: dict[str, Any] = {}
    if kind is Kind.INTEGER:
        # The wire has no exclusive bounds; on integers they have exact inclusive twins.
        if settings.gt is not None:
            low = math.floor(settings.gt) + 1
            minimum = low if minimum is None else max(minimum, low)
        if settings.lt is not None:
            high = math.ceil(settings.lt) - 1
            maximum = high if maximum is None else min(maximum, high)
        minimum = None if minimum is None else math.ceil(minimum)
        maximum = None if maximum is None else math.floor(maximum)
    else:
        # On floats they have none: the wire carries the bound itself (the closest the
        # grammar can say, so a client can still place its slider), and decoding enforces
        # the strict bound.
        if settings.gt is not None:
            out["exclusive_minimum"] = _plain_number(settings.gt)
            minimum = settings.gt if minimum is None else max(minimum, settings.gt)
        if settings.lt is not None:
            out["exclusive_maximum"] = _plain_number(settings.lt)
            maximum = settings.lt if maximum is None else min(maximum, settings.lt)
    if minimum is not None and maximum is not None and minimum > maximum:
        raise problem(f"the lower bound {minimum} is above the upper bound {maximum}.")
    out["minimum"] = None if minimum is None else _plain_number(minimum)
    out["maximum"] = None if maximum is None else _plain_number(maximum)
    return out


def _plain_number(value: Any) -> int | float:
    if isinstance(value, int):
        return value
    as_float = float(value)
    return (
        int(as_float) if as_float.is_integer() and isinstance(value, decimal.Decimal) else as_float
    )


# What to do instead of asking for a secret in a form; one place, so that it can follow
# what elicitkit offers (URL mode arrives in a later release).
URL_MODE_ADVICE = (
    "MCP forbids asking for secrets (passwords, API keys, tokens, one-time codes, payment "
    "card data) in form mode. Collect it on a page you control, opened with URL-mode "
    "elicitation: 'answer = await elicitkit.url.ask_url(\"Sign in to Acme\", page_url)' in the "
    "tool, then 'await elicitkit.url.complete_url(answer.content)' from the page's callback"
)


def check_not_secret(
    name: str, key: str, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> None:
    if settings.sensitive is False:
        return
    word = secret_word(name)
    wire_word = secret_word(key) if word is None and key != name else None
    if word is not None:
        reason = f"its name suggests a secret ({word})"
    elif wire_word is not None:
        reason = f"its wire key '{key}' suggests a secret ({wire_word})"
    elif settings.sensitive:
        reason = "it is marked sensitive"
    else:
        return
    raise problem(
        f"{reason}, and {URL_MODE_ADVICE}, or mark the field FormField(sensitive=False) if it "
        "holds no secret."
    )
