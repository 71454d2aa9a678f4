"""Multi-selects on MCP 2025-06-18: one checkbox per choice, folded back before the checks."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from annotated_types import MaxLen, MinLen
from pydantic import Field

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
from elicitkit.testing import PROFILES, Reply, ScriptedUser, accept, connect
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
    "value", ["yes", 1, [True], {"x": True}], ids=["text", "one", "list", "object"]
)
def test_a_box_that_is_not_a_boolean_is_refused_on_its_key(value: Any) -> None:
    form = one_field_form(list[Pick])
    with pytest.raises(InvalidContent) as caught:
        parse_content(form, {"answer__1": True, "answer__2": value}, protocol="2025-06-18")
    assert caught.value.errors == [FieldError("answer__2", "Expected true or false.")]


# A multi-select with a default, and a bound its default meets: before the boxes kept
# their defaults, an answer that left them out became [] and was refused.
WITH_DEFAULT = one_field_form(Annotated[tuple[Pick, ...], MinLen(1)], ("b",))


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param({}, ("b",), id="all-left-out"),
        pytest.param({"answer__1": True}, ("a", "b"), id="one-ticked-others-left-out"),
        pytest.param({"answer__2": False, "answer__3": True}, ("c",), id="default-unticked"),
        pytest.param({"answer__1": None, "answer__2": None}, ("b",), id="all-null"),
        pytest.param({"answer__2": None, "answer__3": True}, ("b", "c"), id="null-keeps-default"),
    ],
)
def test_boxes_left_out_or_null_keep_their_default(content: Any, expected: Any) -> None:
    got = parse_content(WITH_DEFAULT, content, protocol="2025-06-18")
    assert form_value(got) == expected


@dataclasses.dataclass
class Factory:
    answer: list[Pick] = dataclasses.field(default_factory=lambda: ["c"])  # never prefilled


@pytest.mark.parametrize(
    "form",
    [WITH_DEFAULT, one_field_form(list[Pick] | None, None), Factory],
    ids=["default", "optional", "factory"],
)
def test_an_answer_without_the_boxes_decodes_as_without_the_list_on_2025_11_25(form: Any) -> None:
    assert parse_content(form, {}, protocol="2025-06-18") == parse_content(
        form, {}, protocol="2025-11-25"
    )


def test_unticking_every_box_of_a_default_is_the_empty_choice() -> None:
    content = {"answer__1": False, "answer__2": False, "answer__3": False}
    with pytest.raises(InvalidContent) as caught:
        parse_content(WITH_DEFAULT, content, protocol="2025-06-18")
    assert caught.value.errors == [FieldError("answer", "Choose at least 1 option.")]


def test_null_on_a_box_without_a_default_is_unticked() -> None:
    form = one_field_form(list[Pick])
    got = parse_content(form, {"answer__1": None, "answer__3": True}, protocol="2025-06-18")
    assert form_value(got) == ["c"]


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


TWELVE = [member.value for member in MANY][:MAX_CHECKBOXES]


def test_the_limit_counts_this_calls_choices_not_the_declared_ones() -> None:
    form = one_field_form(list[MANY])  # type: ignore[valid-type]
    narrowed = Overrides(choices={"answer": TWELVE})  # the fix TooManyCheckboxes suggests
    schema = requested_schema(form, protocol="2025-06-18", overrides=narrowed)
    assert len(schema["properties"]) == MAX_CHECKBOXES
    assert schema["properties"][f"answer__{MAX_CHECKBOXES}"]["title"] == "Answer: c11"
    got = parse_content(form, {"answer__2": True}, protocol="2025-06-18", overrides=narrowed)
    assert [member.value for member in form_value(got)] == ["c1"]
    prepared = prepare(form, "2025-06-18", overrides=narrowed)
    assert [member.value for member in prepared.decode({"answer__12": True}).answer] == ["c11"]
    # Without the overrides, the same form is still refused, and so is a call that
    # offers one choice too many: it names that call's count.
    with pytest.raises(TooManyCheckboxes):
        requested_schema(form, protocol="2025-06-18")
    too_many = Overrides(choices={"answer": [*TWELVE, "c12"]})
    for attempt in (
        lambda: prepare(form, "2025-06-18", overrides=too_many),
        lambda: parse_content(form, {}, protocol="2025-06-18", overrides=too_many),
    ):
        with pytest.raises(TooManyCheckboxes, match=f"it has {MAX_CHECKBOXES + 1} choices"):
            attempt()


def test_a_long_multi_select_hidden_in_a_call_is_not_counted() -> None:
    @dataclasses.dataclass
    class Tagged:
        name: str
        tags: list[MANY] = dataclasses.field(default_factory=list)  # type: ignore[valid-type]

    hidden = Overrides(hide={"tags"})
    schema = requested_schema(Tagged, protocol="2025-06-18", overrides=hidden)
    assert list(schema["properties"]) == ["name"]
    got = parse_content(Tagged, {"name": "x"}, protocol="2025-06-18", overrides=hidden)
    assert got == Tagged("x", [])
    with pytest.raises(TooManyCheckboxes):
        requested_schema(Tagged, protocol="2025-06-18")


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        pytest.param("Pick your toppings", "Pick your toppings. Tick at least 1.", id="phrase"),
        pytest.param("Pick some.  ", "Pick some. Tick at least 1.", id="sentence"),
        pytest.param("Any?", "Any? Tick at least 1.", id="question"),
    ],
)
def test_the_first_box_describes_the_field_then_the_bounds_as_sentences(
    description: str, expected: str
) -> None:
    form = one_field_form(Annotated[list[Pick], MinLen(1), Field(description=description)])
    boxes = requested_schema(form, protocol="2025-06-18")["properties"]
    assert boxes["answer__1"]["description"] == expected
    assert "description" not in boxes["answer__2"]


def test_a_description_without_bounds_is_sent_as_written() -> None:
    form = one_field_form(Annotated[list[Pick], Field(description="Pick your toppings")])
    boxes = requested_schema(form, protocol="2025-06-18")["properties"]
    assert boxes["answer__1"]["description"] == "Pick your toppings"


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


@dataclasses.dataclass
class Prefs:
    toppings: Annotated[tuple[Pick, ...], MinLen(1), Field(description="Pick your toppings")] = (
        "b",
    )


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

    @server.tool()
    async def prefs() -> str:
        answer = await ask(Prefs, "Toppings?")
        return ", ".join(answer.unwrap().toppings)

    @server.tool()
    async def narrowed() -> str:
        answer = await ask(Huge, overrides=Overrides(choices={"tags": TWELVE}))
        return ", ".join(tag.value for tag in answer.unwrap().tags)

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


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param(accept(), "b", id="left-out"),
        pytest.param(accept(toppings__1=True), "a, b", id="one-ticked"),
        pytest.param(accept(toppings__2=None, toppings__3=True), "b, c", id="null"),
    ],
)
async def test_a_real_client_on_2025_06_18_leaving_boxes_out_keeps_the_default(
    server: Any, reply: Reply, expected: str
) -> None:
    # A client that sends only what the user touched (no prefilled defaults): before the
    # boxes kept their defaults, each of these was refused "Choose at least 1 option.".
    user = ScriptedUser(reply)
    quiet = PROFILES["ignores-defaults"]
    async with connect(server, protocol="2025-06-18", user=user, profile=quiet) as client:
        result = await client.call_tool("prefs", {})
    assert user.requests[0].sent == {"action": "accept", "content": dict(reply.content or {})}
    assert isinstance(result.content[0], types.TextContent)
    assert (result.is_error, result.content[0].text) == (False, expected)
    boxes = user.requests[0].schema["properties"]
    assert [box["default"] for box in boxes.values()] == [False, True, False]


@pytest.mark.anyio
async def test_a_real_client_on_2025_06_18_reads_the_description_as_sentences(
    server: Any,
) -> None:
    user = ScriptedUser(accept(toppings__1=True))
    async with connect(server, protocol="2025-06-18", user=user) as client:
        await client.call_tool("prefs", {})
    first, second, _ = user.requests[0].schema["properties"].values()
    assert first["description"] == "Pick your toppings. Tick at least 1."
    assert "description" not in second


@pytest.mark.anyio
async def test_a_real_client_on_2025_06_18_is_asked_this_calls_twelve_choices(
    server: Any,
) -> None:
    user = ScriptedUser(accept(tags__1=True, tags__12=True))
    async with connect(server, protocol="2025-06-18", user=user) as client:
        result = await client.call_tool("narrowed", {})
    assert isinstance(result.content[0], types.TextContent)
    assert (result.is_error, result.content[0].text) == (False, "c0, c11")
    assert len(user.requests[0].schema["properties"]) == MAX_CHECKBOXES
