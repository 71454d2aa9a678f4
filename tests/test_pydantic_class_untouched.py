"""Compiling and decoding a pydantic-model form never changes the author's model class.

elicitkit keeps its compiled form in the class's ``__dict__`` under ``__elicitkit_form__``
(so the two die together, see `elicitkit._compiler.compiled_forms`); nothing else of the
class is written, not even for a moment: pydantic's own attributes (``__pydantic_complete__``,
the validator, the schema) are the author's and pydantic's. A change undone before the end
is caught by a metaclass that looks at the class whenever anything (pydantic-core included)
reads one of its attributes.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import pydantic
import pytest
from annotated_types import Ge, Le, MaxLen, MinLen
from mcp.server.mcpserver import MCPServer
from pydantic._internal._model_construction import ModelMetaclass

from elicitkit import InvalidContent, ask, install, parse_content, requested_schema
from elicitkit.testing import ScriptedUser, accept, connect

pytestmark = pytest.mark.anyio

OURS = "__elicitkit_form__"
WATCHED: dict[int, list[tuple[str, Any]]] = {}  # id(class) -> (name read, the flag then)


class Watching(ModelMetaclass):
    """Records, for a watched class, ``__pydantic_complete__`` at every attribute read."""

    def __getattribute__(cls, name: str) -> Any:  # noqa: N805  (a metaclass: self is a class)
        seen = WATCHED.get(id(cls))
        if seen is not None:
            own = type.__getattribute__(cls, "__dict__")
            seen.append((name, own.get("__pydantic_complete__")))
        return type.__getattribute__(cls, name)


def new_model() -> type[pydantic.BaseModel]:
    # A class per test: a form compiled by an earlier test would hide the first compile.
    class Profile(pydantic.BaseModel, metaclass=Watching):
        name: Annotated[str, MinLen(1), MaxLen(50)]
        age: Annotated[int, Ge(0), Le(150)]
        height: float
        subscribed: bool
        color: Literal["red", "green", "blue"]
        birthday: dt.date
        nickname: str | None = None

    return Profile


ANSWER = {
    "name": "Ada",
    "age": 36,
    "height": 1.7,
    "subscribed": True,
    "color": "green",
    "birthday": "1990-12-10",
}


def snapshot(tp: type[Any]) -> dict[str, Any]:
    return {key: value for key, value in vars(tp).items() if key != OURS}


def lowered(seen: list[tuple[str, Any]]) -> list[str]:
    """The attributes read while the class did not say it was complete."""
    return [name for name, complete in seen if complete is not True]


def test_parse_content_leaves_the_model_class_as_it_was() -> None:
    model = new_model()
    before = snapshot(model)
    validator = model.__pydantic_validator__
    WATCHED[id(model)] = seen = []
    try:
        requested_schema(model)
        assert parse_content(model, ANSWER) == model.model_validate(ANSWER)
        with pytest.raises(InvalidContent):
            parse_content(model, {**ANSWER, "age": "36"})
    finally:
        del WATCHED[id(model)]
    assert seen  # the metaclass did watch
    assert lowered(seen) == []
    assert snapshot(model) == before
    assert list(snapshot(model)) == list(before)
    assert model.__pydantic_validator__ is validator


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_round_trip_leaves_the_model_class_as_it_was(protocol: str) -> None:
    model = new_model()
    before = snapshot(model)
    validator = model.__pydantic_validator__
    server = install(MCPServer("untouched"))

    @server.tool()
    async def profile() -> str:
        return (await ask(model, "Your profile?")).unwrap().name

    WATCHED[id(model)] = seen = []
    try:
        user = ScriptedUser(accept(**ANSWER))
        async with connect(server, protocol=protocol, user=user) as client:
            result = await client.call_tool("profile", {})
    finally:
        del WATCHED[id(model)]
    assert not result.is_error, result
    assert seen
    assert lowered(seen) == []
    assert snapshot(model) == before
    assert model.__pydantic_validator__ is validator
