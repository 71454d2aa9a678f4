"""A pydantic model's strict twin decodes every answer exactly as the reference decoder does.

The twin (`elicitkit._compiler.model_fast_path`) validates a valid answer once, in
pydantic-core; anything it refuses goes to the reference decoder. These tests run both on
the same answers, valid and hostile (every lax coercion pydantic would make, ``None`` and
``""``, huge numbers, dates of other shapes, lone surrogates, extra keys), and require the
same value (and the same fields set) or the same `InvalidContent`, errors and message.
"""

from __future__ import annotations

import datetime as dt
import enum
import itertools
import random
from typing import Annotated, Any, Literal

import pydantic
import pytest
from annotated_types import Ge, Le, MaxLen, MinLen

from elicitkit import InvalidContent, parse_content
from elicitkit._compiler.compiled_forms import compiled_form
from elicitkit._compiler.decode import build_decoder
from elicitkit._compiler.form_spec import Decoder
from elicitkit._compiler.model_fast_path import fast_decoder

ABSENT: Any = object()  # the key is left out of the answer
CALLS: list[str] = []


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Profile(pydantic.BaseModel):
    name: Annotated[str, MinLen(1), MaxLen(5)]
    age: Annotated[int, Ge(0), Le(150)]
    height: float
    subscribed: bool
    shade: Literal["light", "dark"]
    color: Color
    birthday: dt.date
    nickname: str | None = None
    floor: int | None = None
    ratio: float = 0.5
    since: dt.date | None = None


class Signup(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", use_enum_values=True)

    user: Annotated[str, pydantic.Field(min_length=2, alias="login")]
    seats: Annotated[int, pydantic.Field(ge=1, le=50)] = 1
    color: Color = Color.RED


CANDIDATES: dict[str, list[Any]] = {
    "text": ["Ada", "", "abcdef", "a\ud800", 5, 5.0, True, None, ["Ada"], {"x": 1}, ABSENT],
    "int": [36, 0, -1, 151, 36.0, 36.5, "36", True, None, "", 10**100, -(10**100), ABSENT],
    "float": [1.7, 2, 0, "1.7", True, float("inf"), float("nan"), 10**100, 10**99, None, ""],
    "bool": [True, False, 1, 0, "true", None, "", ABSENT],
    "choice": ["light", "dark", "LIGHT", "", None, 1, ["light"], ABSENT],
    "enum": ["red", "green", "RED", "", None, 0, ABSENT],
    "date": ["1990-12-10", "1990-12-10T00:00:00", "19901210", "1990-02-30", "", None, 0],
    "more dates": ["\u0661\u0669\u0669\u0660-12-10", " 1990-12-10", "1990-12-10\n", ABSENT],
}
PROFILE_KINDS = {
    "name": "text",
    "age": "int",
    "height": "float",
    "subscribed": "bool",
    "shade": "choice",
    "color": "enum",
    "birthday": "date",
    "nickname": "text",
    "floor": "int",
    "ratio": "float",
    "since": "date",
}
PROFILE_VALID = {
    "name": "Ada",
    "age": 36,
    "height": 1.7,
    "subscribed": True,
    "shade": "dark",
    "color": "green",
    "birthday": "1990-12-10",
}


def decoders(tp: type[Any]) -> tuple[Decoder, Decoder]:
    compiled = compiled_form(tp)
    reference = build_decoder(compiled.spec, plan=compiled.field_plans())
    fast = fast_decoder(compiled.spec, compiled.field_plans(), reference)
    assert fast is not None, f"{tp.__name__} should get the strict twin"
    return fast, reference


def outcome(decode: Decoder, content: Any) -> tuple[Any, ...]:
    try:
        value = decode(content)
    except InvalidContent as error:
        return ("refused", error.errors, str(error))
    return ("value", type(value), value.model_dump(), value.model_fields_set)


def answer(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    content = {**base, **changes}
    return {key: value for key, value in content.items() if value is not ABSENT}


def candidates(kind: str) -> list[Any]:
    values = CANDIDATES[kind] + (CANDIDATES["more dates"] if kind == "date" else [])
    return [*values, ABSENT] if ABSENT not in values else values


def profile_answers() -> list[dict[str, Any]]:
    found = [dict(PROFILE_VALID), {**PROFILE_VALID, "extra": 1}, {}]
    for key, kind in PROFILE_KINDS.items():  # one field at a time
        found += [answer(PROFILE_VALID, **{key: value}) for value in candidates(kind)]
    chooser = random.Random(22)  # noqa: S311  (a fixed sample, not a secret)
    for _ in range(400):  # several at once
        changes = {
            key: chooser.choice(candidates(kind))
            for key, kind in PROFILE_KINDS.items()
            if chooser.random() < 0.3
        }
        found.append(answer(PROFILE_VALID, **changes))
    return found


@pytest.mark.parametrize("content", profile_answers(), ids=lambda content: repr(content)[:60])
def test_the_twin_decodes_a_profile_as_the_reference_does(content: dict[str, Any]) -> None:
    fast, reference = decoders(Profile)
    assert outcome(fast, content) == outcome(reference, content)


def test_not_an_object_is_the_reference_decoders_to_refuse() -> None:
    fast, reference = decoders(Profile)
    valid = Profile.model_validate(PROFILE_VALID)
    for content in (None, [], "x", valid):
        assert outcome(fast, content) == outcome(reference, content)


@pytest.mark.parametrize(
    "content",
    [
        {"login": "ADA"},
        {"login": "ADA", "seats": 3},
        {"login": "ADA", "seats": 3.0},
        {"login": "ADA", "color": "green"},
        {"login": "ADA", "color": "GREEN"},
        {"login": "ADA", "extra": 1},
        {"user": "ADA"},
        {"login": "A"},
        {"login": None},
        {},
    ],
    ids=repr,
)
def test_the_twin_keeps_aliases_and_config(content: dict[str, Any]) -> None:
    fast, reference = decoders(Signup)
    assert outcome(fast, content) == outcome(reference, content)


class Checked(pydantic.BaseModel):
    user: str
    seats: int = 1

    @pydantic.field_validator("user")
    @classmethod
    def lower(cls, value: str) -> str:
        CALLS.append(value)
        return value.lower()


def test_a_model_with_validators_keeps_them_running_once() -> None:
    # 3.0 for a whole number: elicitkit takes it, a strict twin would not, and the reference
    # decoder would then run the validator a second time; so such a model has no twin.
    CALLS.clear()
    assert parse_content(Checked, {"user": "ADA", "seats": 3.0}) == Checked(user="ada", seats=3)
    assert CALLS == ["ADA", "ada"]  # once for the decode, once for the comparison


class Stripped(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(str_strip_whitespace=True)
    name: str


class Extra(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    name: str


class Before(pydantic.BaseModel):
    size: int

    @pydantic.field_validator("size", mode="before")
    @classmethod
    def seen_raw(cls, value: Any) -> Any:
        return value


class Patterned(pydantic.BaseModel):
    code: Annotated[str, pydantic.Field(pattern=r"^[A-Z]+$")]


class Stepped(pydantic.BaseModel):
    step: Annotated[int, pydantic.Field(multiple_of=5)]


class Linked(pydantic.BaseModel):
    link: pydantic.AnyUrl


class Exclusive(pydantic.BaseModel):
    share: Annotated[float, pydantic.Field(gt=0)]


class Inner(pydantic.BaseModel):
    street: str


class Nested(pydantic.BaseModel):
    home: Inner


@pytest.mark.parametrize(
    "tp", [Checked, Stripped, Extra, Before, Patterned, Stepped, Linked, Exclusive, Nested]
)
def test_models_pydantic_could_judge_otherwise_keep_the_reference_decoder(tp: Any) -> None:
    compiled = compiled_form(tp)
    reference = build_decoder(compiled.spec, plan=compiled.field_plans())
    assert fast_decoder(compiled.spec, compiled.field_plans(), reference) is None


def test_every_kind_and_value_pair_agrees() -> None:
    # Each field of Profile set to each candidate of its kind, the rest valid: exhaustive
    # over pairs of fields as well (the product of two candidate lists per pair).
    fast, reference = decoders(Profile)
    keys = list(PROFILE_KINDS)
    for first, second in itertools.combinations(keys, 2):
        for one in candidates(PROFILE_KINDS[first])[::3]:
            for two in candidates(PROFILE_KINDS[second])[::3]:
                content = answer(PROFILE_VALID, **{first: one, second: two})
                assert outcome(fast, content) == outcome(reference, content), content
