"""Form-level wire style: ``@form(title_style=..., label_style=...)`` for every field at once."""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Annotated, Any, Literal, TypedDict

import msgspec
import pydantic
import pytest

from elicitkit import FormDefinitionError, FormField, ask, form, requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.testing import ScriptedUser, accept, connect
from tests.sdks import new_server


class Size(enum.Enum):
    SMALL = "s"
    EXTRA_LARGE = "xl"


def _titles(tp: Any, protocol: str = "2026-07-28") -> dict[str, str | None]:
    properties = requested_schema(tp, protocol=protocol)["properties"]
    return {key: field.get("title") for key, field in properties.items()}


@form(title_style="title")
@dataclasses.dataclass
class TitleCase:
    zip_code: str
    po_box: Annotated[str, FormField(title_style="sentence")] = ""
    city: Annotated[str, FormField(title="Town")] = ""


@form(title_style="omit")
class Untitled(pydantic.BaseModel):
    zip_code: str
    city: str = pydantic.Field("", title="Town")
    country: Annotated[str, FormField(title_style="name")] = ""


@form(title_style="name")
class NamedDict(TypedDict):
    zipCode: str


@form(title_style="title")
class TitledStruct(msgspec.Struct):
    zip_code: str


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("tp", "titles"),
    [
        pytest.param(
            TitleCase,
            {"zip_code": "Zip Code", "po_box": "Po box", "city": "Town"},
            id="dataclass, title case; a field's own setting wins",
        ),
        pytest.param(
            Untitled,
            {"zip_code": None, "city": "Town", "country": "country"},
            id="pydantic model, omitted; a title given is still sent",
        ),
        pytest.param(NamedDict, {"zipCode": "zipCode"}, id="TypedDict, names"),
        pytest.param(TitledStruct, {"zip_code": "Zip Code"}, id="msgspec Struct, title case"),
    ],
)
def test_title_style_of_the_whole_form(protocol: str, tp: Any, titles: dict[str, Any]) -> None:
    assert _titles(tp, protocol) == titles


class Squashed(pydantic.BaseModel):
    checkAlternative: bool
    departure_date: str
    returnDate: str = pydantic.Field("", title="Return")


@form(title_style="title")
class SquashedTitleCase(Squashed):
    pass


def test_pydantic_fields_are_titled_in_words_not_squashed() -> None:
    """pydantic's own schema titles ``checkAlternative`` "Checkalternative"; elicitkit never."""
    squashed = Squashed.model_json_schema()["properties"]["checkAlternative"]["title"]
    assert squashed == "Checkalternative"
    assert _titles(Squashed) == {
        "checkAlternative": "Check alternative",
        "departure_date": "Departure date",
        "returnDate": "Return",
    }
    # Title Case as pydantic writes it, word by word; and the subclass got its own style.
    assert _titles(SquashedTitleCase) == {
        "checkAlternative": "Check Alternative",
        "departure_date": "Departure Date",
        "returnDate": "Return",
    }


@form(label_style="enumNames")
@dataclasses.dataclass
class Legacy:
    size: Size
    plan: Annotated[Literal["a", "b"], FormField(labels={"a": "Basic"}, label_style="oneOf")]
    extras: list[Size] = dataclasses.field(default_factory=list)
    count: int = 1


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_enum_names_for_every_single_choice(protocol: str) -> None:
    properties = requested_schema(Legacy, protocol=protocol)["properties"]
    assert properties["size"] == {
        "type": "string",
        "title": "Size",
        "enum": ["s", "xl"],
        "enumNames": ["Small", "Extra large"],
    }
    assert properties["plan"]["oneOf"] == [
        {"const": "a", "title": "Basic"},
        {"const": "b", "title": "b"},
    ]
    # A multi-select has no enumNames form: it stays as it was.
    assert properties["extras"]["items"] == {"type": "string", "enum": ["s", "xl"]}
    assert properties["count"] == {"type": "integer", "title": "Count", "default": 1}


@form(label_style="oneOf")
@dataclasses.dataclass
class Labelled:
    size: Size
    extras: list[Size] = dataclasses.field(default_factory=list)


@form(label_style="oneOf")
@dataclasses.dataclass
class LabelledSingle:
    size: Size


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_one_of_for_every_choice(protocol: str) -> None:
    properties = requested_schema(Labelled, protocol=protocol)["properties"]
    options = [{"const": "s", "title": "Small"}, {"const": "xl", "title": "Extra large"}]
    assert properties["size"]["oneOf"] == options
    assert properties["extras"]["items"] == {"anyOf": options}


def test_one_of_for_every_choice_refused_on_2025_06_18() -> None:
    message = (
        "Cannot render field 'size' of LabelledSingle for protocol 2025-06-18: it asks for "
        "label_style='oneOf', which exists only from 2025-11-25 on. Remove the label style "
        "(2025-06-18 then gets enumNames), or ask with a newer protocol."
    )
    with pytest.raises(FormDefinitionError, match=f"^{re.escape(message)}$"):
        requested_schema(LabelledSingle, protocol="2025-06-18")
    # enumNames is what 2025-06-18 has: the style sends the labels there.
    assert requested_schema(LegacySingle, protocol="2025-06-18")["properties"]["size"] == {
        "type": "string",
        "title": "Size",
        "enum": ["s", "xl"],
        "enumNames": ["Small", "Extra large"],
    }


@form(label_style="enumNames")
@dataclasses.dataclass
class LegacySingle:
    size: Size


@dataclasses.dataclass
class Leg:
    departure_city: str


@form(title_style="omit")
@dataclasses.dataclass
class OwnStyle:
    arrival_city: str


@form(title_style="title")
@dataclasses.dataclass
class Journey:
    first_leg: Leg
    second_leg: OwnStyle


def test_nested_forms_follow_the_outer_style_unless_they_have_their_own() -> None:
    assert _titles(Journey) == {
        "first_leg_departure_city": "First Leg › Departure City",
        "second_leg_arrival_city": None,
    }
    # Asked alone, each form has its own style (or none).
    assert _titles(Leg) == {"departure_city": "Departure city"}
    assert _titles(OwnStyle) == {"arrival_city": None}


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        pytest.param(
            {"title_style": "Title"},
            "Cannot build a form from Bad: title_style='Title' is not a title style. Use "
            "'sentence', 'title', 'name' or 'omit'.",
            id="title style",
        ),
        pytest.param(
            {"label_style": "enum"},
            "Cannot build a form from Bad: label_style='enum' is not a label style. Use 'oneOf' "
            "or 'enumNames'.",
            id="label style",
        ),
    ],
)
def test_a_style_that_is_none_is_refused_at_the_class(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(FormDefinitionError, match=f"^{re.escape(message)}$"):

        @form(**settings)
        @dataclasses.dataclass
        class Bad:
            name: str


@form(title_style="omit", message="Where to?")
@dataclasses.dataclass
class Destination:
    city_name: str
    size: Size = Size.SMALL


@pytest.mark.anyio
@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
async def test_through_a_real_call(sdk: str, protocol: str) -> None:
    server = new_server(sdk, "style")

    @server.tool()
    async def where() -> str:
        answer = await ask(Destination)
        return repr(answer.unwrap())

    user = ScriptedUser(accept(city_name="Oslo"))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("where", {})
    assert result.content[0].text == (  # type: ignore[union-attr]
        "Destination(city_name='Oslo', size=<Size.SMALL: 's'>)"
    )
    size: dict[str, Any] = {"type": "string", "enum": ["s", "xl"]}
    if protocol != "2025-06-18":
        size["default"] = "s"
    assert user.schemas == [
        {
            "type": "object",
            "properties": {"city_name": {"type": "string"}, "size": size},
            "required": ["city_name"],
        }
    ]
    assert user.messages == ["Where to?"]
