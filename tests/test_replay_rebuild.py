"""Answers carried in the sealed state are rebuilt, not checked again (2026-07-28).

An answer is checked once, in the round it arrives; every later round rebuilds it from the
wire values the server sealed, so the checks a call runs grow with its questions, not with
its questions squared. The rebuilt value is the value the check made.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
from collections.abc import Callable
from typing import Annotated, Any, Literal

import mcp_types as types
import pydantic
import pytest
from annotated_types import Ge, Le, MinLen
from mcp import Client

from elicitkit import Overrides, ask, parse_content
from elicitkit._compiler.compiled_forms import prepare
from elicitkit._compiler.prepared_form import PreparedForm
from tests.sdks import in_memory, new_server

pytestmark = pytest.mark.anyio


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Geo:
    lat: float
    lon: float


@dataclasses.dataclass
class Profile:
    name: Annotated[str, MinLen(1)]
    age: Annotated[int, Ge(0), Le(150)]
    height: float
    color: Color
    born: dt.date
    seen: dt.datetime
    price: decimal.Decimal
    tags: set[Literal["a", "b", "c"]]
    size: Literal["s", "m", "l"] | None = None
    note: str | None = None
    geo: Geo | None = None


ANSWER: dict[str, Any] = {
    "name": "Ada",
    "age": 36.0,  # a whole float is an int
    "height": 2,  # an int is a float
    "color": "green",
    "born": "1990-12-10",
    "seen": "2024-12-31T18:30:00Z",
    "price": 9.5,
    "tags": ["c", "a"],
    "size": "",  # an empty input: absent
    "geo.lat": 59.9,
    "geo.lon": 10.7,
}


@dataclasses.dataclass
class Trailing:
    """Absent trailing fields of each kind: None, a default, a default factory."""

    name: str
    note: str | None = None
    count: int = 3
    tags: list[Literal["a", "b"]] = dataclasses.field(default_factory=list[Literal["a", "b"]])


class Account(pydantic.BaseModel):
    """Validators that change the value: a rebuild must give the same value."""

    user: str = pydantic.Field(alias="login")
    plan: Literal["free", "pro"] = "free"
    seats: int = 1

    @pydantic.field_validator("user")
    @classmethod
    def lower(cls, value: str) -> str:
        return value.lower()

    @pydantic.model_validator(mode="after")
    def pro_has_seats(self) -> Account:
        if self.plan == "pro":
            self.seats = max(self.seats, 5)
        return self


@pytest.mark.parametrize(
    ("tp", "content"),
    [
        pytest.param(Profile, ANSWER, id="dataclass-every-kind-nested"),
        pytest.param(Account, {"login": "ADA", "plan": "pro"}, id="pydantic-validators"),
        pytest.param(Color, {"value": "red"}, id="scalar-enum"),
        pytest.param(Trailing, {"name": "Ada"}, id="dataclass-trailing-absent"),
        pytest.param(Trailing, {"name": "Ada", "tags": ["b"]}, id="dataclass-last-given"),
    ],
)
def test_a_rebuild_gives_the_value_the_decode_gave(tp: Any, content: dict[str, Any]) -> None:
    form = prepare(tp, "2026-07-28")
    values = [content.get(field.key) for field in form.spec.fields]
    assert form.rebuild(values) == form.decode(content) == parse_content(tp, content)
    # Trailing absent values are dropped from the state: a short list rebuilds the same.
    while values and values[-1] is None:
        values.pop()
    assert form.rebuild(values) == form.decode(content)


def test_a_rebuild_uses_the_calls_overrides() -> None:
    overrides = Overrides(choices={"size": ["s", "m"]}, defaults={"note": "none"})
    form = prepare(Profile, "2026-07-28", overrides=overrides)
    content = {**ANSWER, "size": "m"}
    values = [content.get(field.key) for field in form.spec.fields]
    rebuilt = form.rebuild(values)
    assert rebuilt == form.decode(content)
    assert (rebuilt.size, rebuilt.note) == ("m", "none")


@dataclasses.dataclass
class Counts:
    decodes: int = 0
    rebuilds: int = 0


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counts:
    """Count full decodes and rebuilds of every prepared form."""
    seen = Counts()
    decode, rebuild = PreparedForm.decode, PreparedForm.rebuild

    def counted_decode(self: PreparedForm, content: object) -> Any:
        seen.decodes += 1
        return decode(self, content)

    def counted_rebuild(self: PreparedForm, values: Any) -> Any:
        seen.rebuilds += 1
        return rebuild(self, values)

    monkeypatch.setattr(PreparedForm, "decode", counted_decode)
    monkeypatch.setattr(PreparedForm, "rebuild", counted_rebuild)
    return seen


def asking_server(sdk: str, shown: list[Any]) -> Any:
    server = new_server(sdk, "rebuild")

    @server.tool()
    async def profiles(n: int) -> str:
        answers = [
            await ask(Profile, f"Profile {index}?", overrides=_overrides(index))
            for index in range(n)
        ]
        shown[:] = [answer.unwrap() for answer in answers]
        return ",".join(answer.unwrap().name for answer in answers)

    return server


def _overrides(index: int) -> Overrides | None:
    # Every third question with per-call options: their answers are rebuilt against them.
    return Overrides(choices={"size": ["s", "m"]}) if index % 3 == 2 else None


def answering() -> Callable[[Any, Any], Any]:
    async def answer(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={**ANSWER, "size": "m"})

    return answer


@pytest.mark.parametrize("n", [1, 5, 10])
async def test_each_answer_is_checked_once_however_many_questions_the_call_asks(
    sdk: str, n: int, counts: Counts
) -> None:
    shown: list[Any] = []
    server = asking_server(sdk, shown)
    async with Client(in_memory(server), mode="auto", elicitation_callback=answering()) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("profiles", {"n": n})
    assert not result.is_error, result
    # One check per answer (when it arrives), not one per answer per round (n(n+1)/2).
    assert counts.decodes == n
    # Round k+1 rebuilds the k answers before it; the last round rebuilds n - 1... and the
    # answer that arrives in the final round is checked, not rebuilt.
    assert counts.rebuilds == n * (n - 1) // 2
    expected = parse_content(Profile, {**ANSWER, "size": "m"})
    assert shown == [expected] * n


async def test_the_handshake_eras_check_each_answer_once_and_rebuild_nothing(
    sdk: str, counts: Counts
) -> None:
    shown: list[Any] = []
    server = asking_server(sdk, shown)
    async with Client(in_memory(server), mode="legacy", elicitation_callback=answering()) as client:
        result = await client.call_tool("profiles", {"n": 4})
    assert not result.is_error, result
    assert (counts.decodes, counts.rebuilds) == (4, 0)
