"""Titles, descriptions, defaults and bounds from every vocabulary authors already use."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Annotated, Any

import annotated_types as at
import msgspec
import pydantic
import pytest
from typing_extensions import Doc

from elicitkit import FormField, InvalidContent, parse_content, requested_schema
from tests.forms import one_field_form


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("zip_code", "Zip code"),
        ("zipCode", "Zip code"),
        ("ZIP_CODE", "Zip code"),
        ("city", "City"),
        ("floor2", "Floor 2"),
        ("HTTPServer", "Http server"),
        ("deliver_on", "Deliver on"),
    ],
)
def test_humanised_titles(name: str, title: str) -> None:
    assert requested_schema(one_field_form(str, name=name))["properties"][name]["title"] == title


def test_form_field_wins_over_other_vocabularies() -> None:
    annotation = Annotated[
        str,
        pydantic.Field(title="From pydantic", description="pydantic"),
        FormField(title="Ours", description="ours"),
        Doc("doc"),
    ]
    assert requested_schema(one_field_form(annotation))["properties"]["answer"] == {
        "type": "string",
        "title": "Ours",
        "description": "ours",
    }


def test_pydantic_model_field_settings() -> None:
    class Profile(pydantic.BaseModel):
        nickname: str = pydantic.Field(
            default="anon", title="Nick", description="Shown to others", min_length=2, max_length=20
        )
        age: int = pydantic.Field(gt=0, lt=130)
        score: float = pydantic.Field(ge=0, le=1, default_factory=lambda: 0.5)

    assert requested_schema(Profile) == {
        "type": "object",
        "properties": {
            "nickname": {
                "type": "string",
                "title": "Nick",
                "description": "Shown to others",
                "minLength": 2,
                "maxLength": 20,
                "default": "anon",
            },
            "age": {"type": "integer", "title": "Age", "minimum": 1, "maximum": 129},
            "score": {"type": "number", "title": "Score", "minimum": 0, "maximum": 1},
        },
        "required": ["age"],
    }
    value = parse_content(Profile, {"age": 30})
    assert (value.nickname, value.age, value.score) == ("anon", 30, 0.5)


def test_msgspec_meta_settings() -> None:
    class Rating(msgspec.Struct):
        stars: Annotated[int, msgspec.Meta(ge=1, le=5, title="Stars", description="1 to 5")]
        comment: Annotated[str, msgspec.Meta(max_length=140)] = ""

    assert requested_schema(Rating)["properties"] == {
        "stars": {
            "type": "integer",
            "title": "Stars",
            "description": "1 to 5",
            "minimum": 1,
            "maximum": 5,
        },
        "comment": {"type": "string", "title": "Comment", "maxLength": 140, "default": ""},
    }
    with pytest.raises(InvalidContent) as caught:
        parse_content(Rating, {"stars": 6, "comment": "x" * 141})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("stars", "Must be at most 5."),
        ("comment", "Must be at most 140 characters long."),
    ]


def test_dataclass_defaults_and_factories() -> None:
    @dataclasses.dataclass
    class Order:
        quantity: int = 1
        when: dt.date = dataclasses.field(default_factory=lambda: dt.date(2030, 1, 1))
        gift: bool = False

    schema = requested_schema(Order)
    # Factories are not rendered (they may return a fresh value on every call); they run on
    # decoding, where the field is absent.
    assert schema["properties"]["when"] == {"type": "string", "title": "When", "format": "date"}
    assert schema["properties"]["quantity"]["default"] == 1
    assert "required" not in schema
    assert parse_content(Order, {}) == Order(1, dt.date(2030, 1, 1), False)


def test_none_default_on_a_plain_type_means_optional() -> None:
    @dataclasses.dataclass
    class Note:
        text: str = None  # type: ignore[assignment]  # the shorthand under test

    assert requested_schema(Note) == {
        "type": "object",
        "properties": {"text": {"type": "string", "title": "Text"}},
    }
    assert parse_content(Note, {}).text is None


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0.25, "Must be greater than 0.25."),
        (-1, "Must be at least 0.25."),
        (0.75, "Must be less than 0.75."),
    ],
)
def test_exclusive_float_bounds_are_enforced_on_decoding(value: float, message: str) -> None:
    # Bounds no other test uses: typing caches Annotated[...] by equality, and Gt(0) == Gt(0.0).
    form = one_field_form(Annotated[float, at.Gt(0.25), at.Lt(0.75)])
    assert requested_schema(form)["properties"]["answer"] == {
        "type": "number",
        "title": "Answer",
        "description": "Must be more than 0.25 and less than 0.75.",
        "minimum": 0.25,
        "maximum": 0.75,
    }
    with pytest.raises(InvalidContent) as caught:
        parse_content(form, {"answer": value})
    assert [(e.field, e.message) for e in caught.value.errors] == [("answer", message)]
    assert parse_content(form, {"answer": 0.5}).answer == 0.5


def test_exclusive_and_inclusive_bounds_combine_on_integers() -> None:
    form = one_field_form(Annotated[int, at.Ge(3), at.Gt(1), at.Le(10), at.Lt(7.5)])
    assert requested_schema(form)["properties"]["answer"] == {
        "type": "integer",
        "title": "Answer",
        "minimum": 3,
        "maximum": 7,
    }


def test_pattern_is_enforced_but_never_sent() -> None:
    class Code(pydantic.BaseModel):
        code: str = pydantic.Field(pattern=r"^[A-Z]{3}$")

    assert requested_schema(Code)["properties"]["code"] == {"type": "string", "title": "Code"}
    with pytest.raises(InvalidContent) as caught:
        parse_content(Code, {"code": "abc"})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("code", "Must match the pattern ^[A-Z]{3}$.")
    ]


def test_labels_keyed_by_wire_string() -> None:
    from typing import Literal  # noqa: PLC0415

    form = one_field_form(Annotated[Literal[1, 2], FormField(labels={"1": "One", 2: "Two"})])
    assert requested_schema(form)["properties"]["answer"]["oneOf"] == [
        {"const": "1", "title": "One"},
        {"const": "2", "title": "Two"},
    ]


def test_annotated_metadata_is_hashable_for_caching() -> None:
    annotation: Any = Annotated[str, FormField(labels={"a": "A"})]
    assert hash(annotation) == hash(Annotated[str, FormField(labels={"a": "A"})])
