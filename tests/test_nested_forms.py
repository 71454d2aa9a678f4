"""Nested forms: flattened into prefixed wire keys, titled with their path, rebuilt on decode.

The round trip through a real server runs on both server SDKs (the ``sdk`` fixture).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Annotated, Any, Literal

import annotated_types as at
import anyio
import mcp_types as types
import msgspec
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from typing_extensions import NotRequired, TypedDict

from elicitkit import FormDefinitionError, InvalidContent, ask, parse_content, requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS
from tests.sdks import ERAS, in_memory, new_server
from tests.spec_check import assert_spec_valid


@dataclasses.dataclass
class Geo:
    lat: float
    lon: float


@dataclasses.dataclass
class Address:
    street: str
    city: str
    country: Literal["NO", "SE"] = "NO"
    geo: Geo | None = None


@dataclasses.dataclass
class Customer:
    name: str
    address: Address
    billing: Address | None = None


def test_flattened_keys_titles_and_requiredness() -> None:
    schema = requested_schema(Customer)
    properties = schema["properties"]
    assert list(properties) == [
        "name",
        "address_street",
        "address_city",
        "address_country",
        "address_geo_lat",
        "address_geo_lon",
        "billing_street",
        "billing_city",
        "billing_country",
        "billing_geo_lat",
        "billing_geo_lon",
    ]
    assert properties["address_street"]["title"] == "Address › Street"
    assert properties["address_geo_lat"]["title"] == "Address › Geo › Lat"
    assert properties["billing_country"]["default"] == "NO"
    assert schema["required"] == ["name", "address_street", "address_city"]
    for protocol in PROTOCOL_VERSIONS:
        assert_spec_valid(requested_schema(Customer, protocol=protocol), protocol)


def test_rebuilt_into_nested_instances() -> None:
    answer = {
        "name": "Ada",
        "address_street": "1 Main St",
        "address_city": "Oslo",
        "address_geo_lat": 59.9,
        "address_geo_lon": 10.7,
        "billing_street": "",
        "billing_country": "NO",  # a prefilled default sent back is not filling it in
    }
    assert parse_content(Customer, answer) == Customer(
        name="Ada",
        address=Address("1 Main St", "Oslo", "NO", Geo(59.9, 10.7)),
        billing=None,
    )


def test_partly_filled_optional_group_reports_its_missing_required_fields() -> None:
    answer = {
        "name": "Ada",
        "address_street": "1 Main St",
        "address_city": "Oslo",
        "address_geo_lat": 59.9,
        "billing_city": "Bergen",
    }
    with pytest.raises(InvalidContent) as caught:
        parse_content(Customer, answer)
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("address_geo_lon", "Required when any of Address › Geo is filled in."),
        ("billing_street", "Required when any of Billing is filled in."),
    ]


@dataclasses.dataclass
class Card:
    number: Annotated[str, at.MinLen(12)]
    holder: Annotated[str, at.MinLen(2)] = "  "


@dataclasses.dataclass
class Payment:
    amount: int
    card: Card | None = None


def test_an_optional_group_sent_as_empty_text_is_absent() -> None:
    """docs/nested.md: "" does not fill a group in, even where a field has a minimum length."""
    answer = {"amount": 5, "card_number": "", "card_holder": ""}
    assert parse_content(Payment, answer) == Payment(5, None)


def test_a_partly_filled_group_reports_its_empty_required_text_as_missing() -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(Payment, {"amount": 5, "card_number": "", "card_holder": "Ada"})
    assert str(caught.value) == (
        "The answer to Payment has 1 problem: card_number: Required when any of Card is filled in."
    )
    # An empty optional field of a wanted group takes its default, as if left out.
    answer = {"amount": 5, "card_number": "4242424242424242", "card_holder": ""}
    assert parse_content(Payment, answer) == Payment(5, Card("4242424242424242"))
    # Text that is there is still checked against its limits.
    with pytest.raises(InvalidContent) as caught:
        parse_content(Payment, {"amount": 5, "card_number": "42", "card_holder": ""})
    assert str(caught.value) == (
        "The answer to Payment has 1 problem: card_number: Must be at least 12 characters long."
    )


def test_required_group_fields_are_required() -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(Customer, {"name": "Ada", "address_street": "x"})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("address_city", "This field is required."),
    ]


class Pet(pydantic.BaseModel):
    name: str
    kind: Literal["cat", "dog"] = "cat"

    @pydantic.field_validator("name")
    @classmethod
    def _capital(cls, value: str) -> str:
        if not value[:1].isupper():
            raise ValueError("start the name with a capital letter")
        return value


class Owner(msgspec.Struct):
    name: str
    pet: Pet


class Household(TypedDict):
    owner: Owner
    spare: NotRequired[Pet]


def test_every_vocabulary_nests_and_validators_run() -> None:
    answer = {
        "owner_name": "Ada",
        "owner_pet_name": "Tom",
        "spare_name": "Rex",
        "spare_kind": "dog",
    }
    assert parse_content(Household, answer) == {
        "owner": Owner("Ada", Pet(name="Tom")),
        "spare": Pet(name="Rex", kind="dog"),
    }
    assert parse_content(Household, {"owner_name": "Ada", "owner_pet_name": "Tom"}) == {
        "owner": Owner("Ada", Pet(name="Tom"))
    }
    with pytest.raises(InvalidContent) as caught:
        parse_content(Household, {"owner_name": "Ada", "owner_pet_name": "tom"})
    assert [(e.field, e.message) for e in caught.value.errors] == [
        ("owner_pet_name", "Start the name with a capital letter."),
    ]


@dataclasses.dataclass
class Node:
    value: int
    child: Node | None = None


@dataclasses.dataclass
class D4:
    x: int


@dataclasses.dataclass
class D3:
    d4: D4


@dataclasses.dataclass
class D2:
    d3: D3


@dataclasses.dataclass
class D1:
    d2: D2


@dataclasses.dataclass
class Top:
    d1: D1


@dataclasses.dataclass
class Collide:
    address_street: str
    address: Address


@pytest.mark.parametrize(
    ("tp", "message"),
    [
        pytest.param(
            Node,
            "Cannot build a form field for 'child' of Node: Node contains itself (Node › Node), "
            "and a form must be finite. Ask for the inner part with a separate ask().",
            id="recursion",
        ),
        pytest.param(
            Top,
            "Cannot build a form field for 'd4' of D3: D4 would be nested 4 levels deep, and "
            "forms nest at most 3 levels (every level lengthens keys and titles). Ask for the "
            "inner part with a separate ask().",
            id="too deep",
        ),
        pytest.param(
            Collide,
            "Cannot build a form from Collide: fields 'address_street' and 'address.street' "
            "both use the wire key 'address_street'. Give one of them another alias.",
            id="collision",
        ),
    ],
)
def test_refused_nestings(tp: Any, message: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(tp)
    assert str(caught.value) == message


# --------------------------------------------------------------------------------------
# Hypothesis: random nested forms round-trip
# --------------------------------------------------------------------------------------

_names = itertools.count()
LEAVES: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    "str": (str, st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)),
    "int": (int, st.integers(-1000, 1000)),
    "bool": (bool, st.booleans()),
    "choice": (Literal["a", "b", "c"], st.sampled_from(["a", "b", "c"])),
}
KINDS = ["dataclass", "pydantic", "struct", "typeddict"]


def _make(kind: str, fields: list[tuple[str, Any]]) -> Any:
    name = f"Form{next(_names)}"
    if kind == "dataclass":
        return dataclasses.make_dataclass(name, fields)
    if kind == "pydantic":
        return pydantic.create_model(name, **{n: (t, ...) for n, t in fields})  # type: ignore[call-overload]
    if kind == "struct":
        return msgspec.defstruct(name, fields)
    return TypedDict(name, dict(fields))  # type: ignore[operator]


def _instance(kind: str, tp: Any, values: dict[str, Any]) -> Any:
    return dict(values) if kind == "typeddict" else tp(**values)


@st.composite
def nested_forms(
    draw: st.DrawFn, depth: int = 0, kinds: tuple[str, ...] = tuple(KINDS)
) -> tuple[Any, Any, dict[str, Any]]:
    """A form type, the instance an answer should decode to, and that answer's wire content."""
    kind = draw(st.sampled_from(kinds))
    # pydantic cannot validate a msgspec Struct inside a model.
    inner_kinds = tuple(k for k in KINDS if k != "struct") if kind == "pydantic" else kinds
    fields: list[tuple[str, Any]] = []
    values: dict[str, Any] = {}
    wire: dict[str, Any] = {}
    for index in range(draw(st.integers(1, 3))):
        name = f"f{index}"
        if depth < 2 and draw(st.booleans()):
            tp, value, inner = draw(nested_forms(depth + 1, inner_kinds))
            wire.update({f"{name}_{key}": item for key, item in inner.items()})
        else:
            tp, strategy = LEAVES[draw(st.sampled_from(sorted(LEAVES)))]
            value = draw(strategy)
            wire[name] = value
        fields.append((name, tp))
        values[name] = value
    form = _make(kind, fields)
    return form, _instance(kind, form, values), wire


@settings(max_examples=60, deadline=None, database=None)
@given(nested_forms())
def test_nested_round_trip(case: tuple[Any, Any, dict[str, Any]]) -> None:
    form, expected, wire = case
    schema = requested_schema(form)
    assert list(schema["properties"]) == list(wire)
    assert_spec_valid(schema, "2025-11-25")
    assert parse_content(form, wire) == expected


# --------------------------------------------------------------------------------------
# Through a real server: both eras, both server SDKs
# --------------------------------------------------------------------------------------

CUSTOMER_ANSWER = {
    "name": "Ada",
    "address_street": "1 Main St",
    "address_city": "Oslo",
    "address_geo_lat": 59.9,
    "address_geo_lon": 10.7,
    "billing_street": "2 Side St",
    "billing_city": "Bergen",
    "billing_country": "SE",
}


def nested_server(sdk: str) -> Any:
    server = new_server(sdk, "nested")

    @server.tool()
    async def register() -> str:
        try:
            answer = await ask(Customer, "Who are you?", retries=0)
        except InvalidContent as problem:
            return "invalid: " + " | ".join(f"{e.field}={e.message}" for e in problem.errors)
        return repr(answer.unwrap())

    return server


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(
            CUSTOMER_ANSWER,
            repr(
                Customer(
                    "Ada",
                    Address("1 Main St", "Oslo", "NO", Geo(59.9, 10.7)),
                    Address("2 Side St", "Bergen", "SE"),
                )
            ),
            id="round trip",
        ),
        pytest.param(
            {**CUSTOMER_ANSWER, "billing_street": ""},
            "invalid: billing_street=Required when any of Billing is filled in.",
            id="partly filled group",
        ),
    ],
)
async def test_nested_round_trip_through_a_server(
    sdk: str, mode: str, version: str, answer: dict[str, Any], expected: str
) -> None:
    seen: list[Any] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="accept", content=answer)

    with anyio.fail_after(10):
        async with Client(
            in_memory(nested_server(sdk)), mode=mode, elicitation_callback=callback
        ) as client:
            assert client.protocol_version == version
            result = await client.call_tool("register", {})
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert block.text == expected
    [params] = seen
    assert params.requested_schema == requested_schema(Customer, protocol=version)
