"""A client's reading of a ``requestedSchema``: one `WireField` per property, checked input.

Used by the terminal form (``elicitkit try`` and the interactive demo) to show each field
with its hints, prefill its default, and check what the user types before it is sent. It
reads the wire schema, not elicitkit's own form types: ``try`` talks to any server.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

from elicitkit.cli.shown_text import shown

FieldKind = Literal["text", "integer", "number", "boolean", "choice", "multi"]


class _Skip:
    """The user left an optional field empty: the key stays out of the answer."""

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Final = _Skip()

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_YES = ("y", "yes", "true")
_NO = ("n", "no", "false")


@dataclass(frozen=True)
class WireField:
    """One property of a ``requestedSchema``, as a form client shows it.

    Attributes:
        key: The property name.
        schema: The property's schema.
        required: Whether the schema lists it as required.
    """

    key: str
    schema: Mapping[str, Any]
    required: bool

    @property
    def title(self) -> str:
        """The label: the schema's title, else the key."""
        return str(self.schema.get("title") or self.key)

    @property
    def kind(self) -> FieldKind:
        """Which input the field needs."""
        kind = self.schema.get("type")
        if kind == "array":
            return "multi"
        if kind in ("integer", "number", "boolean"):
            return cast("FieldKind", kind)
        if "enum" in self.schema or "oneOf" in self.schema:
            return "choice"
        return "text"

    @property
    def options(self) -> list[tuple[str, str]]:
        """The ``(value, label)`` pairs of a choice or multi-choice field."""
        node = self.schema
        if self.kind == "multi":
            node = _mapping(self.schema.get("items"))
            if "anyOf" in node:
                return _titled(node.get("anyOf"))
        if "oneOf" in node:
            return _titled(node.get("oneOf"))
        values = [str(value) for value in _list(node.get("enum"))]
        names = [str(name) for name in _list(node.get("enumNames"))]
        if len(names) != len(values):
            names = values
        return list(zip(values, names, strict=True))

    def hint(self) -> str:
        """A short description of what to type: kind, bounds, options."""
        schema = self.schema
        kind = self.kind
        parts: list[str] = []
        if kind == "text":
            fmt = schema.get("format")
            parts.append(_FORMAT_HINTS.get(str(fmt), "text") if fmt else "text")
            low, high = schema.get("minLength"), schema.get("maxLength")
            if low is not None or high is not None:
                parts.append(_span(low, high, "characters"))
        elif kind in ("integer", "number"):
            parts.append("whole number" if kind == "integer" else "number")
            low, high = schema.get("minimum"), schema.get("maximum")
            if low is not None or high is not None:
                parts.append(_span(low, high, ""))
        elif kind == "boolean":
            parts.append("y/n")
        elif kind == "choice":
            parts.append(f"pick 1-{len(self.options)}")
        else:
            parts.append(f"pick any of 1-{len(self.options)}, comma-separated")
            low, high = schema.get("minItems"), schema.get("maxItems")
            if low is not None or high is not None:
                parts.append(_span(low, high, "choices"))
        if not self.required:
            parts.append("optional")
        # The terminal's one vocabulary: Enter keeps a default shown, and skips an empty
        # optional field (as the toolbar under the prompt says).
        if self.prefill():
            parts.append("Enter keeps the default")
        elif not self.required:
            parts.append("Enter skips")
        return ", ".join(part for part in parts if part)

    def prefill(self) -> str:
        """The default as the user would type it, or ``""``."""
        if "default" not in self.schema:
            return ""
        default = self.schema["default"]
        if default is None:  # tool arguments: `X | None = None`
            return ""
        if self.kind == "boolean":
            return "y" if default is True else "n"
        if isinstance(default, list):
            return ", ".join(str(item) for item in cast("list[object]", default))
        return str(default)

    def parse(self, text: str) -> Any:
        """Turn what the user typed into the wire value, or `SKIP` for an empty optional.

        Raises:
            ValueError: The input does not fit; the message says what would.
        """
        text = text.strip()
        if not text:
            if self.required:
                raise ValueError("Required: type a value.")
            return SKIP
        kind = self.kind
        if kind == "text":
            return self._text(text)
        if kind in ("integer", "number"):
            return self._number(text)
        if kind == "boolean":
            if text.lower() in _YES:
                return True
            if text.lower() in _NO:
                return False
            raise ValueError("Type y or n.")
        if kind == "choice":
            return self._option(text)
        picked: list[str] = []
        for part in text.split(","):
            if part.strip():
                value = self._option(part.strip())
                if value not in picked:
                    picked.append(value)
        _check_count(len(picked), self.schema.get("minItems"), self.schema.get("maxItems"))
        return picked

    def _text(self, text: str) -> str:
        low, high = self.schema.get("minLength"), self.schema.get("maxLength")
        if isinstance(low, int) and len(text) < low:
            raise ValueError(f"At least {low} characters ({len(text)} so far).")
        if isinstance(high, int) and len(text) > high:
            raise ValueError(f"At most {high} characters ({len(text)} now).")
        fmt = self.schema.get("format")
        if fmt == "email" and not _EMAIL.fullmatch(text):
            raise ValueError("An email address, like ada@example.com.")
        if fmt == "uri" and not _URI.fullmatch(text):
            raise ValueError("A URI, like https://example.com.")
        if fmt == "date" and not _is_date(text):
            raise ValueError("A date as YYYY-MM-DD, like 2026-12-24.")
        if fmt == "date-time":
            try:
                dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                raise ValueError("A date and time, like 2026-12-24T19:30:00+01:00.") from None
        return text

    def _number(self, text: str) -> int | float:
        integer = self.kind == "integer"
        try:
            value: int | float = (
                int(text) if integer or text.lstrip("+-").isdigit() else float(text)
            )
        except ValueError:
            raise ValueError("A whole number." if integer else "A number.") from None
        if not math.isfinite(value):
            raise ValueError("A finite number.")
        low, high = self.schema.get("minimum"), self.schema.get("maximum")
        if (isinstance(low, (int, float)) and value < low) or (
            isinstance(high, (int, float)) and value > high
        ):
            noun = "A whole number" if integer else "A number"
            raise ValueError(f"{noun} {_span(low, high, '')}.")
        return value

    def _option(self, text: str) -> str:
        options = self.options
        if text.isdigit() and 1 <= int(text) <= len(options):
            return options[int(text) - 1][0]
        folded = text.casefold()
        for value, label in options:
            # The terminal shows, completes and prefills an option as shown() writes it, so
            # that form picks it too (the value sent is the server's own).
            if folded in {form.casefold() for form in (value, label, shown(value), shown(label))}:
                return value
        raise ValueError(f"One of 1-{len(options)}, or a value from the list.")


def wire_fields(schema: Mapping[str, Any]) -> list[WireField]:
    """Read every property of a ``requestedSchema``, in order."""
    required = set(_list(schema.get("required")))
    return [
        WireField(str(key), _mapping(value), key in required)
        for key, value in _mapping(schema.get("properties")).items()
    ]


_FORMAT_HINTS = {
    "email": "email",
    "uri": "URI",
    "date": "date YYYY-MM-DD",
    "date-time": "date and time YYYY-MM-DDTHH:MM",
}


def _is_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _span(low: object, high: object, unit: str) -> str:
    last = high if high is not None else low
    if unit.endswith("s") and last == 1:
        unit = unit[:-1]  # "1 character", "1 choice"
    unit = f" {unit}" if unit else ""
    if low is not None and low == high:
        return f"exactly {low}{unit}"
    if low is not None and high is not None:
        return f"from {low} to {high}{unit}"
    if low is not None:
        return f"at least {low}{unit}"
    return f"at most {high}{unit}"


def _check_count(count: int, low: object, high: object) -> None:
    if (isinstance(low, int) and count < low) or (isinstance(high, int) and count > high):
        raise ValueError(f"Pick {_span(low, high, 'choices')}.")


def _titled(options: object) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for option in _list(options):
        node = _mapping(option)
        value = str(node.get("const", ""))
        pairs.append((value, str(node.get("title") or value)))
    return pairs


def _mapping(value: object) -> Mapping[str, Any]:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else {}


def _list(value: object) -> list[object]:
    return cast("list[object]", value) if isinstance(value, list) else []
