"""Forms elicitkit cannot express fail before anything is sent, with an exact message."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal

import annotated_types as at
import pydantic
import pytest

from elicitkit import FormDefinitionError, FormField, form, parse_content, requested_schema
from tests.forms import one_field_form


class Weird(enum.Enum):
    A = 1.5


class Clash(enum.Enum):
    ONE = 1
    ALSO_ONE = "1"


class Empty(enum.Enum):
    pass


def _field_message(reason: str) -> str:
    return f"Cannot build a form field for 'answer' of Form: {reason}"


REFUSALS = [
    pytest.param(
        dict[str, str],
        "dict[str, str] is a nested mapping, and MCP forms are flat. Declare one field per key "
        "instead.",
        id="dict",
    ),
    pytest.param(
        list[str],
        "list[str] has no flat JSON form. Use list[Literal[...]] or list[SomeEnum] for a "
        "multi-select.",
        id="list[str]",
    ),
    pytest.param(
        list,
        "list has no flat JSON form. Use list[Literal[...]] or list[SomeEnum] for a multi-select.",
        id="bare list",
    ),
    pytest.param(
        tuple[Literal["a"], Literal["b"]],
        "tuple[Literal['a'], Literal['b']] is a fixed-length tuple, which a form cannot "
        "express. Use tuple[X, ...] for a multi-select, or separate fields.",
        id="fixed tuple",
    ),
    pytest.param(
        str | int,
        "str | int is a union of 2 value types, which one form field cannot express. Use one "
        "type, or ask with two separate fields.",
        id="union",
    ),
    pytest.param(
        Any,
        "Any says nothing about what to ask. Annotate the field with a concrete type such as "
        "str, int, bool, a Literal or an Enum.",
        id="Any",
    ),
    pytest.param(
        bytes,
        "bytes has no form field. Use str, int, float, bool, Decimal, date, datetime, a "
        "Literal, an Enum, or a list of a Literal or an Enum.",
        id="bytes",
    ),
    pytest.param(
        Weird,
        "Weird.A has the value 1.5; choices travel as strings, so Enum values must be str or "
        "int. Give the members str or int values.",
        id="float enum",
    ),
    pytest.param(
        Clash,
        "the options '1' appear more than once on the wire (choices travel as strings, so 1 and "
        "'1' collide). Make every option's string distinct.",
        id="colliding enum values",
    ),
    pytest.param(
        Empty,
        "Empty has no members, so there is nothing to choose.",
        id="empty enum",
    ),
    pytest.param(
        Annotated[str, at.Ge(1)],
        "bounds (ge, gt, le, lt) apply only to numbers, and this field is "
        "Annotated[str, Ge(ge=1)]. Remove them, or use min_length/max_length for lengths.",
        id="bound on str",
    ),
    pytest.param(
        Annotated[int, at.MaxLen(3)],
        "length limits apply only to text and multi-selects, and this field is "
        "Annotated[int, MaxLen(max_length=3)]. Remove them, or use ge/le for bounds.",
        id="length on int",
    ),
    pytest.param(
        Annotated[int, at.Ge(5), at.Le(1)],
        "the lower bound 5 is above the upper bound 1.",
        id="crossed bounds",
    ),
    pytest.param(
        Annotated[int, FormField(format="email")],
        "format 'email' applies only to a plain str field, and this field is "
        "Annotated[int, FormField(format='email')]. Remove it: dates, datetimes, EmailStr and "
        "URL types carry their own format.",
        id="format on int",
    ),
    pytest.param(
        Annotated[Literal["a", "b"], FormField(labels={"c": "See"})],
        "the labels name 'c', which is not an option. Key labels by Enum member, Literal value, "
        "or the option's string.",
        id="label for no option",
    ),
]


@pytest.mark.parametrize(("annotation", "reason"), REFUSALS)
def test_refused_field(annotation: Any, reason: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(one_field_form(annotation))
    assert str(caught.value) == _field_message(reason)


@pytest.mark.parametrize(("annotation", "reason"), REFUSALS)
def test_refused_before_decoding(annotation: Any, reason: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        parse_content(one_field_form(annotation), {"answer": "x"})
    assert str(caught.value) == _field_message(reason)


def test_form_definition_error_is_a_type_error() -> None:
    assert issubclass(FormDefinitionError, TypeError)


def test_unannotated_field_of_make_dataclass() -> None:
    # make_dataclass without a type gives the field typing.Any.
    form_type = dataclasses.make_dataclass("Loose", ["note"])
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(form_type)
    assert str(caught.value) == (
        "Cannot build a form field for 'note' of Loose: Any says nothing about what to ask. "
        "Annotate the field with a concrete type such as str, int, bool, a Literal or an Enum."
    )


def test_unresolvable_annotation() -> None:
    @dataclasses.dataclass
    class Later:
        when: Undefined  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(Later)
    assert str(caught.value) == (
        "Cannot build a form from Later: the annotation name 'Undefined' cannot be resolved. "
        "Define or import it at module level, where the form's module can see it."
    )


def test_empty_form() -> None:
    @dataclasses.dataclass
    class Nothing:
        pass

    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(Nothing)
    assert str(caught.value) == (
        "Cannot build a form from Nothing: it has no fields, and clients show an empty form as "
        "a dialog that cannot be answered. Add at least one field, such as a bool to confirm."
    )


def test_plain_class() -> None:
    class NotADataclass:
        street: str

    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(NotADataclass)
    assert str(caught.value) == (
        "Cannot build a one-field form from NotADataclass: NotADataclass is a plain class, and "
        "elicitkit reads fields only from dataclasses, pydantic models, msgspec Structs and "
        "TypedDicts. Decorate it with @dataclass."
    )


def test_duplicate_wire_keys() -> None:
    class Aliased(pydantic.BaseModel):
        first: str = pydantic.Field(alias="name")
        second: str = pydantic.Field(alias="name")

    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(Aliased)
    assert str(caught.value) == (
        "Cannot build a form from Aliased: fields 'first' and 'second' both use the wire key "
        "'name'. Give one of them another alias."
    )


def test_form_decorator_refuses_at_class_definition() -> None:
    with pytest.raises(FormDefinitionError) as caught:

        @form
        @dataclasses.dataclass
        class Tagged:
            tags: list[str]

    assert str(caught.value) == (
        "Cannot build a form field for 'tags' of Tagged: list[str] has no flat JSON form. Use "
        "list[Literal[...]] or list[SomeEnum] for a multi-select."
    )


def test_unknown_protocol() -> None:
    with pytest.raises(ValueError, match=r"^Unknown MCP protocol version '2025-03-26'") as caught:
        requested_schema(bool, protocol="2025-03-26")
    assert str(caught.value) == (
        "Unknown MCP protocol version '2025-03-26': elicitation exists only in 2025-06-18, "
        "2025-11-25, 2026-07-28. Pass one of those."
    )
    with pytest.raises(ValueError, match=r"^Unknown MCP protocol version '2024-11-05'"):
        parse_content(bool, {"value": True}, protocol="2024-11-05")
