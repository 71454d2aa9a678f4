"""Multi-selects on MCP 2025-06-18: one checkbox per choice, folded back before the checks."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from annotated_types import MaxLen, MinLen

from elicitkit import (
    ElicitError,
    FormDefinitionError,
    Overrides,
    ask,
    parse_content,
    requested_schema,
)
from elicitkit._compiler.compiled_forms import prepare
from elicitkit.errors import FieldError, InvalidContent, TooManyCheckboxes
from elicitkit.protocol import MAX_CHECKBOXES
from elicitkit.testing import ScriptedUser, accept, connect
from tests.forms import one_field_form
from tests.sdks import SDKS, new_server

Pick = Literal["a", "b", "c"]


def test_ticked_boxes_become_the_list_in_choice_order() -> None:
    form = one_field_form(list[Pick])
    content = {"answer__3": True, "answer__1": True, "answer__2": False}
    assert form_value(parse_content(form, content, protocol="2025-06-18")) == ["a", "c"]


def test_unticked_boxes_may_be_left_out() -> None:
    form = one_field_form(set[Pick])
    assert form_value(parse_content(form, {"answer__2": True}, protocol="2025-06-18")) == {"b"}
    assert form_value(parse_content(form, {}, protocol="2025-06-18")) == set()


def test_nothing_ticked_on_an_optional_field_is_no_answer() -> None:
    form = one_field_form(list[Pick] | None, None)
    assert form_value(parse_content(form, {}, protocol="2025-06-18")) is None


def test_bounds_are_checked_after_folding_with_the_same_message() -> None:
    form = one_field_form(Annotated[list[Pick], MinLen(2), MaxLen(2)])
    with pytest.raises(InvalidContent) as old:
        parse_content(form, {"answer__1": True}, protocol="2025-06-18")
    with pytest.raises(InvalidContent) as new:
        parse_content(form, {"answer": ["a"]}, protocol="2025-11-25")
    assert old.value.errors == new.value.errors
    assert [error.field for error in old.value.errors] == ["answer"]


@pytest.mark.parametrize(
    "value", ["yes", 1, None, [True], {"x": True}], ids=["text", "one", "null", "list", "object"]
)
def test_a_box_that_is_not_a_boolean_is_refused_on_its_key(value: Any) -> None:
    form = one_field_form(list[Pick])
    with pytest.raises(InvalidContent) as caught:
        parse_content(form, {"answer__1": True, "answer__2": value}, protocol="2025-06-18")
    assert caught.value.errors == [FieldError("answer__2", "Expected true or false.")]


MANY = enum.Enum("Many", {f"C{n}": f"c{n}" for n in range(MAX_CHECKBOXES + 1)})  # type: ignore[misc]


def test_too_many_choices_is_an_elicit_error_not_a_type_error() -> None:
    form = one_field_form(list[MANY])  # type: ignore[valid-type]
    for attempt in (
        lambda: requested_schema(form, protocol="2025-06-18"),
        lambda: parse_content(form, {}, protocol="2025-06-18"),
    ):
        with pytest.raises(TooManyCheckboxes) as caught:
            attempt()
        assert isinstance(caught.value, ElicitError)
        assert not isinstance(caught.value, (TypeError, FormDefinitionError))
        assert str(caught.value) == (
            f"Cannot ask for 'answer' of Form on MCP 2025-06-18: it has {MAX_CHECKBOXES + 1} "
            f"choices, and that version has no multi-select, so elicitkit sends one checkbox per "
            f"choice, up to {MAX_CHECKBOXES}. Offer at most {MAX_CHECKBOXES} choices (per call "
            "with Overrides(choices=...)), or catch the error and carry on without it."
        )
    # Newer versions have arrays: no limit there.
    assert requested_schema(form, protocol="2025-11-25")["properties"]["answer"]["type"] == "array"


def test_per_call_choices_render_their_own_boxes_in_place() -> None:
    @dataclasses.dataclass
    class Order:
        size: Pick
        extras: list[Pick]
        note: str = ""

    narrowed = prepare(Order, "2025-06-18", overrides=Overrides(choices={"extras": ["b", "c"]}))
    assert list(narrowed.schema["properties"]) == ["size", "extras__1", "extras__2", "note"]
    assert narrowed.schema["properties"]["extras__1"]["title"] == "Extras: b"
    assert narrowed.decode({"size": "a", "extras__2": True}).extras == ["c"]
    hidden = prepare(Order, "2025-06-18", overrides=Overrides(hide={"note"}))
    assert "extras__1" in hidden.schema["properties"]


@dataclasses.dataclass
class Toppings:
    toppings: Annotated[list[Pick], MinLen(1)]


@dataclasses.dataclass
class Huge:
    tags: list[MANY]  # type: ignore[valid-type]


@pytest.fixture(params=SDKS)
def server(request: pytest.FixtureRequest) -> Any:
    server = new_server(str(request.param))

    @server.tool()
    async def pizza() -> str:
        answer = await ask(Toppings, "Toppings?")
        return ", ".join(answer.unwrap().toppings)

    @server.tool()
    async def tagged() -> str:
        try:
            await ask(Huge)
        except ElicitError as error:  # the documented "carry on" covers it
            return f"carried on: {type(error).__name__}"
        return "asked"

    return server


@pytest.mark.anyio
async def test_a_real_client_on_2025_06_18_ticks_boxes(server: Any) -> None:
    user = ScriptedUser(accept(toppings__2=True, toppings__3=True))
    async with connect(server, protocol="2025-06-18", user=user) as client:
        result = await client.call_tool("pizza", {})
        caught = await client.call_tool("tagged", {})
    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text == "b, c"
    schema = user.requests[0].schema
    assert list(schema["properties"]) == ["toppings__1", "toppings__2", "toppings__3"]
    assert schema["properties"]["toppings__1"]["description"] == "Tick at least 1."
    assert isinstance(caught.content[0], types.TextContent)
    assert caught.content[0].text == "carried on: TooManyCheckboxes"


def form_value(value: Any) -> Any:
    return value.answer if hasattr(value, "answer") else value
