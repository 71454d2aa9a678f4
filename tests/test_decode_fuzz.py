"""Fuzzing the decoder with arbitrary JSON-like answers.

(a) Whatever a client sends, `parse_content` returns a value or raises `InvalidContent`,
    never anything else; every `FieldError` names a wire key of the form (or None) and
    says what is wrong in a sentence.
(b) Every field given every odd value (wrong JSON kinds, bounds, unknown options, bad
    dates, emails, links, surrogates, huge integers) does the same.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
from typing import Annotated, Any, Literal

import annotated_types as at
import msgspec
import pydantic
import pydantic.dataclasses
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from typing_extensions import NotRequired, TypedDict

import elicitkit
from elicitkit import InvalidContent, parse_content, requested_schema
from elicitkit._compiler.compiled_forms import form_spec
from elicitkit._compiler.form_spec import Shape

SETTINGS = settings(max_examples=40, deadline=None, database=None)

# --------------------------------------------------------------------------------------
# Representative forms: every field kind, every shape
# --------------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Size(enum.Enum):
    SMALL = 1
    MEDIUM = 2
    LARGE = 10


@dataclasses.dataclass
class Everything:
    text: Annotated[str, at.MinLen(2), at.MaxLen(8)]
    email: Annotated[str, elicitkit.Email]
    link: Annotated[str, elicitkit.Uri]
    count: Annotated[int, at.Ge(0), at.Le(10)]
    ratio: Annotated[float, at.Gt(0), at.Lt(1)]
    price: Annotated[decimal.Decimal, at.Ge(0)]
    agree: bool
    color: Color
    size: Size
    flag: Literal["x", 1, True]
    day: dt.date
    moment: dt.datetime
    colors: Annotated[list[Color], at.MinLen(1), at.MaxLen(2)]
    sizes: frozenset[Size] = frozenset()
    letters: tuple[Literal["a", "b"], ...] = ("a",)
    tags: set[Literal["a", "b", "c"]] = dataclasses.field(default_factory=set)
    note: str | None = None
    maybe_count: int | None = 3
    maybe_day: dt.date | None = None
    maybe_color: Color | None = Color.RED
    plain: float = 1.5


@dataclasses.dataclass
class Span:
    """A dataclass whose own check fails: the error belongs to the whole answer."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low must not be above high")


class Order(pydantic.BaseModel):
    item: Annotated[str, pydantic.Field(alias="itemName", min_length=1, pattern=r"^[a-z]+$")]
    unit_price: Annotated[decimal.Decimal, pydantic.Field(alias="unitPrice", gt=0)]
    qty: Annotated[int, pydantic.Field(ge=1, le=99)] = 1
    color: Color | None = None
    sizes: list[Size] = pydantic.Field(default_factory=list)
    when: dt.datetime | None = None
    gift: bool = False

    @pydantic.field_validator("item")
    @classmethod
    def _sold(cls, value: str) -> str:
        if value == "forbidden":
            raise ValueError("that item is not sold")
        return value

    @pydantic.model_validator(mode="after")
    def _gift_limit(self) -> Order:
        if self.gift and self.qty > 5:
            raise ValueError("gifts are limited to 5")
        return self


@pydantic.dataclasses.dataclass
class Window:
    start: dt.date
    end: dt.date
    label: Annotated[str, pydantic.Field(max_length=10)] = "w"

    @pydantic.model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.start > self.end:
            raise ValueError("the window ends before it starts")
        return self


class Booking(msgspec.Struct, kw_only=True, rename="camel"):
    guest_name: Annotated[str, msgspec.Meta(min_length=1, max_length=20)]
    nights: Annotated[int, msgspec.Meta(ge=1, le=30)]
    rate: Annotated[float, msgspec.Meta(gt=0.0)]
    arrival: dt.date
    room: Literal["single", "double"] = "single"
    extras: frozenset[Color] = frozenset()
    contact: Annotated[str, elicitkit.Email] | None = None


class Survey(TypedDict):
    score: Annotated[int, at.Ge(1), at.Le(5)]
    comment: NotRequired[str]
    recommend: NotRequired[bool]
    site: NotRequired[Annotated[str, elicitkit.Uri]]
    topics: NotRequired[list[Literal["docs", "api", "cli"]]]
    size: NotRequired[Size | None]


FORMS: dict[str, Any] = {
    "dataclass": Everything,
    "dataclass-post-init": Span,
    "pydantic-model": Order,
    "pydantic-dataclass": Window,
    "msgspec-struct": Booking,
    "typeddict": Survey,
    "bare-bool": bool,
    "bare-enum": Color,
    "bare-int-enum": Size,
    "bare-literal": Literal["yes", "no", 3, False],
    "bare-int": Annotated[int, at.Ge(0), at.Lt(100)],
    "bare-float": Annotated[float, at.Gt(-1.5)],
    "bare-decimal": decimal.Decimal,
    "bare-date": dt.date,
    "bare-datetime": dt.datetime,
    "bare-optional-email": Annotated[str, elicitkit.Email] | None,
    "bare-multi": Annotated[list[Color], at.MaxLen(2)],
}

# Valid values per wire key of each form (the first makes the baseline answer). Answers
# built from them pass, so the fast path's success branches run; mutating them reaches one
# bad field among good ones. None and "" stand for "left out" on optional fields.
VALID: dict[str, dict[str, list[Any]]] = {
    "dataclass": {
        "text": ["abc", "ab", "12345678", "\U0001f600\U0001f600"],
        "email": ["a@b.co", "first.last+tag@sub.example.org"],
        "link": ["https://example.com", "urn:isbn:123", "x://y"],
        "count": [3, 0, 10, 5.0],
        "ratio": [0.5, 1e-300, 0.9999999999999999],
        "price": [9.99, 0, 10**20, 1e-7],
        "agree": [True, False],
        "color": ["red", "green", "blue"],
        "size": ["10", "1", "2"],
        "flag": ["true", "x", "1"],
        "day": ["2024-02-29", "0001-01-01", "9999-12-31"],
        "moment": ["2024-12-31T18:30:00Z", "2024-12-31 18:30", "2024-12-31t18:30:59.5-01:30"],
        "colors": [["green"], ["red", "blue"]],
        "sizes": [["1", "2"], [], None],
        "letters": [["b", "a"], [], None],
        "tags": [[], ["c", "a", "b"], None],
        "note": ["", "a note", None],
        "maybe_count": [0, -(10**30), None, ""],
        "maybe_day": ["1999-01-01", None, ""],
        "maybe_color": ["blue", None, ""],
        "plain": [-2, 1e308, -0.0, None, ""],
    },
    "dataclass-post-init": {"low": [1, -5, 2**70], "high": [2**70, 2, 1.0]},
    "pydantic-model": {
        "itemName": ["tea", "forbidden", "x"],
        "unitPrice": [2.5, 1, 1e-9],
        "qty": [5, 1, 99, None, ""],
        "color": ["green", None, ""],
        "sizes": [["2"], ["10", "1"], [], None],
        "when": ["2024-01-01 10:00", "2024-01-01T10:00:00+14:00", None],
        "gift": [True, False, None],
    },
    "pydantic-dataclass": {
        "start": ["2024-01-01", "2024-01-03"],
        "end": ["2024-01-02", "2024-01-01"],
        "label": ["q1", "", "0123456789", None],
    },
    "msgspec-struct": {
        "guestName": ["Ann", "x" * 20],
        "nights": [2, 1, 30],
        "rate": [99.5, 5e-324, 1],
        "arrival": ["2025-07-01"],
        "room": ["double", "single", None, ""],
        "extras": [["red"], [], ["blue", "green", "red"], None],
        "contact": ["ann@example.org", None, ""],
    },
    "typeddict": {
        "score": [5, 1, 3.0],
        "comment": ["ok", "", None],
        "recommend": [False, True, None],
        "site": ["mailto:x", "https://a.b/c?d#e", None, ""],
        "topics": [["api"], [], ["cli", "docs"], None],
        "size": ["", "1", None],
    },
    "bare-bool": {"value": [False, True]},
    "bare-enum": {"value": ["green", "red"]},
    "bare-int-enum": {"value": ["2", "10"]},
    "bare-literal": {"value": ["3", "yes", "no", "false"]},
    "bare-int": {"value": [99, 0, 42.0]},
    "bare-float": {"value": [-1.0, -1.4999999999999998, 10**300, 2]},
    "bare-decimal": {"value": [0.1, 1e-320, -(10**100)]},
    "bare-date": {"value": ["2000-02-29"]},
    "bare-datetime": {"value": ["2024-06-01T00:00:00.123456789+05:30", "2024-06-01 00:00"]},
    "bare-optional-email": {"value": ["a@b.c", "", None]},
    "bare-multi": {"value": [["red", "blue"], [], ["green"]]},
}
IDS = list(FORMS)
_ALL_VALID = [value for answer in VALID.values() for values in answer.values() for value in values]


def _baseline(name: str) -> dict[str, Any]:
    return {key: values[0] for key, values in VALID[name].items()}


def _wire_keys(tp: Any) -> list[str]:
    return [field.key for field in form_spec(tp).fields]


# --------------------------------------------------------------------------------------
# Arbitrary JSON-like values, and answers built from them
# --------------------------------------------------------------------------------------

_HUGE_INTS = [2**63, -(2**64), 10**400, -(10**400)]


def _too_long_to_print() -> int:
    return 10**5000  # past str()'s 4300-digit limit


# Built rather than listed: hypothesis describes a sampled_from strategy with repr() of its
# elements, which raises for an int past the limit.
_UNPRINTABLE_INT = st.builds(_too_long_to_print)
_TRICKY_STRINGS = [
    "",
    " ",
    "true",
    "false",
    "null",
    "1",
    "10",
    "3.0",
    "red",
    "RED",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "20240229",
    "0000-01-01",
    "2024-02-29T24:00:00Z",
    "2024-02-29T10:00:00+25:00",
    "2024-02-29t10:00",
    "２０２４-０１-０１",
    "a@b.co",
    "a@b",
    "@b.co",
    "https://example.com",
    "//example.com",
    "mailto:x",
    "tea",
    "forbidden",
    "\x00",
    "x" * 300,
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(_HUGE_INTS),
    _UNPRINTABLE_INT,
    st.floats(),  # nan, inf, -0.0, 1e308...
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 0.5, 1.0, -1.5, 1e300]),
    st.text(max_size=12),
    st.sampled_from(_TRICKY_STRINGS),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=10,
)


def _options(tp: Any) -> list[str]:
    """Every option string a form's choice fields accept."""
    return [choice.wire for field in form_spec(tp).fields for choice in field.choices]


def field_values(tp: Any) -> st.SearchStrategy[Any]:
    """Values for a known key: arbitrary JSON, the form's own options alone or in lists, or
    a value some field of some form accepts."""
    own = _options(tp) or ["red"]
    return st.one_of(
        json_values,
        st.sampled_from(own),
        st.lists(st.sampled_from(own) | scalars, max_size=4),
        st.sampled_from(_ALL_VALID),
    )


def contents(name: str) -> st.SearchStrategy[Any]:
    """Whole answers: anything at all, known keys with any values, or a mutated valid answer."""
    tp = FORMS[name]
    keys = _wire_keys(tp)
    values = field_values(tp)
    known = st.fixed_dictionaries({}, optional=dict.fromkeys(keys, values))
    extra = st.dictionaries(st.text(max_size=6), json_values, max_size=2)
    keyed = st.builds(lambda more, mine: {**more, **mine}, extra, known)

    valid = st.fixed_dictionaries(
        {key: st.sampled_from(options) for key, options in VALID[name].items()}
    )

    @st.composite
    def mutated(draw: st.DrawFn) -> dict[str, Any]:
        answer = draw(valid)
        for key in draw(st.lists(st.sampled_from(keys), unique=True, min_size=1, max_size=3)):
            if draw(st.booleans()):
                answer[key] = draw(values)
            else:
                answer.pop(key, None)
        return answer

    return st.one_of(json_values, keyed, valid, mutated())


# --------------------------------------------------------------------------------------
# Outcomes
# --------------------------------------------------------------------------------------


def _picture(value: Any) -> Any:
    """A comparable picture of a decoded value, telling 1, 1.0 and True apart."""
    if isinstance(value, pydantic.BaseModel):
        return (type(value), _picture(dict(value)))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return (type(value), _picture(fields))
    if isinstance(value, msgspec.Struct):
        return (type(value), _picture(msgspec.structs.asdict(value)))
    if isinstance(value, (list, tuple)):
        return (type(value), [_picture(item) for item in value])
    if isinstance(value, (set, frozenset)):
        return (type(value), frozenset(_picture(item) for item in value))
    if isinstance(value, dict):
        return (type(value), {key: _picture(item) for key, item in value.items()})
    if isinstance(value, (dt.date, decimal.Decimal)):
        return (type(value), str(value))
    return (type(value), value)


def _returns_or_raises_invalid_content(tp: Any, content: Any) -> str:
    """Decode; anything but a value of the form's type or a well-formed InvalidContent fails."""
    try:
        value = parse_content(tp, content)
    except InvalidContent as problem:
        errors = problem.errors
    else:
        shape = form_spec(tp).shape
        if shape in (Shape.DATACLASS, Shape.PYDANTIC_MODEL, Shape.STRUCT):
            assert type(value) is tp
        elif shape is Shape.TYPED_DICT:
            assert type(value) is dict
        return "decoded"
    keys = set(_wire_keys(tp))
    assert errors, "InvalidContent without errors"
    for error in errors:
        assert error.field is None or error.field in keys, error
        assert isinstance(error.message, str), error
        assert error.message.strip(), error
        assert error.message.endswith("."), error
    return "invalid content"


# --------------------------------------------------------------------------------------
# The properties
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", IDS, ids=IDS)
def test_valid_answers_decode(name: str) -> None:
    """The answers the fuzzer starts from are valid (and the forms render validly)."""
    tp = FORMS[name]
    requested_schema(tp)  # checked against the MCP grammar by the conftest fixture
    assert set(VALID[name]) == set(_wire_keys(tp))
    parse_content(tp, _baseline(name))


@pytest.mark.parametrize("name", IDS, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_parse_content_returns_or_raises_invalid_content(name: str, data: st.DataObject) -> None:
    tp = FORMS[name]
    content = data.draw(contents(name), label="content")
    event(_returns_or_raises_invalid_content(tp, content))


# Values every kind refuses or accepts in its own way: absent, blank, wrong JSON kinds,
# out of bounds, unknown options, malformed dates, emails and links, non-finite numbers.
ODD_VALUES: list[Any] = [
    None,
    "",
    " ",
    "x" * 300,
    "purple",
    "someday",
    "2024-02-31",
    "a@",
    "nope://",
    "\ud800",
    -3,
    0,
    10**200,
    3.0,
    2.5,
    float("nan"),
    float("inf"),
    True,
    False,
    [],
    ["x", "x"],
    {},
]


@pytest.mark.parametrize("name", IDS, ids=IDS)
def test_every_field_takes_every_odd_value_without_crashing(name: str) -> None:
    """Each field given each odd value, one at a time, then all at once: a value, or an
    `InvalidContent` whose errors name only fields of the form."""
    keys = _wire_keys(FORMS[name])
    for odd in ODD_VALUES:
        contents = [{**_baseline(name), key: odd} for key in keys]
        contents.append(dict.fromkeys(keys, odd))
        for content in contents:
            _returns_or_raises_invalid_content(FORMS[name], content)


EVERY_KIND = _wire_keys(Everything)


@pytest.mark.parametrize("key", [*EVERY_KIND, None], ids=[*EVERY_KIND, "whole-answer"])
def test_an_integer_too_long_to_print_is_an_answer_like_any_other(key: str | None) -> None:
    """Python refuses str() of ints past 4300 digits; the decoder must not leak that.

    The fuzzer draws such ints too; this names each field kind they break, without shrinking.
    """
    huge = 10**5000
    content = huge if key is None else {**_baseline("dataclass"), key: huge}
    _returns_or_raises_invalid_content(Everything, content)


@settings(SETTINGS, max_examples=100)
@given(
    hours=st.integers(0, 23),
    minutes=st.integers(0, 99),
    sign=st.sampled_from("+-"),
)
def test_a_date_time_offset_has_minutes_below_60(hours: int, minutes: int, sign: str) -> None:
    """RFC 3339: time-numoffset = ("+" / "-") time-hour ":" time-minute, minute 00-59."""
    text = f"2024-01-01T10:00:00{sign}{hours:02d}:{minutes:02d}"
    if minutes < 60:
        moment = parse_content(dt.datetime, {"value": text})
        assert moment == dt.datetime(2024, 1, 1, 10, tzinfo=moment.tzinfo)
        assert moment.utcoffset() == (-1 if sign == "-" else 1) * dt.timedelta(
            hours=hours, minutes=minutes
        )
    else:
        with pytest.raises(InvalidContent):
            parse_content(dt.datetime, {"value": text})
