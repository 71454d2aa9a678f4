"""Forms in a module with postponed annotations: every annotation here is a string."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import typing
from typing import Annotated, Literal, Optional

import annotated_types as at
import msgspec
import pydantic
import typing_extensions
from pydantic.dataclasses import dataclass as pydantic_dataclass


class Meal(enum.Enum):
    VEGAN = "vegan"
    FISH = "fish"


@dataclasses.dataclass
class BookingDataclass:
    guest: Annotated[str, at.MinLen(1)]
    seats: Annotated[int, at.Ge(1), at.Le(8)]
    meal: Meal
    day: dt.date
    note: Optional[str] = None  # noqa: UP045  (the spelling under test)
    vip: bool = False


class BookingModel(pydantic.BaseModel):
    guest: str = pydantic.Field(min_length=1)
    seats: int = pydantic.Field(ge=1, le=8)
    meal: Meal
    day: dt.date
    note: str | None = None
    vip: bool = False


@pydantic_dataclass
class BookingPydanticDataclass:
    guest: str = pydantic.Field(min_length=1)
    seats: int = pydantic.Field(ge=1, le=8)
    meal: Meal = Meal.VEGAN
    day: dt.date = dt.date(2026, 1, 1)
    note: str | None = None
    vip: bool = False


class BookingStruct(msgspec.Struct):
    guest: Annotated[str, msgspec.Meta(min_length=1)]
    seats: Annotated[int, msgspec.Meta(ge=1, le=8)]
    meal: Meal
    day: dt.date
    note: str | None = None
    vip: bool = False


class BookingTypedDict(typing.TypedDict):
    guest: Annotated[str, at.MinLen(1)]
    seats: Annotated[int, at.Ge(1), at.Le(8)]
    meal: Meal
    day: dt.date
    note: typing_extensions.NotRequired[str]  # typing has it from 3.11 on
    vip: typing_extensions.NotRequired[bool]


class BookingExtTypedDict(typing_extensions.TypedDict, total=False):
    guest: typing_extensions.Required[Annotated[str, at.MinLen(1)]]
    seats: typing_extensions.Required[Annotated[int, at.Ge(1), at.Le(8)]]
    meal: typing_extensions.Required[Meal]
    day: typing_extensions.Required[dt.date]
    note: str
    vip: bool


Confirm = Literal["yes", "no"]
