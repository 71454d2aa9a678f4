"""Every supported annotation, and the exact fragment it renders on each protocol version."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
from typing import Annotated, Any, Literal, Optional

import annotated_types as at
import msgspec
import pydantic
import pytest
from typing_extensions import Doc

from elicitkit import Email, FormField, Uri, requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS
from tests.forms import one_field_form


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"
    __labels__ = {"SMALL": "Small (S)", "LARGE": "Large (L)"}


NEW = ("2025-11-25", "2026-07-28")


class Boxes(dict[str, Any]):
    """The checkboxes a multi-select becomes on 2025-06-18 (all the form's properties)."""


T = "Answer"  # the humanised title of the field `answer`
BOUND = "Must be more than 0.5 and less than 2."  # exclusive float bounds, said in words

# (id, annotation, default, fragment on 2025-06-18, fragment on 2025-11-25 and 2026-07-28)
ROWS: list[tuple[str, Any, Any, Any, dict[str, Any]]] = [
    ("str", str, None, {"type": "string", "title": T}, {"type": "string", "title": T}),
    ("int", int, None, {"type": "integer", "title": T}, {"type": "integer", "title": T}),
    ("float", float, None, {"type": "number", "title": T}, {"type": "number", "title": T}),
    (
        "Decimal",
        decimal.Decimal,
        None,
        {"type": "number", "title": T},
        {"type": "number", "title": T},
    ),
    ("bool", bool, None, {"type": "boolean", "title": T}, {"type": "boolean", "title": T}),
    (
        "bool default",
        bool,
        True,
        {"type": "boolean", "title": T, "default": True},
        {"type": "boolean", "title": T, "default": True},
    ),
    (
        "str default",
        str,
        "x",
        {"type": "string", "title": T},
        {"type": "string", "title": T, "default": "x"},
    ),
    (
        "int default",
        int,
        3,
        {"type": "integer", "title": T},
        {"type": "integer", "title": T, "default": 3},
    ),
    (
        "Decimal default",
        decimal.Decimal,
        decimal.Decimal("2.5"),
        {"type": "number", "title": T},
        {"type": "number", "title": T, "default": 2.5},
    ),
    (
        "str MinLen MaxLen",
        Annotated[str, at.MinLen(2), at.MaxLen(5)],
        None,
        {"type": "string", "title": T, "minLength": 2, "maxLength": 5},
        {"type": "string", "title": T, "minLength": 2, "maxLength": 5},
    ),
    (
        "str Len",
        Annotated[str, at.Len(2, 4)],
        None,
        {"type": "string", "title": T, "minLength": 2, "maxLength": 4},
        {"type": "string", "title": T, "minLength": 2, "maxLength": 4},
    ),
    (
        "int Ge Le",
        Annotated[int, at.Ge(1), at.Le(9)],
        None,
        {"type": "integer", "title": T, "minimum": 1, "maximum": 9},
        {"type": "integer", "title": T, "minimum": 1, "maximum": 9},
    ),
    (
        "int Gt Lt become inclusive",
        Annotated[int, at.Gt(0), at.Lt(10)],
        None,
        {"type": "integer", "title": T, "minimum": 1, "maximum": 9},
        {"type": "integer", "title": T, "minimum": 1, "maximum": 9},
    ),
    (
        "int Interval",
        Annotated[int, at.Interval(ge=1, le=5)],
        None,
        {"type": "integer", "title": T, "minimum": 1, "maximum": 5},
        {"type": "integer", "title": T, "minimum": 1, "maximum": 5},
    ),
    (
        "float Gt Lt carried as the bound",
        Annotated[float, at.Gt(0.5), at.Lt(2)],
        None,
        {"type": "number", "title": T, "description": BOUND, "minimum": 0.5, "maximum": 2},
        {"type": "number", "title": T, "description": BOUND, "minimum": 0.5, "maximum": 2},
    ),
    (
        "date",
        dt.date,
        None,
        {"type": "string", "title": T, "format": "date"},
        {"type": "string", "title": T, "format": "date"},
    ),
    (
        "date default",
        dt.date,
        dt.date(2024, 1, 2),
        {"type": "string", "title": T, "format": "date"},
        {"type": "string", "title": T, "format": "date", "default": "2024-01-02"},
    ),
    (
        "datetime",
        dt.datetime,
        None,
        {"type": "string", "title": T, "format": "date-time"},
        {"type": "string", "title": T, "format": "date-time"},
    ),
    (
        "Email marker",
        Annotated[str, Email],
        None,
        {"type": "string", "title": T, "format": "email"},
        {"type": "string", "title": T, "format": "email"},
    ),
    (
        "Uri marker",
        Annotated[str, Uri],
        None,
        {"type": "string", "title": T, "format": "uri"},
        {"type": "string", "title": T, "format": "uri"},
    ),
    (
        "pydantic EmailStr",
        pydantic.EmailStr,
        None,
        {"type": "string", "title": T, "format": "email"},
        {"type": "string", "title": T, "format": "email"},
    ),
    (
        "pydantic HttpUrl",
        pydantic.HttpUrl,
        None,
        {"type": "string", "title": T, "format": "uri"},
        {"type": "string", "title": T, "format": "uri"},
    ),
    (
        "pydantic AnyUrl",
        pydantic.AnyUrl,
        None,
        {"type": "string", "title": T, "format": "uri"},
        {"type": "string", "title": T, "format": "uri"},
    ),
    (
        "Literal str",
        Literal["a", "b"],
        None,
        {"type": "string", "title": T, "enum": ["a", "b"]},
        {"type": "string", "title": T, "enum": ["a", "b"]},
    ),
    (
        "Literal int",
        Literal[1, 2],
        None,
        {"type": "string", "title": T, "enum": ["1", "2"]},
        {"type": "string", "title": T, "enum": ["1", "2"]},
    ),
    (
        "Literal bool",
        Literal[True, False],
        None,
        {"type": "string", "title": T, "enum": ["true", "false"]},
        {"type": "string", "title": T, "enum": ["true", "false"]},
    ),
    (
        "Literal default",
        Literal["a", "b"],
        "b",
        {"type": "string", "title": T, "enum": ["a", "b"]},
        {"type": "string", "title": T, "enum": ["a", "b"], "default": "b"},
    ),
    (
        "Enum",
        Color,
        None,
        {"type": "string", "title": T, "enum": ["red", "green"]},
        {"type": "string", "title": T, "enum": ["red", "green"]},
    ),
    (
        "IntEnum default",
        Level,
        Level.HIGH,
        {"type": "string", "title": T, "enum": ["1", "2"]},
        {"type": "string", "title": T, "enum": ["1", "2"], "default": "2"},
    ),
    (
        "Enum with __labels__",
        Size,
        None,
        {"type": "string", "title": T, "enum": ["s", "l"], "enumNames": ["Small (S)", "Large (L)"]},
        {
            "type": "string",
            "title": T,
            "oneOf": [{"const": "s", "title": "Small (S)"}, {"const": "l", "title": "Large (L)"}],
        },
    ),
    (
        "Enum with FormField labels, one missing",
        Annotated[Color, FormField(labels={Color.RED: "Rouge"})],
        Color.GREEN,
        {"type": "string", "title": T, "enum": ["red", "green"], "enumNames": ["Rouge", "Green"]},
        {
            "type": "string",
            "title": T,
            "oneOf": [{"const": "red", "title": "Rouge"}, {"const": "green", "title": "Green"}],
            "default": "green",
        },
    ),
    (
        "Literal with labels",
        Annotated[Literal["y", "n"], FormField(labels={"y": "Yes", "n": "No"})],
        None,
        {"type": "string", "title": T, "enum": ["y", "n"], "enumNames": ["Yes", "No"]},
        {
            "type": "string",
            "title": T,
            "oneOf": [{"const": "y", "title": "Yes"}, {"const": "n", "title": "No"}],
        },
    ),
    (
        "list of Enum",
        list[Color],
        None,
        Boxes(
            answer__1={"type": "boolean", "title": f"{T}: red", "default": False},
            answer__2={"type": "boolean", "title": f"{T}: green", "default": False},
        ),
        {"type": "array", "title": T, "items": {"type": "string", "enum": ["red", "green"]}},
    ),
    (
        "set of Literal with counts",
        Annotated[set[Literal["x", "y", "z"]], at.MinLen(1), at.MaxLen(2)],
        None,
        Boxes(
            answer__1={
                "type": "boolean",
                "title": f"{T}: x",
                "description": "Tick at least 1 and at most 2.",
                "default": False,
            },
            answer__2={"type": "boolean", "title": f"{T}: y", "default": False},
            answer__3={"type": "boolean", "title": f"{T}: z", "default": False},
        ),
        {
            "type": "array",
            "title": T,
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "string", "enum": ["x", "y", "z"]},
        },
    ),
    (
        "frozenset of Enum",
        frozenset[Color],
        None,
        Boxes(
            answer__1={"type": "boolean", "title": f"{T}: red", "default": False},
            answer__2={"type": "boolean", "title": f"{T}: green", "default": False},
        ),
        {"type": "array", "title": T, "items": {"type": "string", "enum": ["red", "green"]}},
    ),
    (
        "tuple of labelled Enum with default",
        tuple[Size, ...],
        (Size.LARGE,),
        Boxes(
            answer__1={"type": "boolean", "title": f"{T}: Small (S)", "default": False},
            answer__2={"type": "boolean", "title": f"{T}: Large (L)", "default": True},
        ),
        {
            "type": "array",
            "title": T,
            "items": {
                "anyOf": [
                    {"const": "s", "title": "Small (S)"},
                    {"const": "l", "title": "Large (L)"},
                ]
            },
            "default": ["l"],
        },
    ),
    (
        "int | None",
        int | None,
        None,
        {"type": "integer", "title": T},
        {"type": "integer", "title": T},
    ),
    (
        "Optional Enum",
        Optional[Color],  # noqa: UP045  (the spelling under test)
        None,
        {"type": "string", "title": T, "enum": ["red", "green"]},
        {"type": "string", "title": T, "enum": ["red", "green"]},
    ),
    (
        "FormField title and description",
        Annotated[str, FormField(title="Your name", description="As on your passport")],
        None,
        {"type": "string", "title": "Your name", "description": "As on your passport"},
        {"type": "string", "title": "Your name", "description": "As on your passport"},
    ),
    (
        "Doc",
        Annotated[str, Doc("What to call you")],
        None,
        {"type": "string", "title": T, "description": "What to call you"},
        {"type": "string", "title": T, "description": "What to call you"},
    ),
    (
        "msgspec Meta",
        Annotated[int, msgspec.Meta(ge=1, le=3, title="Rating", description="1 to 3")],
        None,
        {"type": "integer", "title": "Rating", "description": "1 to 3", "minimum": 1, "maximum": 3},
        {"type": "integer", "title": "Rating", "description": "1 to 3", "minimum": 1, "maximum": 3},
    ),
    (
        "pydantic Field in Annotated",
        Annotated[str, pydantic.Field(min_length=1, max_length=9, title="P", description="D")],
        None,
        {"type": "string", "title": "P", "description": "D", "minLength": 1, "maxLength": 9},
        {"type": "string", "title": "P", "description": "D", "minLength": 1, "maxLength": 9},
    ),
]

OPTIONAL_ROWS = {"int | None", "Optional Enum"}

CASES = [
    pytest.param(
        annotation,
        default,
        protocol,
        old if protocol == "2025-06-18" else new,
        default is None and row_id not in OPTIONAL_ROWS,
        id=f"{row_id} @ {protocol}",
    )
    for row_id, annotation, default, old, new in ROWS
    for protocol in PROTOCOL_VERSIONS
]


@pytest.mark.parametrize(("annotation", "default", "protocol", "expected", "required"), CASES)
def test_fragment(
    annotation: Any, default: Any, protocol: str, expected: Any, required: bool
) -> None:
    form = one_field_form(annotation) if default is None else one_field_form(annotation, default)
    if isinstance(expected, Boxes):  # 2025-06-18 has no arrays: one checkbox per choice
        schema = requested_schema(form, protocol=protocol)
        assert schema["properties"] == expected
        assert "required" not in schema  # an unticked box is an answer
        return
    schema = requested_schema(form, protocol=protocol)
    assert schema["properties"] == {"answer": expected}
    assert ("required" in schema) == required
    if required:
        assert schema["required"] == ["answer"]


@pytest.mark.parametrize("protocol", NEW)
def test_legacy_enum_names_on_request(protocol: str) -> None:
    form = one_field_form(Size, Size.LARGE)
    schema = requested_schema(form, protocol=protocol, legacy_enum_names=True)
    assert schema["properties"]["answer"] == {
        "type": "string",
        "title": T,
        "enum": ["s", "l"],
        "enumNames": ["Small (S)", "Large (L)"],
        "default": "l",  # LegacyTitledEnumSchema has `default` from 2025-11-25 on
    }


def test_top_level_shape_and_order() -> None:
    form = one_field_form(str, "x")
    schema = requested_schema(form)
    assert list(schema) == ["type", "properties"]
    assert schema == {
        "type": "object",
        "properties": {"answer": {"type": "string", "title": T, "default": "x"}},
    }
