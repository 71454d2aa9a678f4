"""`Overrides(hide=...)`: fields left out of the form for one call, the answer still complete."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, NotRequired, TypedDict

import mcp_types as types
import pydantic
import pytest
from mcp import Client

from elicitkit import FormDefinitionError, Overrides, ask, parse_content, requested_schema
from elicitkit._compiler.overrides import cache_key
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.testing import ScriptedUser, accept, connect, decline
from tests.sdks import ERAS, in_memory, new_server


@dataclasses.dataclass
class Contact:
    email: str
    name: str = "Ada"
    phone: str | None = None
    newsletter: bool = False


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
def test_hidden_fields_are_not_asked_and_get_their_defaults(protocol: str) -> None:
    overrides = Overrides(hide={"name", "phone"})
    assert requested_schema(Contact, protocol=protocol, overrides=overrides) == {
        "type": "object",
        "properties": {
            "email": {"type": "string", "title": "Email"},
            "newsletter": {"type": "boolean", "title": "Newsletter", "default": False},
        },
        "required": ["email"],
    }
    # What a client sends for a hidden field anyway is ignored: it was not asked.
    answer = {"email": "ada@example.com", "name": "Mallory", "phone": 12}
    assert parse_content(Contact, answer, protocol=protocol, overrides=overrides) == Contact(
        email="ada@example.com"
    )
    # The form's own schema is untouched.
    assert set(requested_schema(Contact, protocol=protocol)["properties"]) == {
        "email",
        "name",
        "phone",
        "newsletter",
    }


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
def test_a_required_field_hidden_with_this_calls_default(protocol: str) -> None:
    """The tool already knows the value: hide the field and give it as this call's default."""
    overrides = Overrides(hide={"email"}, defaults={"email": "ada@example.com"})
    schema = requested_schema(Contact, protocol=protocol, overrides=overrides)
    assert "email" not in schema["properties"]
    assert "required" not in schema  # no empty `required`: the grammar does not want one
    assert parse_content(Contact, {"email": "eve@example.com"}, overrides=overrides) == Contact(
        email="ada@example.com"
    )


class Model(pydantic.BaseModel):
    city: str
    country: str = "Norway"


class Shipping(TypedDict):
    city: str
    note: NotRequired[str]


@dataclasses.dataclass
class Geo:
    lat: float
    label: str = ""


@dataclasses.dataclass
class Trip:
    city: str
    stop: Geo
    alternative: Geo | None = None


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("form", "hide", "answer", "expected", "asked"),
    [
        pytest.param(
            Model,
            {"country"},
            {"city": "Oslo", "country": "Chile"},
            Model(city="Oslo"),
            ["city"],
            id="pydantic model",
        ),
        pytest.param(
            Shipping,
            {"note"},
            {"city": "Oslo", "note": "x"},
            {"city": "Oslo"},
            ["city"],
            id="TypedDict, NotRequired key left out",
        ),
        pytest.param(
            Trip,
            {"stop.label", "alternative.label"},
            {"city": "Oslo", "stop_lat": 1.5, "stop_label": "x"},
            Trip(city="Oslo", stop=Geo(lat=1.5)),
            ["city", "stop_lat", "alternative_lat"],
            id="nested fields, by dotted name",
        ),
        pytest.param(
            Trip,
            {"alternative"},
            {"city": "Oslo", "stop_lat": 1.5, "alternative_lat": 2.5},
            Trip(city="Oslo", stop=Geo(lat=1.5)),
            ["city", "stop_lat", "stop_label"],
            id="a nested form that may be left empty, whole",
        ),
    ],
)
def test_every_form_type(
    protocol: str, form: Any, hide: set[str], answer: Any, expected: Any, asked: list[str]
) -> None:
    overrides = Overrides(hide=hide)
    schema = requested_schema(form, protocol=protocol, overrides=overrides)
    assert list(schema["properties"]) == asked
    assert parse_content(form, answer, protocol=protocol, overrides=overrides) == expected


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("form", "overrides", "message"),
    [
        pytest.param(
            Contact,
            Overrides(hide={"email"}),
            "Cannot ask Contact with overrides for field 'email': it is hidden, but it has no "
            "default and does not accept None, so the answer would have no value for it. Give "
            "it a default (in the type, or with Overrides(defaults=...)), make it optional "
            "(X | None), or leave it in the form.",
            id="no default",
        ),
        pytest.param(
            Trip,
            Overrides(hide={"alternative.lat"}, defaults={"alternative.lat": 1.0}),
            "Cannot ask Trip with overrides for field 'alternative.lat': it is hidden, but it "
            "has no default and does not accept None, so the answer would have no value for "
            "it. Give it a default (in the type, or with Overrides(defaults=...)), make it "
            "optional (X | None), or leave it in the form.",
            id="required in a group that may be left empty",
        ),
        pytest.param(
            Trip,
            Overrides(hide={"stop"}),
            "Cannot ask Trip with overrides for field 'stop.lat': it is hidden, but it has no "
            "default and does not accept None, so the answer would have no value for it. Give "
            "it a default (in the type, or with Overrides(defaults=...)), make it optional "
            "(X | None), or leave it in the form.",
            id="a required nested form, whole",
        ),
        pytest.param(
            Contact,
            Overrides(hide="name"),  # type: ignore[arg-type]
            "Cannot ask Contact with overrides: hide='name' is not a set of field names. "
            "Write hide={'name'}.",
            id="text, not a set",
        ),
        pytest.param(
            Contact,
            Overrides(hide={1}),  # type: ignore[arg-type]
            "Cannot ask Contact with overrides: hide holds 1, which is not a field name. Name "
            "its fields as declared, as text.",
            id="not a name",
        ),
        pytest.param(
            Contact,
            Overrides(hide={"nam"}),
            "Cannot ask Contact with overrides: 'nam' is not a field of Contact. Name its "
            "fields as declared: 'email', 'name', 'phone', 'newsletter'.",
            id="unknown field",
        ),
        pytest.param(
            Contact,
            Overrides(hide={"email", "name", "phone", "newsletter"}, defaults={"email": "a@b.c"}),
            "Cannot ask Contact with overrides: hide leaves out every field of Contact, and a "
            "form without fields cannot be answered. Leave at least one field in the form, or "
            "do not ask.",
            id="every field",
        ),
    ],
)
def test_refused_before_anything_is_sent(
    protocol: str, form: Any, overrides: Overrides, message: str
) -> None:
    with pytest.raises(FormDefinitionError, match=f"^{re.escape(message)}$"):
        requested_schema(form, protocol=protocol, overrides=overrides)


def test_hide_is_part_of_the_cache_key() -> None:
    assert cache_key(Overrides(hide={"a", "b"})) == cache_key(Overrides(hide=frozenset("ba")))
    assert cache_key(Overrides(hide={"a"})) != cache_key(Overrides())
    assert requested_schema(Contact, overrides=Overrides(hide={"name"})) != requested_schema(
        Contact, overrides=Overrides(hide={"phone"})
    )


@pytest.mark.anyio
@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
async def test_a_form_that_asks_only_for_what_is_missing(sdk: str, protocol: str) -> None:
    server = new_server(sdk, "hide")

    @server.tool()
    async def subscribe(email: str = "") -> str:
        overrides = Overrides(hide={"email"}, defaults={"email": email}) if email else None
        answer = await ask(Contact, "Subscribe", overrides=overrides)
        return repr(answer.unwrap()) if answer.is_accepted() else answer.action

    user = ScriptedUser(accept(newsletter=True), accept(email="eve@example.com"), decline())
    async with connect(server, protocol=protocol, user=user) as client:
        given = await client.call_tool("subscribe", {"email": "ada@example.com"})
        missing = await client.call_tool("subscribe", {})
        declined = await client.call_tool("subscribe", {"email": "ada@example.com"})
    assert [result.content[0].text for result in (given, missing, declined)] == [  # type: ignore[union-attr]
        "Contact(email='ada@example.com', name='Ada', phone=None, newsletter=True)",
        "Contact(email='eve@example.com', name='Ada', phone=None, newsletter=False)",
        "decline",
    ]
    first, second, third = user.schemas
    assert list(first["properties"]) == list(third["properties"]) == ["name", "phone", "newsletter"]
    assert list(second["properties"]) == ["email", "name", "phone", "newsletter"]


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_client_that_sends_a_hidden_field_anyway(sdk: str, mode: str, version: str) -> None:
    """Ignored on decode, and on 2026-07-28 also when the carried answer is rebuilt."""
    server = new_server(sdk, "hide-raw")

    @server.tool()
    async def subscribe() -> str:
        overrides = Overrides(hide={"email", "name"}, defaults={"email": "ada@example.com"})
        first = await ask(Contact, "Subscribe", overrides=overrides)
        second = await ask(bool, "Sure?")  # a second round: the first answer is rebuilt
        return f"{first.unwrap()!r} {second.unwrap()}"

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        if params.message == "Sure?":
            return types.ElicitResult(action="accept", content={"value": True})
        content = {"email": "eve@example.com", "name": "Mallory", "newsletter": True}
        return types.ElicitResult(action="accept", content=content)

    async with Client(in_memory(server), mode=mode, elicitation_callback=callback) as client:
        result = await client.call_tool("subscribe", {})
    assert result.content[0].text == (  # type: ignore[union-attr]
        "Contact(email='ada@example.com', name='Ada', phone=None, newsletter=True) True"
    )
