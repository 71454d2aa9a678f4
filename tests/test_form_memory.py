"""Forms built at run time cost nothing after their call: caches never keep them alive."""

from __future__ import annotations

import dataclasses
import enum
import gc
import tracemalloc
import weakref
from typing import Annotated, Any, Literal, TypedDict

import mcp_types as types
import msgspec
import pydantic
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

import elicitkit._compiler.compiled_forms
import elicitkit._compiler.render
from elicitkit import FormField, ask, form, install, parse_content, requested_schema
from elicitkit._compiler.compiled_forms import compiled_form

COUNT = 10_000


FEWER = 1_000  # for the shapes whose classes are slow to build; the mechanism is the same


@pytest.fixture(autouse=True)
def _unrecorded_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    # conftest records every rendered schema to check it against the spec; tens of thousands
    # of schemas of one shape (checked in the schema tests) would only slow this file down.
    monkeypatch.setattr(
        elicitkit._compiler.compiled_forms,
        "render_schema",
        elicitkit._compiler.render.render_schema,
    )


def _per_call_dataclass(number: int) -> type:
    # What a tool does today to offer today's options and name the item in the title.
    options: Any = Literal[(f"slot-{number}", f"slot-{number + 1}")]  # type: ignore[valid-type]
    title = FormField(title=f"Slot for item {number}")
    return dataclasses.make_dataclass(
        "Booking",
        [("slot", Annotated[options, title]), ("seats", int, dataclasses.field(default=1))],
        repr=False,  # fewer generated methods: the loop builds ten thousand of these
        eq=False,
    )


def _per_call_model(number: int) -> type:
    return pydantic.create_model(f"Model{number}", seats=(int, pydantic.Field(ge=number)))


def _per_call_struct(number: int) -> type:
    return msgspec.defstruct(f"Struct{number}", [("seats", int), ("note", str, "")])


def _per_call_typeddict(number: int) -> type:
    return TypedDict(f"Dict{number}", {"seats": int})  # type: ignore[operator,no-any-return]


def _per_call_enum(number: int) -> type:
    return enum.Enum(f"Size{number}", {"S": f"s{number}", "M": f"m{number}"})


@pytest.mark.parametrize(
    ("build", "answer", "count"),
    [
        pytest.param(
            _per_call_dataclass,
            lambda n: {"slot": f"slot-{n}", "seats": 2},
            COUNT,
            id="dataclass",
        ),
        pytest.param(_per_call_model, lambda n: {"seats": n}, FEWER, id="pydantic-model"),
        pytest.param(_per_call_struct, lambda n: {"seats": 2}, FEWER, id="msgspec-struct"),
        pytest.param(_per_call_typeddict, lambda n: {"seats": 2}, FEWER, id="typeddict"),
        pytest.param(_per_call_enum, lambda n: {"value": f"s{n}"}, FEWER, id="enum-one-field"),
    ],
)
def test_per_call_form_types_are_collected(build: Any, answer: Any, count: int) -> None:
    refs: list[weakref.ref[type]] = []
    for number in range(count):
        form_type = build(number)
        for version in ("2025-06-18", "2025-11-25", "2026-07-28"):
            requested_schema(form_type, protocol=version)
        parse_content(form_type, answer(number))
        refs.append(weakref.ref(form_type))
        del form_type
    gc.collect()
    alive = sum(ref() is not None for ref in refs)
    assert alive == 0


def _alias_batch(first: int, count: int) -> None:
    for number in range(first, first + count):
        alias = Annotated[int, FormField(title=f"Seats for item {number}")]
        requested_schema(alias)
        assert parse_content(alias, {"value": 3}) == 3


def test_forms_without_a_class_hold_bounded_memory() -> None:
    # Literal and Annotated aliases cannot be weakly referenced or carry attributes: what
    # elicitkit keeps of them must stop growing, however many distinct ones a server builds.
    batch = 2 * elicitkit._compiler.compiled_forms.MAX_OTHER_FORMS
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        _alias_batch(0, batch)
        gc.collect()
        after_one = tracemalloc.get_traced_memory()[0]
        _alias_batch(batch, batch)
        _alias_batch(2 * batch, batch)
        gc.collect()
        after_three = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    first_growth = after_one - start
    later_growth = after_three - after_one
    assert first_growth > 100_000  # the batch really kept compiled forms (a live check)
    assert later_growth < first_growth / 4, (first_growth, later_growth)


def test_a_class_keeps_its_own_compiled_form_and_a_subclass_gets_its_own() -> None:
    @form(message="Base?")
    @dataclasses.dataclass
    class Base:
        seats: int

    @dataclasses.dataclass
    class Child(Base):
        note: str = ""

    assert compiled_form(Base) is compiled_form(Base)
    assert compiled_form(Child).spec.tp is Child
    assert [field.key for field in compiled_form(Child).spec.fields] == ["seats", "note"]
    assert compiled_form(Child).spec.message is None


def test_builtin_types_are_compiled_once() -> None:
    assert compiled_form(int) is compiled_form(int)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("mode", "version"),
    [
        pytest.param("legacy", "2025-11-25", id="2025-11-25"),
        pytest.param("auto", "2026-07-28", id="2026-07-28"),
    ],
)
async def test_forms_built_per_call_are_collected_after_real_calls(mode: str, version: str) -> None:
    server = install(MCPServer("per-call"))
    refs: list[weakref.ref[type]] = []

    @server.tool()
    async def book(number: int) -> str:
        # A new class on every run, the same question: on 2026-07-28 the retry's run asks
        # the identical form and gets the answer.
        form_type = _per_call_dataclass(number)
        refs.append(weakref.ref(form_type))
        answer = await ask(form_type, f"Which slot for item {number}?")
        return str(answer.action)

    async def accept_first_slot(context: Any, params: Any) -> types.ElicitResult:
        slot = params.requested_schema["properties"]["slot"]["enum"][0]
        return types.ElicitResult(action="accept", content={"slot": slot})

    async with Client(server, mode=mode, elicitation_callback=accept_first_slot) as client:
        assert client.protocol_version == version
        for number in range(200):
            result = await client.call_tool("book", {"number": number})
            assert result.content == [types.TextContent(type="text", text="accept")]
    gc.collect()
    assert refs
    assert sum(ref() is not None for ref in refs) == 0
