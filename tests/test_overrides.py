"""Per-call overrides: options, defaults, titles and descriptions without a new type."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import annotated_types as at
import anyio
import mcp_types as types
import pydantic
import pytest
from mcp import Client

from elicitkit import (
    FormDefinitionError,
    FormField,
    InvalidContent,
    Overrides,
    ask,
    parse_content,
    requested_schema,
)
from tests.sdks import ERAS, in_memory, new_server, tool_error
from tests.spec_check import assert_spec_valid


class Plan(enum.Enum):
    FREE = "free"
    TEAM = "team"
    ENTERPRISE = "enterprise"


@dataclasses.dataclass
class Order:
    region: str
    plan: Plan
    extras: list[Literal["backup", "support", "sso"]]
    quantity: Annotated[int, at.Ge(1), at.Le(10)] = 1
    note: str = ""


GOOD = {"region": "eu-west", "plan": "team", "extras": ["backup"]}
PER_CALL = Overrides(
    choices={
        "region": {"eu-west": "Europe (Ireland)", "us-east": "US (Virginia)"},
        "plan": [Plan.FREE, Plan.TEAM],
        "extras": ["backup", "sso"],
    },
    defaults={"quantity": 3},
    titles={"note": "Note for order 42"},
    descriptions={"region": "Regions open to this account"},
)


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_overrides_render_on_top_of_the_cached_schema(protocol: str) -> None:
    base = requested_schema(Order, protocol=protocol)
    copy_of_base = {**base, "properties": {**base["properties"]}}
    schema = requested_schema(Order, protocol=protocol, overrides=PER_CALL)
    assert schema["properties"] == {
        "region": {
            "type": "string",
            "title": "Region",
            "description": "Regions open to this account",
            "oneOf": [
                {"const": "eu-west", "title": "Europe (Ireland)"},
                {"const": "us-east", "title": "US (Virginia)"},
            ],
        },
        "plan": {"type": "string", "title": "Plan", "enum": ["free", "team"]},
        "extras": {
            "type": "array",
            "title": "Extras",
            "items": {"type": "string", "enum": ["backup", "sso"]},
        },
        "quantity": {
            "type": "integer",
            "title": "Quantity",
            "minimum": 1,
            "maximum": 10,
            "default": 3,
        },
        "note": {"type": "string", "title": "Note for order 42", "default": ""},
    }
    assert schema["required"] == ["region", "plan", "extras"]
    assert_spec_valid(schema, protocol)
    # The form's own schema is untouched.
    assert requested_schema(Order, protocol=protocol) == copy_of_base
    assert base == copy_of_base


def test_per_call_options_are_enforced_on_decode() -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(
            Order,
            {"region": "ap-south", "plan": "enterprise", "extras": ["support"]},
            overrides=PER_CALL,
        )
    assert [(error.field, error.message) for error in caught.value.errors] == [
        (
            "region",
            (
                'Must be one of "Europe (Ireland)" (\'eu-west\'), "US (Virginia)" '
                "('us-east'); got 'ap-south'."
            ),
        ),
        ("plan", "Must be one of 'free', 'team'; got 'enterprise'."),
        ("extras", "Every option must be one of 'backup', 'sso'; got 'support'."),
    ]
    # Without the overrides, the declared options (and any text) are fine.
    assert parse_content(
        Order, {"region": "ap-south", "plan": "enterprise", "extras": ["support"]}
    ) == Order("ap-south", Plan.ENTERPRISE, ["support"])


def test_per_call_default_fills_an_absent_field() -> None:
    assert parse_content(Order, GOOD, overrides=PER_CALL) == Order(
        "eu-west", Plan.TEAM, ["backup"], quantity=3
    )
    assert parse_content(Order, GOOD) == Order("eu-west", Plan.TEAM, ["backup"], quantity=1)


def test_per_call_default_on_pydantic_model_and_typeddict() -> None:
    class Model(pydantic.BaseModel):
        count: int = 1

    class Dict(TypedDict):
        count: NotRequired[int]

    overrides = Overrides(defaults={"count": 5})
    assert parse_content(Model, {}, overrides=overrides) == Model(count=5)
    assert parse_content(Model, {}) == Model(count=1)
    assert parse_content(Dict, {}, overrides=overrides) == {"count": 5}
    assert parse_content(Dict, {}) == {}


def test_a_required_field_with_a_per_call_default_stays_required() -> None:
    overrides = Overrides(defaults={"region": "eu-west"})
    schema = requested_schema(Order, overrides=overrides)
    assert schema["properties"]["region"]["default"] == "eu-west"
    assert schema["required"] == ["region", "plan", "extras"]
    with pytest.raises(InvalidContent):
        parse_content(Order, {"plan": "team", "extras": []}, overrides=overrides)


def test_labels_of_a_declared_choice_kept_and_relabelled() -> None:
    labelled = Annotated[Plan, FormField(labels={Plan.FREE: "Free", Plan.TEAM: "Team"})]
    tp = dataclasses.make_dataclass("Pick", [("plan", labelled)])
    overrides = Overrides(choices={"plan": {Plan.TEAM: "Team (current)", Plan.ENTERPRISE: "Ent"}})
    schema = requested_schema(tp, overrides=overrides)
    assert schema["properties"]["plan"]["oneOf"] == [
        {"const": "team", "title": "Team (current)"},
        {"const": "enterprise", "title": "Ent"},
    ]
    overrides = Overrides(choices={"plan": ["free", "team"]})  # wire strings work too
    assert requested_schema(tp, overrides=overrides)["properties"]["plan"]["oneOf"] == [
        {"const": "free", "title": "Free"},
        {"const": "team", "title": "Team"},
    ]


_ON = "Cannot ask Order with overrides for field "


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param(
            Overrides(titles={"regoin": "Region"}),
            "Cannot ask Order with overrides: 'regoin' is not a field of Order. Name its "
            "fields as declared: 'region', 'plan', 'extras', 'quantity', 'note'.",
            id="unknown field",
        ),
        pytest.param(
            Overrides(choices={"a": ["x"]}, defaults={"b": 1}),
            "Cannot ask Order with overrides: 'b', 'a' are not fields of Order. Name its "
            "fields as declared: 'region', 'plan', 'extras', 'quantity', 'note'.",
            id="unknown fields",
        ),
        pytest.param(
            Overrides(defaults={"quantity": 11}),
            _ON + "'quantity': the default 11 does not fit the field (Must be at most 10). "
            "Give a value of the field's type within its limits (for a choice, one of its "
            "options).",
            id="default out of bounds",
        ),
        pytest.param(
            Overrides(defaults={"quantity": "3"}),
            _ON + "'quantity': the default '3' does not fit the field. Give a value of the "
            "field's type within its limits (for a choice, one of its options).",
            id="default of another type",
        ),
        pytest.param(
            Overrides(choices={"region": ["eu"]}, defaults={"region": "us"}),
            _ON + "'region': the default 'us' does not fit the field. Give a value of the "
            "field's type within its limits (for a choice, one of its options).",
            id="default outside per-call options",
        ),
        pytest.param(
            Overrides(choices={"plan": [Plan.FREE, "gold"]}),
            _ON + "'plan': 'gold' is not one of its declared options (<Plan.FREE: 'free'>, "
            "<Plan.TEAM: 'team'>, <Plan.ENTERPRISE: 'enterprise'>). Offer a subset of them, "
            "or declare the field as str for free-form options.",
            id="option not declared",
        ),
        pytest.param(
            Overrides(choices={"quantity": [1, 2]}),
            _ON + "'quantity': per-call options apply to str, choice and multi-select fields, "
            "and this field is Annotated[int, Ge(ge=1), Le(le=10)]. Remove them, or declare "
            "the field as str.",
            id="options on a number",
        ),
        pytest.param(
            Overrides(choices={"region": []}),
            _ON + "'region': the option list is empty, so there is nothing to choose. Give "
            "options.",
            id="no options",
        ),
        pytest.param(
            Overrides(choices={"region": "eu"}),
            _ON + "'region': the options 'eu' are not a list. Give a list of options, or a "
            "mapping of option to label.",
            id="a string for a list",
        ),
        pytest.param(
            Overrides(choices={"region": ["eu", 1]}),
            _ON + "'region': the option 1 is not text, and the field is a str. Give str options.",
            id="non-text option",
        ),
        pytest.param(
            Overrides(choices={"region": ["eu", "eu"]}),
            _ON + "'region': the options 'eu' appear more than once on the wire (choices "
            "travel as strings, so 1 and '1' collide). Make every option's string distinct.",
            id="duplicate options",
        ),
        pytest.param(
            Overrides(titles={"note": ""}),
            _ON + "'note': the title '' is not text. Give a non-empty str.",
            id="empty title",
        ),
    ],
)
def test_refused_overrides(overrides: Overrides, message: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(Order, overrides=overrides)
    assert str(caught.value) == message
    with pytest.raises(FormDefinitionError) as caught:
        parse_content(Order, GOOD, overrides=overrides)
    assert str(caught.value) == message


@dataclasses.dataclass
class Ticket:
    code: Annotated[str, at.MaxLen(3)]
    desk: Annotated[str, pydantic.Field(pattern=r"^[A-Z][0-9]$")] = "A1"


class TicketModel(pydantic.BaseModel):
    code: str = pydantic.Field(max_length=3)
    desk: str = pydantic.Field("A1", pattern=r"^[A-Z][0-9]$")


_TICKET = "Cannot ask {name} with overrides for field "


@pytest.mark.parametrize("tp", [Ticket, TicketModel], ids=["dataclass", "pydantic"])
@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param(
            Overrides(choices={"code": ["abc", "abcd"]}),
            "'code': the option 'abcd' does not fit the field (Must be at most 3 characters "
            "long). Offer only options within the field's limits, or widen them.",
            id="option too long",
        ),
        pytest.param(
            Overrides(choices={"desk": {"B2": "Desk B2", "lobby": "The lobby"}}),
            "'desk': the option 'lobby' does not fit the field (Must match the pattern "
            "^[A-Z][0-9]$). Offer only options within the field's limits, or widen them.",
            id="option off the pattern",
        ),
    ],
)
def test_per_call_options_must_fit_the_fields_own_limits(
    tp: Any, overrides: Overrides, message: str
) -> None:
    """As a per-call default is: no option is offered that the type would refuse."""
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(tp, overrides=overrides)
    assert str(caught.value) == _TICKET.format(name=tp.__name__) + message


@pytest.mark.parametrize("tp", [Ticket, TicketModel], ids=["dataclass", "pydantic"])
def test_per_call_options_within_the_limits_are_offered_and_decoded(tp: Any) -> None:
    overrides = Overrides(choices={"code": ["abc", "xy"], "desk": ["B2", "C3"]})
    schema = requested_schema(tp, overrides=overrides)
    assert schema["properties"]["code"]["enum"] == ["abc", "xy"]
    assert schema["properties"]["desk"]["enum"] == ["B2", "C3"]
    answer = parse_content(tp, {"code": "xy", "desk": "C3"}, overrides=overrides)
    assert (answer.code, answer.desk) == ("xy", "C3")


# --------------------------------------------------------------------------------------
# Through real calls, on both eras and both server SDKs
# --------------------------------------------------------------------------------------


def make_server(sdk: str, **options: Any) -> Any:
    server = new_server(sdk, "overrides", **options)

    @server.tool()
    async def order(regions: list[str]) -> str:
        try:
            answer = await ask(
                Order, "Your order", overrides=Overrides(choices={"region": regions})
            )
        except InvalidContent as problem:
            return "invalid: " + " | ".join(f"{e.field}={e.message}" for e in problem.errors)
        content = answer.unwrap()
        return f"{content.region}/{content.plan.value}/{content.quantity}"

    @server.tool()
    async def typo() -> str:
        await ask(Order, overrides=Overrides(titles={"regoin": "Region"}))
        return "unreachable"

    return server


async def _call(
    sdk: str, mode: str, name: str, args: dict[str, Any], answer: dict[str, Any]
) -> Any:
    seen: list[Any] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="accept", content=answer)

    with anyio.fail_after(10):
        server = in_memory(make_server(sdk))
        async with Client(server, mode=mode, elicitation_callback=callback) as client:
            result = await client.call_tool(name, args)
    return result, seen


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_per_call_options_through_a_real_call(sdk: str, mode: str, version: str) -> None:
    regions = ["eu-north", "eu-west"]
    result, seen = await _call(sdk, mode, "order", {"regions": regions}, GOOD)
    assert result.content[0].text == "eu-west/team/1"
    assert seen[0].requested_schema["properties"]["region"]["enum"] == regions
    assert_spec_valid(seen[0].requested_schema, version)
    # An answer outside this call's options is refused on decode.
    result, _ = await _call(sdk, mode, "order", {"regions": ["us-east"]}, GOOD)
    assert result.content[0].text == "invalid: region=Must be 'us-east'; got 'eu-west'."


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_unknown_field_refused_before_anything_is_sent(
    sdk: str, mode: str, version: str
) -> None:
    result, seen = await _call(sdk, mode, "typo", {}, GOOD)
    assert seen == []
    assert result.is_error
    assert result.content[0].text == tool_error(
        sdk,
        "typo",
        "Cannot ask Order with overrides: 'regoin' is not a field of Order. Name its fields "
        "as declared: 'region', 'plan', 'extras', 'quantity', 'note'.",
    )


@pytest.mark.anyio
async def test_refusal_text_survives_fastmcp_error_masking() -> None:
    """With mask_error_details=True fastmcp hides every error's text but a ToolError's."""
    server = in_memory(make_server("fastmcp", mask_error_details=True))

    async def never(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("nothing is asked")

    with anyio.fail_after(10):
        async with Client(server, mode="auto", elicitation_callback=never) as client:
            result = await client.call_tool("typo", {})
    assert result.is_error
    assert result.content[0].text.startswith("Cannot ask Order with overrides: 'regoin' is not")
