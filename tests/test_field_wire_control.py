"""Per-field control of the wire: label style, title style, required-and-prefilled, prefill."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest

from elicitkit import (
    FormDefinitionError,
    FormField,
    InvalidContent,
    parse_content,
    requested_schema,
)
from elicitkit.protocol import PROTOCOL_VERSIONS
from tests.forms import one_field_form
from tests.spec_check import assert_spec_valid


class Size(enum.Enum):
    SMALL = "s"
    EXTRA_LARGE = "xl"


@dataclass
class Sep1330:
    """The SEP-1330 shape: legacy, untitled and titled single and multi-selects in one form."""

    untitled_single: Literal["option1", "option2"]
    titled_single: Annotated[
        Literal["value1", "value2"], FormField(labels={"value1": "First", "value2": "Second"})
    ]
    legacy_enum: Annotated[
        Literal["opt1", "opt2"],
        FormField(labels={"opt1": "Option One", "opt2": "Option Two"}, label_style="enumNames"),
    ]
    untitled_multi: list[Literal["option1", "option2"]]
    titled_multi: Annotated[
        list[Literal["value1", "value2"]],
        FormField(labels={"value1": "First", "value2": "Second"}),
    ]


def test_sep1330_shape_from_python_types() -> None:
    schema = requested_schema(Sep1330, protocol="2025-11-25")
    assert schema["properties"] == {
        "untitled_single": {
            "type": "string",
            "title": "Untitled single",
            "enum": ["option1", "option2"],
        },
        "titled_single": {
            "type": "string",
            "title": "Titled single",
            "oneOf": [
                {"const": "value1", "title": "First"},
                {"const": "value2", "title": "Second"},
            ],
        },
        "legacy_enum": {
            "type": "string",
            "title": "Legacy enum",
            "enum": ["opt1", "opt2"],
            "enumNames": ["Option One", "Option Two"],
        },
        "untitled_multi": {
            "type": "array",
            "title": "Untitled multi",
            "items": {"type": "string", "enum": ["option1", "option2"]},
        },
        "titled_multi": {
            "type": "array",
            "title": "Titled multi",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First"},
                    {"const": "value2", "title": "Second"},
                ]
            },
        },
    }
    assert_spec_valid(schema, "2025-11-25")
    assert_spec_valid(requested_schema(Sep1330, protocol="2026-07-28"), "2026-07-28")
    answer = {
        "untitled_single": "option2",
        "titled_single": "value1",
        "legacy_enum": "opt2",
        "untitled_multi": ["option1"],
        "titled_multi": ["value2", "value1"],
    }
    assert parse_content(Sep1330, answer) == Sep1330(
        "option2", "value1", "opt2", ["option1"], ["value2", "value1"]
    )


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        pytest.param(
            Annotated[Size, FormField(label_style="oneOf")],
            {"oneOf": [{"const": "s", "title": "Small"}, {"const": "xl", "title": "Extra large"}]},
            id="oneOf without labels uses member names",
        ),
        pytest.param(
            Annotated[Literal["a", "b"], FormField(label_style="enumNames")],
            {"enum": ["a", "b"], "enumNames": ["a", "b"]},
            id="enumNames without labels uses the options",
        ),
        pytest.param(
            Annotated[list[Size], FormField(label_style="oneOf")],
            {
                "items": {
                    "anyOf": [
                        {"const": "s", "title": "Small"},
                        {"const": "xl", "title": "Extra large"},
                    ]
                }
            },
            id="oneOf on a multi-select",
        ),
    ],
)
def test_label_style_sends_labels(annotation: Any, expected: dict[str, Any]) -> None:
    field = requested_schema(one_field_form(annotation))["properties"]["answer"]
    assert {key: field[key] for key in expected} == expected


def test_enum_names_field_beside_one_of_field_on_every_version() -> None:
    for protocol in PROTOCOL_VERSIONS:
        schema = requested_schema(
            one_field_form(Annotated[Size, FormField(label_style="enumNames")]), protocol=protocol
        )
        assert schema["properties"]["answer"]["enumNames"] == ["Small", "Extra large"]
        assert_spec_valid(schema, protocol)


def test_one_of_style_refused_on_2025_06_18() -> None:
    tp = one_field_form(Annotated[Size, FormField(label_style="oneOf")])
    assert requested_schema(tp, protocol="2025-11-25")["properties"]["answer"]["oneOf"]
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(tp, protocol="2025-06-18")
    assert str(caught.value) == (
        "Cannot render field 'answer' of Form for protocol 2025-06-18: it asks for "
        "label_style='oneOf', which exists only from 2025-11-25 on. Remove the label style "
        "(2025-06-18 then gets enumNames), or ask with a newer protocol."
    )


def test_legacy_enum_names_of_a_whole_form_yield_to_a_field_style() -> None:
    tp = one_field_form(Annotated[Size, FormField(label_style="oneOf")])
    field = requested_schema(tp, legacy_enum_names=True)["properties"]["answer"]
    assert "oneOf" in field
    assert "enumNames" not in field


_PREFIX = "Cannot build a form field for 'answer' of Form: "


@pytest.mark.parametrize(
    ("annotation", "default", "reason"),
    [
        pytest.param(
            Annotated[list[Size], FormField(label_style="enumNames")],
            dataclasses.MISSING,
            "label_style='enumNames' has no multi-select form: the deprecated enumNames exists "
            "only for single choices. Remove it; multi-selects carry labels with anyOf.",
            id="enumNames on a multi-select",
        ),
        pytest.param(
            Annotated[int, FormField(label_style="oneOf")],
            dataclasses.MISSING,
            "label_style='oneOf' applies only to choice fields, and this field is integer. "
            "Remove it.",
            id="label style on a number",
        ),
        pytest.param(
            Annotated[Size, FormField(label_style="titles")],  # type: ignore[arg-type]
            dataclasses.MISSING,
            "label_style='titles' is not a label style. Use 'oneOf' or 'enumNames'.",
            id="unknown label style",
        ),
        pytest.param(
            Annotated[str, FormField(title="Name", title_style="omit")],
            dataclasses.MISSING,
            "it has the title 'Name' and title_style='omit', which contradict each other. "
            "Remove one of them.",
            id="title and omit",
        ),
        pytest.param(
            Annotated[str, FormField(title_style="upper")],  # type: ignore[arg-type]
            dataclasses.MISSING,
            "title_style='upper' is not a title style. Use 'sentence', 'title', 'name' or 'omit'.",
            id="unknown title style",
        ),
        pytest.param(
            Annotated[str, FormField(required=False)],
            dataclasses.MISSING,
            "it is marked FormField(required=False) but has no default and does not accept "
            "None, so an unanswered field would have no value. Give it a default, or make it "
            "optional (X | None).",
            id="optional without a default",
        ),
        pytest.param(
            Annotated[int, FormField(prefill="three")],
            dataclasses.MISSING,
            "the prefill 'three' does not fit the field (Annotated[int, FormField(prefill="
            "'three')]). Give a value of the field's type (for a choice, one of its options).",
            id="prefill of another type",
        ),
        pytest.param(
            Annotated[list[Literal["s", "l"]], FormField(prefill=["s", "m"])],
            dataclasses.MISSING,
            "the prefill ['s', 'm'] does not fit the field (Annotated[list[Literal['s', 'l']], "
            "FormField(prefill=['s', 'm'])]). Give a value of the field's type (for a choice, "
            "one of its options).",
            id="prefill outside the options",
        ),
    ],
)
def test_refused_wire_settings(annotation: Any, default: Any, reason: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(one_field_form(annotation, default))
    assert str(caught.value) == _PREFIX + reason


@pytest.mark.parametrize(
    ("style", "name", "title"),
    [
        pytest.param(None, "zip_code", "Zip code", id="default"),
        pytest.param("sentence", "zipCode", "Zip code", id="sentence"),
        pytest.param("title", "zip_code", "Zip Code", id="title"),
        pytest.param("title", "deliver_on_date", "Deliver On Date", id="title three words"),
        pytest.param("name", "zip_code", "zip_code", id="name"),
    ],
)
def test_title_styles(style: Any, name: str, title: str) -> None:
    tp = one_field_form(Annotated[str, FormField(title_style=style)], name=name)
    assert requested_schema(tp)["properties"][name]["title"] == title


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
def test_title_left_out(protocol: str) -> None:
    tp = one_field_form(Annotated[int, FormField(title_style="omit", description="Seats")])
    schema = requested_schema(tp, protocol=protocol)
    assert schema["properties"]["answer"] == {"type": "integer", "description": "Seats"}
    assert_spec_valid(schema, protocol)


@dataclass
class Booking:
    seats: Annotated[int, FormField(required=True)] = 2
    room: Annotated[Literal["a", "b"], FormField(prefill="b")] = dataclasses.field(
        default_factory=lambda: "a"
    )
    when: Annotated[str, FormField(prefill="tomorrow")] = dataclasses.field(default="")
    sizes: list[Size] = dataclasses.field(default_factory=list)
    picked: Annotated[list[Size], FormField(prefill=[Size.SMALL])] = dataclasses.field(
        default_factory=lambda: [Size.SMALL]
    )
    name: Annotated[str, FormField(prefill="Ada")] = dataclasses.field(kw_only=True)


def test_required_and_prefilled_and_list_defaults() -> None:
    schema = requested_schema(Booking)
    properties = schema["properties"]
    assert schema["required"] == ["seats", "name"]
    assert properties["seats"]["default"] == 2
    assert properties["room"]["default"] == "b"
    assert properties["when"]["default"] == "tomorrow"
    assert properties["sizes"]["default"] == []
    assert properties["picked"]["default"] == ["s"]
    assert properties["name"]["default"] == "Ada"
    assert_spec_valid(schema, "2025-11-25")


def test_required_and_prefilled_field_must_be_sent() -> None:
    with pytest.raises(InvalidContent) as caught:
        parse_content(Booking, {})
    assert [(error.field, error.message) for error in caught.value.errors] == [
        ("seats", "This field is required."),
        ("name", "This field is required."),
    ]
    # A prefill is the wire only: an absent answer gets the field's own default.
    assert parse_content(Booking, {"seats": 3, "name": "Bo"}) == Booking(
        seats=3, room="a", when="", sizes=[], picked=[Size.SMALL], name="Bo"
    )


def test_required_false_makes_a_field_optional() -> None:
    tp = one_field_form(Annotated[int | None, FormField(required=False)])
    assert "required" not in requested_schema(tp)
    tp = one_field_form(Annotated[int, FormField(required=True)], default=1)
    assert requested_schema(tp)["required"] == ["answer"]


def test_form_field_repr_shows_given_settings() -> None:
    assert repr(FormField(title="T", required=True)) == "FormField(title='T', required=True)"
    assert repr(FormField()) == "FormField()"
