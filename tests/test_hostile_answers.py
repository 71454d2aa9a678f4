"""Hostile answers of a megabyte: every check refuses them field by field, in linear time.

Time is not asserted here (speed goals live in benchmarks/bench_hostile.py); these tests
pin down that each worst-case input is an `InvalidContent` naming the field, never a
crash, a RecursionError or an unbounded message.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
from typing import Annotated, Any, Literal

import pydantic
import pytest

from elicitkit import Email, FormDefinitionError, InvalidContent, Uri, parse_content
from elicitkit._compiler.decode import MAX_DIGITS

MB = 1_000_000
OPTIONS = Literal[tuple(f"option-{number}" for number in range(250))]  # type: ignore[valid-type]


@dataclasses.dataclass
class Dates:
    day: dt.date
    moment: dt.datetime


class Patterned(pydantic.BaseModel):
    word: str = pydantic.Field(pattern=r"^(a|aa)+$")


def errors_of(form_type: Any, content: Any) -> list[tuple[str | None, str]]:
    with pytest.raises(InvalidContent) as caught:
        parse_content(form_type, content)
    return [(error.field, error.message) for error in caught.value.errors]


@dataclasses.dataclass
class Link:
    link: Annotated[str, Uri]


@dataclasses.dataclass
class Mail:
    email: Annotated[str, Email]


@dataclasses.dataclass
class Url:
    url: pydantic.AnyUrl


@dataclasses.dataclass
class Tags:
    tags: list[OPTIONS]  # type: ignore[valid-type]


@dataclasses.dataclass
class Count:
    count: int


@dataclasses.dataclass
class Amount:
    amount: decimal.Decimal


@dataclasses.dataclass
class Choice:
    size: Literal["s", "m", "l"]


@dataclasses.dataclass
class Name:
    name: Annotated[str, pydantic.Field(max_length=50)]


# Inputs built to trigger backtracking in the old checks: a valid-looking prefix, then a
# character that fails only at the very end.
HOSTILE = [
    pytest.param(
        Link,
        {"link": "https://" + "a" * MB + " "},
        [("link", "Expected a link like https://example.com, got 'https://" + "a" * 27 + "...'.")],
        id="uri-authority-then-space",
    ),
    pytest.param(
        Link,
        {"link": "a:" + "/" * MB + "\x00"},
        [("link", "Expected a link like https://example.com, got 'a:" + "/" * 33 + "...'.")],
        id="uri-path-then-control",
    ),
    pytest.param(
        Link,
        {"link": "x" * MB},
        [("link", "Expected a link like https://example.com, got '" + "x" * 35 + "...'.")],
        id="uri-scheme-without-colon",
    ),
    pytest.param(
        Link,
        {"link": "http://h/" + "%4" * (MB // 2)},
        [
            (
                "link",
                "Expected a link like https://example.com, got 'http://h/" + "%4" * 13 + "...'.",
            )
        ],
        id="uri-broken-percent-escapes",
    ),
    pytest.param(
        Mail,
        {"email": "a" * MB + "@example.com"},
        [("email", "Expected an email address like name@example.com, got '" + "a" * 35 + "...'.")],
        id="email-long-local-part",
    ),
    pytest.param(
        Mail,
        {"email": "a@" + "b." * (MB // 2) + "@"},
        [
            (
                "email",
                "Expected an email address like name@example.com, got 'a@" + "b." * 16 + "b...'.",
            )
        ],
        id="email-many-labels",
    ),
    pytest.param(
        Url,
        {"url": "https://" + "a" * MB + " "},
        [("url", "Expected a link like https://example.com, got 'https://" + "a" * 27 + "...'.")],
        id="pydantic-url",
    ),
    pytest.param(
        Tags,
        {"tags": ["option-1"] * (MB // 10)},
        [("tags", "Choose each option at most once; 'option-1' appears more than once.")],
        id="multi-select-duplicates",
    ),
    pytest.param(
        Tags,
        {"tags": [f"option-{number}" for number in range(250)] + ["option-0"] * (MB // 10)},
        [("tags", "Choose each option at most once; 'option-0' appears more than once.")],
        id="multi-select-every-option-then-duplicates",
    ),
    pytest.param(
        Tags,
        {"tags": ["option-1", "option-2", "x" * MB]},
        [
            (
                "tags",
                "Every option must be one of 'option-0', 'option-1', 'option-2', 'option-3', "
                "'option-4', 'option-5', 'option-6', 'option-7', ...; got '" + "x" * 35 + "...'.",
            )
        ],
        id="multi-select-long-unknown-option",
    ),
    pytest.param(
        Patterned,
        {"word": "a" * MB + "b"},
        [("word", "Must match the pattern ^(a|aa)+$.")],
        id="pattern-exponential-in-backtracking-re",
    ),
    pytest.param(
        Dates,
        {"day": "2024-01-01" + "0" * MB, "moment": "2024-01-01T00:00:00" + "0" * MB},
        [
            ("day", "Expected a date like 2024-12-31, got '2024-01-01" + "0" * 25 + "...'."),
            (
                "moment",
                "Expected a date and time like 2024-12-31T18:30:00Z, got '2024-01-01T00:00:00"
                + "0" * 16
                + "...'.",
            ),
        ],
        id="dates-with-a-megabyte-tail",
    ),
    pytest.param(
        Count,
        {"count": 10**MB},
        [("count", f"Must have at most {MAX_DIGITS} digits.")],
        id="int-of-a-million-digits",
    ),
    pytest.param(
        Amount,
        {"amount": -(10**5000)},
        [("amount", f"Must have at most {MAX_DIGITS} digits.")],
        id="decimal-of-5000-digits",
    ),
    pytest.param(
        Choice,
        {"size": 10**5000},
        [("size", "Must be one of 's', 'm', 'l'; got a number of more than 100 digits.")],
        id="huge-int-for-a-choice",
    ),
    pytest.param(
        Name,
        {"name": "n" * MB},
        [("name", "Must be at most 50 characters long.")],
        id="text-over-its-length",
    ),
]


@pytest.mark.parametrize(("form_type", "content", "expected"), HOSTILE)
def test_hostile_answer_is_a_field_error(
    form_type: Any, content: Any, expected: list[tuple[str | None, str]]
) -> None:
    assert errors_of(form_type, content) == expected


def _nested(depth: int) -> Any:
    value: Any = "s"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("form_type", "key", "message"),
    [
        pytest.param(Choice, "size", "Must be one of 's', 'm', 'l'; got [[[[...]]]].", id="choice"),
        pytest.param(
            Tags,
            "tags",
            "Every option must be one of 'option-0', 'option-1', 'option-2', 'option-3', "
            "'option-4', 'option-5', 'option-6', 'option-7', ...; got [[[[...]]]].",
            id="multi-select",
        ),
        pytest.param(Count, "count", "Expected a whole number, got a list.", id="number"),
        pytest.param(Link, "link", "Expected text, got a list.", id="text"),
    ],
)
def test_deep_nesting_is_a_field_error_not_a_recursion_error(
    form_type: Any, key: str, message: str
) -> None:
    assert errors_of(form_type, {key: _nested(200_000)}) == [(key, message)]


def test_deep_nesting_as_the_whole_answer() -> None:
    assert errors_of(Count, _nested(200_000)) == [
        (None, "Expected an object of field values, got a list.")
    ]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a\x00@example.com", id="NUL"),
        pytest.param("a\x1b@example.com", id="escape"),
        pytest.param("a\u202e@example.com", id="right-to-left-override"),
        pytest.param("a\u2066@example.com", id="left-to-right-isolate"),
        pytest.param("a\u200f@example.com", id="right-to-left-mark"),
        pytest.param("a\x85@example.com", id="C1-control"),
        pytest.param("a b@example.com", id="space"),
    ],
)
def test_email_refuses_control_and_bidi_characters(text: str) -> None:
    [(field, message)] = errors_of(Mail, {"email": text})
    assert field == "email"
    assert message.startswith("Expected an email address like name@example.com, got ")


@pytest.mark.parametrize(
    "uri",
    [
        "file:///etc/hosts",
        "file:",
        "https://example.com",
        "https://user:pa%20ss@example.com:8443/a/b?c=d&e#f",
        "http://[::1]:8080/",
        "http://[v1.fe80::a+en1]/",
        "mailto:ada@example.org",
        "urn:isbn:0451450523",
        "tel:+1-816-555-1212",
        "https://de.wikipedia.org/wiki/München",
        "x://",
    ],
)
def test_valid_uris_pass(uri: str) -> None:
    assert parse_content(Link, {"link": uri}) == Link(uri)


@pytest.mark.parametrize(
    "uri",
    [
        "example.com",
        "1http://a",
        "http://a b",
        "http://a\u202eb",
        "http://%zz",
        "http://a/%4",
        "http://[::1",
        "http://[zz]/",
        "http://a:80:80/",
        "http://a:8o/",
        "http://a/[b]",
        "a:b#c#d",
        "http://a\x00",
    ],
)
def test_invalid_uris_are_refused(uri: str) -> None:
    [(field, message)] = errors_of(Link, {"link": uri})
    assert field == "link"
    assert message.startswith("Expected a link like https://example.com, got ")


def test_a_pattern_needing_backtracking_is_refused_at_definition() -> None:
    class Model(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(regex_engine="python-re")
        word: str = pydantic.Field(pattern=r"^(?=a)\w+$")

    with pytest.raises(FormDefinitionError) as caught:
        parse_content(Model, {"word": "abc"})
    assert str(caught.value) == (
        "Cannot build a form field for 'word' of Model: the pattern '^(?=a)\\\\w+$' cannot be "
        "checked in linear time (look-around, including look-ahead and look-behind, is not "
        "supported). Answers are checked with a linear-time regular-expression engine, so "
        "that no answer can stall the server; write the pattern without look-around and "
        "backreferences, or check the value in a validator."
    )


def test_pattern_keeps_search_semantics() -> None:
    @dataclasses.dataclass
    class Code:
        code: Annotated[str, pydantic.Field(pattern=r"[0-9]{3}")]

    assert parse_content(Code, {"code": "ab123cd"}) == Code("ab123cd")
    assert errors_of(Code, {"code": "ab12"}) == [("code", "Must match the pattern [0-9]{3}.")]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("http://a/\ud800", id="lone-high"),
        pytest.param("\udfff", id="lone-low"),
        pytest.param("a\ud83d\ude00", id="pair"),
    ],
)
def test_surrogates_in_text_are_refused(text: str) -> None:
    message = (
        "Contains a surrogate code point (U+D800 to U+DFFF), which is not text; send valid Unicode."
    )
    assert errors_of(Link, {"link": text}) == [("link", message)]
