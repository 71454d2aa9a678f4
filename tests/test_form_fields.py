"""The terminal form's reading of a requestedSchema: hints, prefills, and checked input."""

from __future__ import annotations

from typing import Any

import pytest

import elicitkit
from elicitkit.cli.schema_reader import SKIP, WireField, wire_fields
from tests.test_stdio import BOOKING, SHIPPING, _load_example

shipping = _load_example(SHIPPING)
booking = _load_example(BOOKING)


def field(schema: dict[str, Any], *, required: bool = True) -> WireField:
    return WireField("f", schema, required)


CHOICE = {"type": "string", "enum": ["a", "b"], "enumNames": ["Apple", "Banana"]}
TITLED = {"type": "string", "oneOf": [{"const": "a", "title": "Apple"}, {"const": "b"}]}
MULTI = {
    "type": "array",
    "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]},
    "minItems": 1,
    "maxItems": 1,
}


@pytest.mark.parametrize(
    ("schema", "text", "value"),
    [
        pytest.param({"type": "string"}, "  hi  ", "hi", id="text-stripped"),
        pytest.param({"type": "string", "format": "date"}, "2026-02-28", "2026-02-28", id="date"),
        pytest.param(
            {"type": "string", "format": "date-time"},
            "2026-02-28T10:00:00Z",
            "2026-02-28T10:00:00Z",
            id="date-time",
        ),
        pytest.param({"type": "string", "format": "email"}, "a@b.co", "a@b.co", id="email"),
        pytest.param({"type": "string", "format": "uri"}, "https://x.y", "https://x.y", id="uri"),
        pytest.param({"type": "integer", "minimum": 1, "maximum": 12}, "12", 12, id="integer"),
        pytest.param({"type": "number"}, "2.5", 2.5, id="number"),
        pytest.param({"type": "number"}, "-3", -3, id="number-whole"),
        pytest.param({"type": "boolean"}, "Yes", True, id="yes"),
        pytest.param({"type": "boolean"}, "n", False, id="no"),
        pytest.param(CHOICE, "2", "b", id="choice-by-number"),
        pytest.param(CHOICE, "banana", "b", id="choice-by-label"),
        pytest.param(TITLED, "A", "a", id="titled-by-value"),
        pytest.param(MULTI, "why, 2", ["y"], id="multi-deduplicated"),
    ],
)
def test_parse_accepts(schema: dict[str, Any], text: str, value: Any) -> None:
    assert field(schema).parse(text) == value


@pytest.mark.parametrize(
    ("schema", "text", "message"),
    [
        pytest.param({"type": "string"}, "", "Required: type a value.", id="required"),
        pytest.param(
            {"type": "string", "minLength": 4}, "222", "At least 4 characters (3 so far).", id="min"
        ),
        pytest.param(
            {"type": "string", "maxLength": 2}, "abc", "At most 2 characters (3 now).", id="max"
        ),
        pytest.param(
            {"type": "string", "format": "date"},
            "2026-02-30",
            "A date as YYYY-MM-DD, like 2026-12-24.",
            id="no-such-day",
        ),
        pytest.param(
            {"type": "string", "format": "date"},
            "20261224",
            "A date as YYYY-MM-DD, like 2026-12-24.",
            id="compact-date",
        ),
        pytest.param(
            {"type": "string", "format": "email"},
            "ada",
            "An email address, like ada@example.com.",
            id="email",
        ),
        pytest.param(
            {"type": "string", "format": "uri"},
            "a b",
            "A URI, like https://example.com.",
            id="uri",
        ),
        pytest.param({"type": "integer"}, "2.5", "A whole number.", id="not-whole"),
        pytest.param(
            {"type": "integer", "minimum": 1, "maximum": 12},
            "20",
            "A whole number from 1 to 12.",
            id="bounds",
        ),
        pytest.param({"type": "number", "minimum": 0}, "-1", "A number at least 0.", id="low"),
        pytest.param({"type": "number"}, "nan", "A finite number.", id="nan"),
        pytest.param({"type": "boolean"}, "maybe", "Type y or n.", id="boolean"),
        pytest.param(CHOICE, "3", "One of 1-2, or a value from the list.", id="choice"),
        pytest.param(MULTI, "x, y", "Pick exactly 1 choice.", id="too-many"),
    ],
)
def test_parse_refuses_with_a_reason(schema: dict[str, Any], text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        field(schema).parse(text)
    assert str(caught.value) == message


def test_an_empty_optional_field_is_skipped() -> None:
    assert field({"type": "integer"}, required=False).parse(" ") is SKIP


def test_booking_form_hints_and_prefills() -> None:
    schema = elicitkit.requested_schema(booking.Booking, protocol="2025-11-25")
    fields = {f.key: f for f in wire_fields(schema)}
    assert {key: f.hint() for key, f in fields.items()} == {
        "name": "text, at least 1 character",
        "day": "date YYYY-MM-DD",
        "time": "pick 1-3, optional, Enter keeps the default",
        "guests": "whole number, from 1 to 12",
        "area": "pick 1-2, optional, Enter keeps the default",
        "note": "text, at most 200 characters, optional, Enter skips",
    }
    assert fields["time"].prefill() == "19:30"
    assert fields["guests"].prefill() == ""
    assert [f.kind for f in fields.values()] == [
        "text",
        "text",
        "choice",
        "integer",
        "choice",
        "text",
    ]


@pytest.mark.parametrize("protocol", elicitkit.protocol.PROTOCOL_VERSIONS)
def test_shipping_labels_on_every_protocol(protocol: str) -> None:
    schema = elicitkit.requested_schema(shipping.ShippingAddress, protocol=protocol)
    speed = next(f for f in wire_fields(schema) if f.key == "speed")
    assert speed.options == [
        ("standard", "Standard (3-5 days)"),
        ("express", "Express (next day)"),
    ]


def test_boolean_and_multi_prefills() -> None:
    assert field({"type": "boolean", "default": False}).prefill() == "n"
    assert field({**MULTI, "default": ["x", "y"]}).prefill() == "x, y"
    assert field(TITLED).options == [("a", "Apple"), ("b", "b")]
