"""An optional text field left empty: ``""`` means "no answer", in every kind of form.

Every form client driven against elicitkit (the MCP Inspector, fast-agent, the mcp-use
Inspector, mcp-agent; docs/clients.md) sends ``""`` for a text input nobody touched, and none
offers another way to leave it unanswered. So an optional text field answered ``""`` is
absent: a ``NotRequired`` key is left out, ``str | None`` gets ``None``, a field with a
default gets its default. ``FormField(keep_empty=True)`` keeps ``""``; a required text field
always does (and its ``minLength`` then refuses it). Decoding and the rebuild of an answer
carried to a later round (2026-07-28) agree.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Annotated, Any

import msgspec
import pydantic
import pytest
from annotated_types import MinLen
from typing_extensions import NotRequired, TypedDict

from elicitkit import Email, FormDefinitionError, FormField, InvalidContent, ask, parse_content
from elicitkit._compiler.compiled_forms import prepare
from elicitkit.testing import ScriptedUser, accept, connect
from tests.sdks import new_server

KEEP = FormField(keep_empty=True)


@dataclasses.dataclass
class DataclassForm:
    name: str
    note: str | None = None
    nick: str = "anon"
    motto: str = dataclasses.field(default_factory=lambda: "carpe diem")
    kept: Annotated[str | None, KEEP] = None


class PydanticForm(pydantic.BaseModel):
    name: str
    note: str | None = None
    nick: str = "anon"
    motto: str = pydantic.Field(default_factory=lambda: "carpe diem")
    short: Annotated[str | None, pydantic.Field(min_length=3)] = None
    kept: Annotated[str | None, KEEP] = None


class MsgspecForm(msgspec.Struct):
    name: str
    note: str | None = None
    nick: str = "anon"
    motto: str = msgspec.field(default_factory=lambda: "carpe diem")
    kept: Annotated[str | None, KEEP] = None


class TypedDictForm(TypedDict):
    name: str
    note: str | None
    gone: NotRequired[str]
    kept: NotRequired[Annotated[str, KEEP]]


EMPTY = {"name": "", "note": "", "nick": "", "motto": "", "kept": ""}

# (form, the answer with every text left empty, what each field then holds)
CASES = [
    pytest.param(
        DataclassForm,
        EMPTY,
        {"name": "", "note": None, "nick": "anon", "motto": "carpe diem", "kept": ""},
        id="dataclass",
    ),
    pytest.param(
        PydanticForm,
        {**EMPTY, "short": ""},
        {
            "name": "",
            "note": None,
            "nick": "anon",
            "motto": "carpe diem",
            "short": None,
            "kept": "",
        },
        id="pydantic",
    ),
    pytest.param(
        MsgspecForm,
        EMPTY,
        {"name": "", "note": None, "nick": "anon", "motto": "carpe diem", "kept": ""},
        id="msgspec",
    ),
    pytest.param(
        TypedDictForm,
        {"name": "", "note": "", "gone": "", "kept": ""},
        {"name": "", "note": None, "kept": ""},  # "gone" is left out, as NotRequired allows
        id="typeddict",
    ),
]


def fields_of(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return dict(value)  # pyright: ignore[reportUnknownArgumentType]
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump()
    if isinstance(value, msgspec.Struct):
        return msgspec.structs.asdict(value)
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}


@pytest.mark.parametrize(("tp", "content", "expected"), CASES)
def test_empty_optional_text_is_absent_and_required_text_keeps_it(
    tp: Any, content: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert fields_of(parse_content(tp, content)) == expected


@pytest.mark.parametrize(("tp", "content", "expected"), CASES)
def test_a_carried_answer_rebuilds_to_the_same_value(
    tp: Any, content: dict[str, Any], expected: dict[str, Any]
) -> None:
    form = prepare(tp, "2026-07-28")
    values = [content.get(field.key) for field in form.spec.fields]
    rebuilt = form.rebuild(values)
    assert rebuilt == form.decode(content)
    assert fields_of(rebuilt) == expected


@pytest.mark.parametrize(
    ("tp", "content", "expected"),
    [
        pytest.param(DataclassForm, {"name": "Ada"}, "anon", id="dataclass"),
        pytest.param(PydanticForm, {"name": "Ada"}, "anon", id="pydantic"),
        pytest.param(MsgspecForm, {"name": "Ada"}, "anon", id="msgspec"),
    ],
)
def test_empty_is_the_same_as_absent(tp: Any, content: dict[str, Any], expected: str) -> None:
    absent = parse_content(tp, content)
    empty = parse_content(tp, {**content, "note": "", "nick": ""})
    assert absent == empty
    assert fields_of(empty)["nick"] == expected


def test_a_typed_text_still_counts_as_an_answer() -> None:
    value = parse_content(TypedDictForm, {"name": "Ada", "note": " ", "gone": "x", "kept": "y"})
    assert value == {"name": "Ada", "note": " ", "gone": "x", "kept": "y"}


@dataclasses.dataclass
class Code:
    code: Annotated[str, MinLen(2)]
    hint: Annotated[str | None, MinLen(2)] = None


def test_a_required_text_left_empty_is_refused_by_its_minimum_length() -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(Code, {"code": "", "hint": ""})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("code", "Must be at least 2 characters long.")
    ]  # hint left empty is absent, not too short


def test_a_kept_empty_text_is_checked_like_any_other_text() -> None:
    @dataclasses.dataclass
    class Kept:
        hint: Annotated[str | None, MinLen(2), KEEP] = None

    with pytest.raises(InvalidContent) as caught:
        parse_content(Kept, {"hint": ""})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("hint", "Must be at least 2 characters long.")
    ]
    assert parse_content(Kept, {}).hint is None


@pytest.mark.parametrize(
    ("annotation", "what"),
    [
        pytest.param(int | None, "integer", id="integer"),
        pytest.param(bool | None, "boolean", id="boolean"),
        pytest.param(dt.date | None, "date text", id="date"),
        pytest.param(Annotated[str | None, Email], "email text", id="email"),
    ],
)
def test_keep_empty_is_refused_where_empty_is_never_an_answer(annotation: Any, what: str) -> None:
    form = dataclasses.make_dataclass(
        "Odd", [("field", Annotated[annotation, KEEP], dataclasses.field(default=None))]
    )
    with pytest.raises(FormDefinitionError) as caught:
        parse_content(form, {})
    assert str(caught.value) == (
        f"Cannot build a form field for 'field' of Odd: keep_empty=True applies only to plain "
        f'text fields, and this field is {what}, for which "" is never an answer. Remove it.'
    )


@pytest.mark.anyio
async def test_a_carried_empty_answer_stays_absent_in_later_rounds(sdk: str) -> None:
    server = new_server(sdk)

    @server.tool()
    async def two_questions() -> str:
        first = (await ask(DataclassForm)).unwrap()
        second = (await ask(TypedDictForm)).unwrap()
        return f"{first.note!r} {first.nick!r} {first.kept!r} | {sorted(second)}"

    user = ScriptedUser(accept(EMPTY), accept(name="Ada", note="", gone="", kept=""))
    async with connect(server, protocol="2026-07-28", user=user) as client:
        result = await client.call_tool("two_questions", {})
    [block] = result.content
    assert getattr(block, "text", None) == "None 'anon' '' | ['kept', 'name', 'note']"
