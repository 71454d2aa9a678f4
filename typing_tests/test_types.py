"""Static typing contract of elicitkit's public API.

This module is only type-checked, never executed: run ``mypy typing_tests`` and
``pyright typing_tests`` (pyproject.toml configures both in strict mode). Each
``assert_type`` fails the check if a checker infers anything else.

Lines that must be errors carry ``# type: ignore[code]``. mypy (``--strict`` implies
``warn_unused_ignores``) fails if that exact error code disappears; pyright honours the same
comment and, with ``reportUnnecessaryTypeIgnoreComment``, fails if the line stops being an
error. Pyright cannot also pin its own rule name on these lines: with
``enableTypeIgnoreComments`` on (the default, which the pyproject keeps) the ``type: ignore``
suppresses the error first and a ``# pyright: ignore[rule]`` beside it is reported as
unnecessary. The same lines are repeated with pyright's rule names in
``test_errors_pyright.py``.

pytest never collects it (``testpaths = ["tests"]``), and even if pointed at it there is
nothing to collect or run: every check lives in a function whose name does not start with
``test``, and nothing is called at import time.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, Optional

import msgspec
import pydantic
from annotated_types import MinLen
from mcp.server.mcpserver import MCPServer
from typing_extensions import TypedDict, assert_never, assert_type

from elicitkit import (
    Action,
    ElicitResultTyped,
    FormField,
    Overrides,
    ask,
    ask_text,
    choose,
    confirm,
    fill_missing,
    form,
    install,
    parse_content,
    requested_schema,
)

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

    # Multi-select fields are lists of a Literal or an Enum; as a one-field form the
    # answer is that list.
    assert_type(parse_content(list[Color], content), list[Color])
    assert_type(parse_content(list[Literal["a", "b"]], content), list[Literal["a", "b"]])

    # The protocol keyword does not change the result type.
    assert_type(parse_content(Address, content, protocol="2025-06-18"), Address)
    # The content is untrusted input: anything goes in.
    assert_type(parse_content(Address, None), Address)
    assert_type(parse_content(Address, "not even a dict"), Address)


@dataclasses.dataclass
class Note:
    # keep_empty: "" stays the answer of this optional text field, instead of None.
    text: Annotated[str | None, FormField(keep_empty=True)] = None


def check_keep_empty(content: dict[str, Any]) -> None:
    assert_type(FormField(keep_empty=True).keep_empty, bool)
    assert_type(parse_content(Note, content).text, str | None)


def check_parse_content_special_forms(content: dict[str, Any]) -> None:
    # Special forms are not classes, so they reach the fallback overload: Any, on both
    # checkers. (A one-field form from them works at runtime; annotate the result.)
    assert_type(parse_content(Literal["a", "b"], content), Any)
    assert_type(parse_content(Optional[int], content), Any)  # noqa: UP045
    assert_type(parse_content(Annotated[str, MinLen(1)], content), Any)
    value: Literal["a", "b"] = parse_content(Literal["a", "b"], content)
    del value


def check_parse_content_is_not_any(content: dict[str, Any]) -> None:
    # The result is the real type, not Any: a misspelt attribute is an error.
    _ = parse_content(Address, content).streeet  # type: ignore[attr-defined]
    # ...and so is using it as another type.
    wrong: AddressModel = parse_content(Address, content)  # type: ignore[assignment]
    del wrong


def check_parse_content_keyword_only(content: dict[str, Any]) -> None:
    # protocol is keyword-only.
    parse_content(Address, content, "2025-06-18")  # type: ignore[call-overload]


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
    styled = form(title_style="title", label_style="enumNames")
    assert_type(styled(AddressModel), type[AddressModel])
    form(title_style="Title")  # type: ignore[call-overload]  # not a title style

    # Decorated classes keep their constructors and instances.
    assert_type(BareForm(confirm=True), BareForm)
    assert_type(MessageForm(street="Main St"), MessageForm)
    assert_type(ModelForm(color=Color.RED), ModelForm)
    assert_type(parse_content(BareForm, {"confirm": True}), BareForm)
    assert_type(parse_content(MessageForm, {}).street, str)

    # The constructor signature survives decoration: a wrong argument is still an error.
    BareForm(confirm="yes")  # type: ignore[arg-type]
    MessageForm(city="Oslo")  # type: ignore[call-arg]


def check_form_misuse() -> None:
    form(message=42)  # type: ignore[call-overload]


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
    ElicitResultTyped[Address]("accepted", addr)  # type: ignore[arg-type]
    ElicitResultTyped[Address](action, addr)  # type: ignore[arg-type]
    # The content must be the declared form type.
    ElicitResultTyped[Address]("accept", "1 Main St")  # type: ignore[arg-type]
    # The result is frozen.
    result = ElicitResultTyped[Address]("accept", addr)
    result.action = "decline"  # type: ignore[misc]
    # content may be None: using it unchecked is an error (unwrap() is the checked way).
    _ = result.content.street  # type: ignore[union-attr]


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
            # Neither checker narrows content or the subject's action from the action
            # sub-pattern: the fields are independent (use unwrap() or the pattern below).
            assert_type(address, Address | None)
            assert_type(result.action, Literal["accept", "decline", "cancel"])
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


# --------------------------------------------------------------------------------------
# ask(): the result's content type comes from the form type
# --------------------------------------------------------------------------------------


async def check_ask() -> None:
    assert_type(await ask(Address), ElicitResultTyped[Address])
    assert_type(await ask(AddressModel, "Where to?"), ElicitResultTyped[AddressModel])
    assert_type(await ask(AddressStruct), ElicitResultTyped[AddressStruct])
    assert_type(await ask(AddressDict), ElicitResultTyped[AddressDict])
    assert_type(await ask(bool, "Delete 3 files?"), ElicitResultTyped[bool])
    per_call = Overrides(choices={"city": ["Oslo", "Bergen"]}, defaults={"street": "Main"})
    assert_type(await ask(Address, overrides=per_call), ElicitResultTyped[Address])
    assert_type(parse_content(Address, {}, overrides=per_call), Address)
    assert_type(await confirm("Sure?"), bool)
    assert_type(await choose("Size?", ["s", "m"]), str | None)
    assert_type(await choose("Size?", {1: "one", 2: "two"}), int | None)
    assert_type(await ask_text("Name?"), str | None)
    assert_type(await choose("Colour?", Color), Color | None)
    assert_type(await choose("Size?", ["s", "m"], title=None), str | None)
    assert_type(await choose("Colour?", Color, title="Paint"), Color | None)
    assert_type(await ask_text("Name?", title=None), str | None)
    hidden = Overrides(hide={"street"}, defaults={"street": "Main"})
    assert_type(await ask(Address, overrides=hidden), ElicitResultTyped[Address])
    Overrides(hide="street")  # type: ignore[arg-type]  # a str is no set of names

    @fill_missing
    async def tool(day: str | None = None) -> int:
        return len(day or "")

    assert_type(await tool(), int | str)
    answer = await ask(Address)
    if answer.is_accepted():
        assert_type(answer.unwrap().city, str)
    assert_type(await ask(Literal["a", "b"]), ElicitResultTyped[Any])


def check_install() -> None:
    server = MCPServer("typed")
    assert_type(install(server), MCPServer)
