"""Every form vocabulary gives the same wire schema and decodes to its own type."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import typing
from typing import Annotated, Any, Literal

import msgspec
import pydantic
import pytest

from elicitkit import FormField, InvalidContent, parse_content, requested_schema
from tests import future_forms as ff

BOOKING_SCHEMA = {
    "type": "object",
    "properties": {
        "guest": {"type": "string", "title": "Guest", "minLength": 1},
        "seats": {"type": "integer", "title": "Seats", "minimum": 1, "maximum": 8},
        "meal": {"type": "string", "title": "Meal", "enum": ["vegan", "fish"]},
        "day": {"type": "string", "title": "Day", "format": "date"},
        "note": {"type": "string", "title": "Note"},
        "vip": {"type": "boolean", "title": "Vip"},
    },
    "required": ["guest", "seats", "meal", "day"],
}
ANSWER = {"guest": "Ann", "seats": 2, "meal": "fish", "day": "2026-05-01"}

FORMS = [
    pytest.param(ff.BookingDataclass, id="dataclass"),
    pytest.param(ff.BookingModel, id="pydantic model"),
    pytest.param(ff.BookingStruct, id="msgspec Struct"),
    pytest.param(ff.BookingTypedDict, id="typing.TypedDict"),
    pytest.param(ff.BookingExtTypedDict, id="typing_extensions.TypedDict total=False"),
]


@pytest.mark.parametrize("form_type", FORMS)
def test_same_schema_from_every_vocabulary(form_type: Any) -> None:
    schema = requested_schema(form_type)
    expected = BOOKING_SCHEMA
    if form_type in (ff.BookingDataclass, ff.BookingModel, ff.BookingStruct):
        expected = _with_vip_default(expected)
    assert schema == expected


def _with_vip_default(schema: dict[str, Any]) -> dict[str, Any]:
    properties = dict(schema["properties"])
    properties["vip"] = {**properties["vip"], "default": False}
    return {**schema, "properties": properties}


@pytest.mark.parametrize("form_type", FORMS)
def test_decodes_to_the_authors_type(form_type: Any) -> None:
    value = parse_content(form_type, ANSWER)
    if typing.is_typeddict(form_type) or form_type is ff.BookingExtTypedDict:
        # A TypedDict comes back without the absent keys.
        assert value == {
            "guest": "Ann",
            "seats": 2,
            "meal": ff.Meal.FISH,
            "day": dt.date(2026, 5, 1),
        }
        assert type(value) is dict
        return
    assert type(value) is form_type
    assert value.guest == "Ann"
    assert value.seats == 2
    assert value.meal is ff.Meal.FISH
    assert value.day == dt.date(2026, 5, 1)
    assert value.note is None
    assert value.vip is False


@pytest.mark.parametrize("form_type", FORMS)
def test_every_vocabulary_collects_every_error(form_type: Any) -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(form_type, {"guest": "", "seats": 9, "meal": "beef", "day": "soon", "vip": 1})
    assert [(error.field, error.message) for error in caught.value.errors] == [
        ("guest", "Must be at least 1 character long."),
        ("seats", "Must be at most 8."),
        ("meal", "Must be one of 'vegan', 'fish'; got 'beef'."),
        ("day", "Expected a date like 2024-12-31, got 'soon'."),
        ("vip", "Expected true or false, got the number 1."),
    ]


def test_pydantic_dataclass_is_built_by_its_constructor() -> None:
    schema = requested_schema(ff.BookingPydanticDataclass)
    assert schema["properties"]["seats"] == {
        "type": "integer",
        "title": "Seats",
        "minimum": 1,
        "maximum": 8,
    }
    assert schema["required"] == ["guest", "seats"]
    value = parse_content(ff.BookingPydanticDataclass, {"guest": "Bo", "seats": 3})
    assert value == ff.BookingPydanticDataclass(guest="Bo", seats=3)


def test_typeddict_keeps_present_optional_keys() -> None:
    value = parse_content(ff.BookingTypedDict, {**ANSWER, "note": "window", "vip": True})
    assert value["note"] == "window"
    assert value["vip"] is True


def test_struct_uses_its_encoded_names() -> None:
    class Renamed(msgspec.Struct, rename="camel"):
        zip_code: str
        house_number: int | None = None

    schema = requested_schema(Renamed)
    assert schema == {
        "type": "object",
        "properties": {
            "zipCode": {"type": "string", "title": "Zip code"},
            "houseNumber": {"type": "integer", "title": "House number"},
        },
        "required": ["zipCode"],
    }
    assert parse_content(Renamed, {"zipCode": "0150", "houseNumber": 4}) == Renamed("0150", 4)


def test_pydantic_aliases_are_wire_keys() -> None:
    class Aliased(pydantic.BaseModel):
        zip_code: str = pydantic.Field(alias="zip")

    assert requested_schema(Aliased)["properties"] == {
        "zip": {"type": "string", "title": "Zip code"}
    }
    assert parse_content(Aliased, {"zip": "0150"}).zip_code == "0150"


def test_pydantic_validators_run_and_land_in_the_error_list() -> None:
    class Stay(pydantic.BaseModel):
        arrive: dt.date
        leave: dt.date

        @pydantic.field_validator("leave")
        @classmethod
        def _not_a_sunday(cls, value: dt.date) -> dt.date:
            if value.weekday() == 6:
                raise ValueError("we are closed on Sundays")
            return value

        @pydantic.model_validator(mode="after")
        def _in_order(self) -> Stay:
            if self.leave <= self.arrive:
                raise ValueError("leave must be after arrive")
            return self

    assert parse_content(Stay, {"arrive": "2026-05-01", "leave": "2026-05-02"}).leave == dt.date(
        2026, 5, 2
    )
    with pytest.raises(InvalidContent) as caught:
        parse_content(Stay, {"arrive": "2026-05-01", "leave": "2026-05-03"})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("leave", "We are closed on Sundays.")
    ]
    with pytest.raises(InvalidContent) as caught:
        parse_content(Stay, {"arrive": "2026-05-02", "leave": "2026-05-01"})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        (None, "Leave must be after arrive.")
    ]


def test_post_init_value_errors_become_form_errors() -> None:
    @dataclasses.dataclass
    class Window:
        start: int
        end: int

        def __post_init__(self) -> None:
            if self.end < self.start:
                raise ValueError("end must not be before start")

    assert parse_content(Window, {"start": 1, "end": 2}) == Window(1, 2)
    with pytest.raises(InvalidContent) as caught:
        parse_content(Window, {"start": 3, "end": 2})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        (None, "End must not be before start.")
    ]


def test_keyword_only_and_hand_written_init() -> None:
    @dataclasses.dataclass(kw_only=True)
    class KeywordOnly:
        b: int
        a: str

    assert parse_content(KeywordOnly, {"a": "x", "b": 1}) == KeywordOnly(a="x", b=1)

    @dataclasses.dataclass(init=False)
    class Reordered:
        a: str
        b: int

        def __init__(self, b: int, a: str) -> None:
            self.a, self.b = a.upper(), b

    value = parse_content(Reordered, {"a": "x", "b": 1})
    assert (value.a, value.b) == ("X", 1)


def test_init_false_fields_are_not_asked() -> None:
    @dataclasses.dataclass
    class WithComputed:
        name: str
        slug: str = dataclasses.field(init=False, default="")

        def __post_init__(self) -> None:
            self.slug = self.name.lower()

    assert list(requested_schema(WithComputed)["properties"]) == ["name"]
    assert parse_content(WithComputed, {"name": "Ann"}).slug == "ann"


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


BARE = [
    pytest.param(str, "hello", "hello", {"type": "string", "title": "Answer"}, id="str"),
    pytest.param(int, 3, 3, {"type": "integer", "title": "Number"}, id="int"),
    pytest.param(float, 2.5, 2.5, {"type": "number", "title": "Number"}, id="float"),
    pytest.param(
        bool, True, True, {"type": "boolean", "title": "Confirm", "default": False}, id="bool"
    ),
    pytest.param(
        Literal["a", "b"],
        "b",
        "b",
        {"type": "string", "title": "Choice", "enum": ["a", "b"]},
        id="Literal",
    ),
    pytest.param(
        Color,
        "blue",
        Color.BLUE,
        {"type": "string", "title": "Color", "enum": ["red", "blue"]},
        id="Enum",
    ),
    pytest.param(
        dt.date,
        "2026-02-03",
        dt.date(2026, 2, 3),
        {"type": "string", "title": "Date", "format": "date"},
        id="date",
    ),
    pytest.param(
        dt.datetime,
        "2026-02-03T04:05:06Z",
        dt.datetime(2026, 2, 3, 4, 5, 6, tzinfo=dt.timezone.utc),
        {"type": "string", "title": "Date and time", "format": "date-time"},
        id="datetime",
    ),
    pytest.param(
        Annotated[bool, FormField(title="Delete 3 files?")],
        False,
        False,
        {"type": "boolean", "title": "Delete 3 files?", "default": False},
        id="Annotated bool",
    ),
    pytest.param(
        ff.Confirm,
        "yes",
        "yes",
        {"type": "string", "title": "Choice", "enum": ["yes", "no"]},
        id="alias",
    ),
]


@pytest.mark.parametrize(("tp", "wire", "expected", "fragment"), BARE)
def test_bare_types_are_one_field_forms(tp: Any, wire: Any, expected: Any, fragment: Any) -> None:
    assert requested_schema(tp) == {
        "type": "object",
        "properties": {"value": fragment},
        "required": ["value"],
    }
    value = parse_content(tp, {"value": wire})
    assert value == expected
    assert type(value) is type(expected)


def test_bare_optional_answer_may_be_absent() -> None:
    assert requested_schema(int | None) == {
        "type": "object",
        "properties": {"value": {"type": "integer", "title": "Number"}},
    }
    assert parse_content(int | None, {}) is None
