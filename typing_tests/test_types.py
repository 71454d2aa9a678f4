"""Static typing contract of elicitkit's public API.

This module is only type-checked, never executed: run ``mypy typing_tests`` and
``pyright typing_tests`` (pyproject.toml configures both in strict mode, with
``warn_unused_ignores`` implied by mypy's ``--strict`` and pyright's
``reportUnnecessaryTypeIgnoreComment``). Each ``assert_type`` fails the check if a checker
infers anything else; each ``# type: ignore[code]`` / ``# pyright: ignore[rule]`` comment
fails the check if the error it silences disappears, so those lines prove the error exists.

pytest never collects it (``testpaths = ["tests"]``), and even if pointed at it there is
nothing to collect or run: every check lives in a function whose name does not start with
``test``, and nothing is called at import time.
"""

# pyright: enableTypeIgnoreComments=false

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Literal

import msgspec
import pydantic
from typing_extensions import TypedDict, assert_never, assert_type

from elicitkit import Action, ElicitResultTyped, form, parse_content, requested_schema

# --------------------------------------------------------------------------------------
# Form types, one per supported vocabulary
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Address:
    street: str
    city: str
    zip_code: str | None = None


class AddressModel(pydantic.BaseModel):
    street: str
    city: str


class AddressStruct(msgspec.Struct):
    street: str
    city: str


class AddressDict(TypedDict):
    street: str
    city: str


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


# --------------------------------------------------------------------------------------
# parse_content: the form type in, an instance of it out
# --------------------------------------------------------------------------------------


def check_parse_content(content: dict[str, Any]) -> None:
    assert_type(parse_content(Address, content), Address)
    assert_type(parse_content(AddressModel, content), AddressModel)
    assert_type(parse_content(AddressStruct, content), AddressStruct)
    assert_type(parse_content(AddressDict, content), AddressDict)

    # Bare types make a one-field form; the answer is the bare value.
    assert_type(parse_content(bool, content), bool)
    assert_type(parse_content(int, content), int)
    assert_type(parse_content(str, content), str)
    assert_type(parse_content(Color, content), Color)

    # The protocol keyword does not change the result type.
    assert_type(parse_content(Address, content, protocol="2025-06-18"), Address)
    # The content is untrusted input: anything goes in.
    assert_type(parse_content(Address, None), Address)
    assert_type(parse_content(Address, "not even a dict"), Address)


def check_parse_content_is_not_any(content: dict[str, Any]) -> None:
    # The result is the real type, not Any: a misspelt attribute is an error.
    parse_content(Address, content).streeet  # type: ignore[attr-defined]  # pyright: ignore[reportAttributeAccessIssue]
    # ...and so is using it as another type.
    wrong: AddressModel = parse_content(Address, content)  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    del wrong


def check_parse_content_keyword_only(content: dict[str, Any]) -> None:
    # protocol is keyword-only.
    parse_content(Address, content, "2025-06-18")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]


# --------------------------------------------------------------------------------------
# requested_schema: a JSON-ready dict
# --------------------------------------------------------------------------------------


def check_requested_schema() -> None:
    assert_type(requested_schema(Address), dict[str, Any])
    assert_type(requested_schema(AddressModel), dict[str, Any])
    assert_type(requested_schema(AddressStruct), dict[str, Any])
    assert_type(requested_schema(AddressDict), dict[str, Any])
    assert_type(requested_schema(bool), dict[str, Any])
    assert_type(requested_schema(Color, protocol="2025-06-18"), dict[str, Any])
    assert_type(requested_schema(Color, legacy_enum_names=True), dict[str, Any])


# --------------------------------------------------------------------------------------
# form: the decorator hands the class back unchanged
# --------------------------------------------------------------------------------------


@form
@dataclasses.dataclass
class BareForm:
    confirm: bool


@form(message="Where should we ship it?")
@dataclasses.dataclass
class MessageForm:
    street: str


@form(message="Which colour?")
class ModelForm(pydantic.BaseModel):
    color: Color


def check_form() -> None:
    # Called as a function, both spellings return exactly the class they were given.
    assert_type(form(Address), type[Address])
    assert_type(form(AddressModel), type[AddressModel])
    assert_type(form(message="Where to?")(Address), type[Address])
    assert_type(form()(AddressStruct), type[AddressStruct])

    # Decorated classes keep their constructors and instances.
    assert_type(BareForm(confirm=True), BareForm)
    assert_type(MessageForm(street="Main St"), MessageForm)
    assert_type(ModelForm(color=Color.RED), ModelForm)
    assert_type(parse_content(BareForm, {"confirm": True}), BareForm)
    assert_type(parse_content(MessageForm, {}).street, str)

    # The constructor signature survives decoration: a wrong argument is still an error.
    BareForm(confirm="yes")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    MessageForm(city="Oslo")  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]


def check_form_misuse() -> None:
    form(message=42)  # type: ignore[call-overload]  # pyright: ignore[reportArgumentType]


# --------------------------------------------------------------------------------------
# ElicitResultTyped: the typed outcome
# --------------------------------------------------------------------------------------


def check_result(addr: Address) -> None:
    result = ElicitResultTyped[Address]("accept", addr)
    assert_type(result, ElicitResultTyped[Address])
    assert_type(result.content, Address | None)
    assert_type(result.unwrap(), Address)
    assert_type(result.action, Literal["accept", "decline", "cancel"])
    assert_type(result.action, Action)
    assert_type(result.is_accepted(), bool)
    assert_type(result.is_declined(), bool)
    assert_type(result.is_cancelled(), bool)

    # The type argument is inferred from the content, and keywords work too.
    assert_type(ElicitResultTyped("accept", addr), ElicitResultTyped[Address])
    assert_type(ElicitResultTyped(action="accept", content=addr), ElicitResultTyped[Address])
    # Without content the type argument must be given.
    declined = ElicitResultTyped[Address]("decline")
    assert_type(declined.content, Address | None)
    assert_type(ElicitResultTyped[int]("cancel", None).unwrap(), int)

    # parse_content and ElicitResultTyped compose: what ask() will return.
    answer = ElicitResultTyped("accept", parse_content(Address, {"street": "a", "city": "b"}))
    assert_type(answer, ElicitResultTyped[Address])


def check_result_errors(addr: Address, action: str) -> None:
    # action is the Literal, not any str: a typo and an unchecked str are both errors.
    ElicitResultTyped[Address]("accepted", addr)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    ElicitResultTyped[Address](action, addr)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    # The content must be the declared form type.
    ElicitResultTyped[Address]("accept", "1 Main St")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    # The result is frozen.
    result = ElicitResultTyped[Address]("accept", addr)
    result.action = "decline"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    # content may be None: using it unchecked is an error (unwrap() is the checked way).
    result.content.street  # type: ignore[union-attr]  # pyright: ignore[reportOptionalMemberAccess]


def check_action_exhaustive(result: ElicitResultTyped[Address]) -> str:
    # Matching on .action covers exactly three cases.
    match result.action:
        case "accept":
            return "ok"
        case "decline":
            return "no"
        case "cancel":
            return "later"
        case _:
            assert_never(result.action)


def check_match(result: ElicitResultTyped[Address]) -> None:
    # The documented pattern: the class pattern binds content with its declared type.
    match result:
        case ElicitResultTyped(action="accept", content=address):
            assert_type(address, Address | None)
        case ElicitResultTyped(action="decline"):
            assert_type(result, ElicitResultTyped[Address])
        case _:
            pass

    # A class sub-pattern on content narrows it to the form type.
    match result:
        case ElicitResultTyped(action="accept", content=Address() as address):
            assert_type(address, Address)
        case ElicitResultTyped(action="accept", content=None):
            assert_type(result.content, Address | None)
        case _:
            pass

    # Positional sub-patterns use the dataclass's __match_args__ (action, content).
    match result:
        case ElicitResultTyped("accept", Address(street=street)):
            assert_type(street, str)
        case ElicitResultTyped(action):
            assert_type(action, Literal["accept", "decline", "cancel"])
