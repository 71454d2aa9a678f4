"""A pydantic model's answer: elicitkit's field checks and messages, the model's validators once.

What pydantic does that elicitkit does not (validators, config that changes values, the
constraints elicitkit has no check for) still happens, exactly once per decode.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any

import pydantic
import pytest

from elicitkit import InvalidContent, parse_content
from elicitkit.errors import FieldError


class Plan(enum.Enum):
    FREE = "free"
    PRO = "pro"


class Signup(pydantic.BaseModel):
    user: Annotated[str, pydantic.Field(min_length=2, alias="login")]
    seats: Annotated[int, pydantic.Field(ge=1, le=50)] = 1
    plan: Plan = Plan.FREE

    @pydantic.field_validator("user")
    @classmethod
    def lower(cls, value: str) -> str:
        CALLS.append(value)
        return value.lower()


CALLS: list[str] = []


def test_a_models_validators_run_once_per_decode() -> None:
    CALLS.clear()
    value = parse_content(Signup, {"login": "ADA", "seats": 3.0, "plan": "pro"})
    assert value == Signup(login="ada", seats=3, plan=Plan.PRO)
    assert value.model_fields_set == {"user", "seats", "plan"}
    assert CALLS == ["ADA", "ada"]  # once for the decode, once for the comparison


def test_elicitkit_messages_and_validator_messages_are_kept() -> None:
    class Strict(pydantic.BaseModel):
        code: Annotated[str, pydantic.Field(max_length=4)]

        @pydantic.field_validator("code")
        @classmethod
        def upper(cls, value: str) -> str:
            if value != value.upper():
                raise ValueError("use capitals")
            return value

    with pytest.raises(InvalidContent) as too_long:
        parse_content(Strict, {"code": "ABCDE"})
    assert too_long.value.errors == [FieldError("code", "Must be at most 4 characters long.")]
    with pytest.raises(InvalidContent) as lower:
        parse_content(Strict, {"code": "ab"})
    assert lower.value.errors == [FieldError("code", "Use capitals.")]


class Odd(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(str_strip_whitespace=True)
    name: str


class Steps(pydantic.BaseModel):
    step: Annotated[int, pydantic.Field(multiple_of=5)]


class Before(pydantic.BaseModel):
    size: int

    @pydantic.field_validator("size", mode="before")
    @classmethod
    def text_to_int(cls, value: Any) -> Any:
        return str(value)  # pydantic's own int check must turn this back into an int


class Values(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(use_enum_values=True)
    plan: Plan


@pytest.mark.parametrize(
    ("tp", "content", "expected"),
    [
        pytest.param(Odd, {"name": " ada "}, "ada", id="config-strips-whitespace"),
        pytest.param(Before, {"size": 3}, 3, id="before-validator-output-checked"),
        pytest.param(Values, {"plan": "pro"}, "pro", id="use-enum-values"),
    ],
)
def test_what_pydantic_does_that_elicitkit_does_not_still_happens(
    tp: Any, content: dict[str, Any], expected: object
) -> None:
    value = parse_content(tp, content)
    assert next(iter(value.model_dump().values())) == expected
    assert type(next(iter(value.model_dump().values()))) is type(expected)


def test_a_constraint_elicitkit_does_not_check_is_still_enforced() -> None:
    assert parse_content(Steps, {"step": 10}).step == 10
    with pytest.raises(InvalidContent) as refused:
        parse_content(Steps, {"step": 7})
    assert refused.value.errors == [FieldError("step", "Input should be a multiple of 5.")]
