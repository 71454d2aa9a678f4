"""Decoding treats content as untrusted: types, formats, choices, counts, conversions."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
from typing import Annotated, Any, Literal

import annotated_types as at
import pydantic
import pytest

from elicitkit import Email, InvalidContent, Uri, parse_content
from tests.forms import one_field_form


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def decode(annotation: Any, value: Any) -> Any:
    return parse_content(one_field_form(annotation), {"answer": value}).answer


def problem(annotation: Any, value: Any) -> str:
    with pytest.raises(InvalidContent) as caught:
        decode(annotation, value)
    [error] = caught.value.errors
    assert error.field == "answer"
    return error.message


ACCEPTED = [
    pytest.param(str, "", "", id="empty text is text"),
    pytest.param(int, 7, 7, id="int"),
    pytest.param(int, 7.0, 7, id="whole float for int"),
    pytest.param(int, 10**100 - 1, 10**100 - 1, id="int of 100 digits"),
    pytest.param(
        decimal.Decimal, -(10**100) + 1, decimal.Decimal(-(10**100) + 1), id="Decimal of 100 digits"
    ),
    pytest.param(float, 2, 2.0, id="int for float"),
    pytest.param(float, -0.5, -0.5, id="float"),
    pytest.param(decimal.Decimal, 0.1, decimal.Decimal("0.1"), id="Decimal from float via str"),
    pytest.param(decimal.Decimal, 3, decimal.Decimal(3), id="Decimal from int"),
    pytest.param(bool, False, False, id="bool"),
    pytest.param(Color, "green", Color.GREEN, id="Enum member"),
    pytest.param(Level, "2", Level.HIGH, id="IntEnum member from string"),
    pytest.param(Literal[1, 2], "2", 2, id="int Literal from string"),
    pytest.param(Literal[True, False], "false", False, id="bool Literal from string"),
    pytest.param(dt.date, "2024-02-29", dt.date(2024, 2, 29), id="leap day"),
    pytest.param(
        dt.datetime, "2024-02-29T10:20", dt.datetime(2024, 2, 29, 10, 20), id="naive datetime"
    ),
    pytest.param(
        dt.datetime,
        "2024-02-29T10:20:30.123456789+02:00",
        dt.datetime(2024, 2, 29, 10, 20, 30, 123456, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        id="datetime with offset and nanoseconds",
    ),
    pytest.param(
        dt.datetime,
        "2024-02-29 10:20:30z",
        dt.datetime(2024, 2, 29, 10, 20, 30, tzinfo=dt.timezone.utc),
        id="datetime with space and z",
    ),
    pytest.param(Annotated[str, Email], "ada@example.org", "ada@example.org", id="email"),
    pytest.param(Annotated[str, Uri], "mailto:ada@example.org", "mailto:ada@example.org", id="uri"),
    pytest.param(
        pydantic.HttpUrl,
        "https://example.com/a",
        pydantic.HttpUrl("https://example.com/a"),
        id="HttpUrl converted",
    ),
    pytest.param(list[Color], ["green", "red"], [Color.GREEN, Color.RED], id="list keeps order"),
    pytest.param(set[Literal["a", "b"]], ["a"], {"a"}, id="set"),
    pytest.param(frozenset[Color], [], frozenset(), id="empty frozenset"),
    pytest.param(tuple[Level, ...], ["1", "2"], (Level.LOW, Level.HIGH), id="tuple"),
]


@pytest.mark.parametrize(("annotation", "wire", "expected"), ACCEPTED)
def test_accepted(annotation: Any, wire: Any, expected: Any) -> None:
    value = decode(annotation, wire)
    assert value == expected
    assert type(value) is type(expected)


REJECTED = [
    pytest.param(str, 5, "Expected text, got the number 5.", id="number for text"),
    pytest.param(int, True, "Expected a whole number, got true.", id="bool is not an int"),
    pytest.param(int, 2.5, "Expected a whole number, got 2.5.", id="fraction for int"),
    pytest.param(int, "3", "Expected a whole number, got the text '3'.", id="string for int"),
    pytest.param(float, False, "Expected a number, got false.", id="bool is not a number"),
    pytest.param(float, float("nan"), "Must be a finite number.", id="NaN"),
    pytest.param(float, float("inf"), "Must be a finite number.", id="infinity"),
    pytest.param(float, 10**400, "Must have at most 100 digits.", id="int too long for float"),
    pytest.param(int, 10**100, "Must have at most 100 digits.", id="int of 101 digits"),
    pytest.param(int, -(10**100), "Must have at most 100 digits.", id="negative of 101 digits"),
    pytest.param(decimal.Decimal, float("-inf"), "Must be a finite number.", id="Decimal infinity"),
    pytest.param(
        bool, "true", "Expected true or false, got the text 'true'.", id="string for bool"
    ),
    pytest.param(bool, 0, "Expected true or false, got the number 0.", id="number for bool"),
    pytest.param(Color, "blue", "Must be one of 'red', 'green'; got 'blue'.", id="unknown option"),
    pytest.param(
        Color, ["red"], "Must be one of 'red', 'green'; got ['red'].", id="list for option"
    ),
    pytest.param(Level, 1, "Must be one of '1', '2'; got 1.", id="options are strings"),
    pytest.param(
        dt.date,
        "2023-02-29",
        "Expected a date like 2024-12-31, got '2023-02-29'.",
        id="no such day",
    ),
    pytest.param(
        dt.date, "20240101", "Expected a date like 2024-12-31, got '20240101'.", id="basic format"
    ),
    pytest.param(
        dt.date, "2024-W01-1", "Expected a date like 2024-12-31, got '2024-W01-1'.", id="week date"
    ),
    pytest.param(
        dt.date,
        "２０２４-01-01",
        "Expected a date like 2024-12-31, got '２０２４-01-01'.",
        id="non-ASCII digits",
    ),
    pytest.param(
        dt.datetime,
        "2024-01-01",
        "Expected a date and time like 2024-12-31T18:30:00Z, got '2024-01-01'.",
        id="date for datetime",
    ),
    pytest.param(
        dt.datetime,
        "2024-01-01T25:00",
        "Expected a date and time like 2024-12-31T18:30:00Z, got '2024-01-01T25:00'.",
        id="no such hour",
    ),
    pytest.param(
        Annotated[str, Email],
        "ada@localhost",
        "Expected an email address like name@example.com, got 'ada@localhost'.",
        id="email without domain dot",
    ),
    pytest.param(
        Annotated[str, Uri],
        "example.com",
        "Expected a link like https://example.com, got 'example.com'.",
        id="uri without scheme",
    ),
    pytest.param(
        pydantic.HttpUrl,
        "ftp://example.com",
        "Expected a link like https://example.com, got 'ftp://example.com'.",
        id="HttpUrl refuses ftp",
    ),
    pytest.param(
        list[Color], "red", "Expected a list of options, got the text 'red'.", id="text for list"
    ),
    pytest.param(
        list[Color],
        ["red", "red"],
        "Choose each option at most once; 'red' appears more than once.",
        id="duplicate options",
    ),
    pytest.param(
        list[Color],
        ["red", 1],
        "Every option must be one of 'red', 'green'; got 1.",
        id="non-string option",
    ),
    pytest.param(
        Annotated[list[Color], at.MinLen(1)], [], "Choose at least 1 option.", id="too few"
    ),
    pytest.param(
        Annotated[list[Color], at.MaxLen(1)],
        ["red", "green"],
        "Choose at most 1 option.",
        id="too many",
    ),
    pytest.param(
        Annotated[str, at.MaxLen(2)], "abc", "Must be at most 2 characters long.", id="too long"
    ),
    pytest.param(Annotated[int, at.Ge(1)], 0, "Must be at least 1.", id="below minimum"),
]


@pytest.mark.parametrize(("annotation", "wire", "message"), REJECTED)
def test_rejected(annotation: Any, wire: Any, message: str) -> None:
    assert problem(annotation, wire) == message


def test_every_problem_is_collected_in_field_order() -> None:
    form = one_field_form(int)
    with pytest.raises(InvalidContent) as caught:
        parse_content(form, {"answer": None})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("answer", "This field is required.")
    ]
    assert str(caught.value) == "The answer to Form has 1 problem: answer: This field is required."


def test_unknown_keys_are_ignored() -> None:
    assert decode(str, "x") == "x"
    form = one_field_form(str)
    assert parse_content(form, {"answer": "x", "extra": {"nested": True}}).answer == "x"


@pytest.mark.parametrize(
    ("content", "got"),
    [
        (None, "nothing"),
        ([], "a list"),
        ("text", "the text 'text'"),
        (3, "the number 3"),
    ],
)
def test_content_that_is_not_an_object(content: Any, got: str) -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(one_field_form(str), content)
    assert [(e.field, e.message) for e in caught.value.errors] == [
        (None, f"Expected an object of field values, got {got}.")
    ]


def test_null_and_blank_mean_absent_for_optional_non_text_fields() -> None:
    form = one_field_form(int | None, None)
    assert parse_content(form, {"answer": None}).answer is None
    assert parse_content(form, {"answer": ""}).answer is None
    date_form = one_field_form(dt.date | None, None)
    assert parse_content(date_form, {"answer": ""}).answer is None


def test_blank_means_absent_for_optional_text_too() -> None:
    # Every form client observed sends "" for a text input left alone (docs/type-mapping.md).
    form = one_field_form(str | None, None)
    assert parse_content(form, {"answer": ""}).answer is None


def test_blank_is_not_an_answer_for_a_required_number() -> None:
    assert problem(int, "") == "Expected a whole number, got the text ''."


def test_long_values_are_shortened_in_messages() -> None:
    message = problem(Color, "x" * 100)
    # 40 characters at most: the quote, 35 x, then ...'
    assert message == "Must be one of 'red', 'green'; got '" + "x" * 35 + "...'."
