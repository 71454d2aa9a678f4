"""@form compiles at import time and stores the message; repeated calls are lookups."""

from __future__ import annotations

import dataclasses
from typing import Literal, NoReturn

import pytest
from mcp.server.mcpserver import MCPServer

import elicitkit._compiler.compiled_forms
from elicitkit import ask, form, install, parse_content, requested_schema
from elicitkit._compiler.compiled_forms import form_spec
from elicitkit.testing import ScriptedUser, accept, connect


def test_form_with_message() -> None:
    @form(message="Where should we ship it?")
    @dataclasses.dataclass
    class Shipping:
        city: str

    assert form_spec(Shipping).message == "Where should we ship it?"
    assert parse_content(Shipping, {"city": "Oslo"}) == Shipping("Oslo")


def test_bare_form_decorator_returns_the_class_unchanged() -> None:
    @dataclasses.dataclass
    class Plain:
        ok: bool

    assert form(Plain) is Plain
    assert form_spec(Plain).message is None


def test_form_compiles_once_at_decoration(monkeypatch: pytest.MonkeyPatch) -> None:
    @form
    @dataclasses.dataclass
    class Confirm:
        ok: bool

    # Compiled at decoration: later calls never read the class's annotations again.
    def no_second_look(tp: object, **_: object) -> NoReturn:
        raise AssertionError(f"{tp} introspected again")

    monkeypatch.setattr(elicitkit._compiler.compiled_forms, "inspect_form", no_second_look)
    assert requested_schema(Confirm)["required"] == ["ok"]
    assert parse_content(Confirm, {"ok": True}) == Confirm(ok=True)


def test_each_schema_call_returns_a_fresh_copy() -> None:
    @dataclasses.dataclass
    class Pick:
        size: Literal["s", "m"]

    first = requested_schema(Pick, protocol="2025-11-25")
    assert requested_schema(Pick, protocol="2025-11-25") == first
    assert requested_schema(Pick, protocol="2025-11-25") is not first
    assert requested_schema(Pick, protocol="2026-07-28") == first


def test_editing_a_returned_schema_changes_no_later_call() -> None:
    @dataclasses.dataclass
    class Pick:
        size: Literal["s", "m"]

    schema = requested_schema(Pick)
    schema["properties"]["size"]["title"] = "HACKED"
    schema["properties"]["size"]["enum"].append("xl")
    schema["required"].clear()
    again = requested_schema(Pick)
    assert again["properties"]["size"] == {"type": "string", "title": "Size", "enum": ["s", "m"]}
    assert again["required"] == ["size"]


def test_redecorating_replaces_the_message() -> None:
    @dataclasses.dataclass
    class Question:
        answer: str

    requested_schema(Question)
    form(message="First")(Question)
    form(message="Second")(Question)
    assert form_spec(Question).message == "Second"


@pytest.mark.anyio
@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_caller_editing_a_schema_changes_no_later_question(protocol: str) -> None:
    @dataclasses.dataclass
    class Seat:
        row: int

    server = install(MCPServer("edited-schema"))

    @server.tool()
    async def book() -> str:
        return str((await ask(Seat)).unwrap().row)

    requested_schema(Seat, protocol=protocol)["properties"]["row"]["title"] = "HACKED"
    user = ScriptedUser(accept(row=7))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("book", {})
    assert not result.is_error, result
    assert user.requests[0].schema["properties"]["row"] == {"type": "integer", "title": "Row"}
