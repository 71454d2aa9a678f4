# mypy: ignore-errors
"""Pyright's half of the must-be-an-error checks in ``test_types.py``.

Each line below is an error; its ``# pyright: ignore[rule]`` names pyright's rule, and with
``reportUnnecessaryTypeIgnoreComment`` pyright fails if that rule stops firing there. mypy
skips this file (``# mypy: ignore-errors`` above): it pins its own error codes on the same
lines in ``test_types.py``, with ``# type: ignore[code]``, which pyright would otherwise
honour before reading a ``# pyright: ignore`` on the same line.

Only type-checked, never executed; nothing here is collected by pytest.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from elicitkit import ElicitResultTyped, Overrides, form, parse_content


@dataclasses.dataclass
class Address:
    street: str
    city: str


@dataclasses.dataclass
class Other:
    name: str


@form
@dataclasses.dataclass
class BareForm:
    confirm: bool


@form(message="Where should we ship it?")
@dataclasses.dataclass
class MessageForm:
    street: str


def check_parse_content_is_not_any(content: dict[str, Any]) -> None:
    # The unknown attribute also makes "_" unknown, which strict mode reports too.
    _ = parse_content(Address, content).streeet  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType]
    wrong: Other = parse_content(Address, content)  # pyright: ignore[reportAssignmentType]
    del wrong


def check_parse_content_keyword_only(content: dict[str, Any]) -> None:
    parse_content(Address, content, "2025-06-18")  # pyright: ignore[reportCallIssue]


def check_form_keeps_constructor() -> None:
    BareForm(confirm="yes")  # pyright: ignore[reportArgumentType]
    MessageForm(city="Oslo")  # pyright: ignore[reportCallIssue]


def check_form_misuse() -> None:
    form(message=42)  # pyright: ignore[reportArgumentType]
    form(title_style="Title")  # pyright: ignore[reportArgumentType]
    form(label_style="enum")  # pyright: ignore[reportArgumentType]


def check_hide_takes_a_set() -> None:
    Overrides(hide="street")  # pyright: ignore[reportArgumentType]


def check_result_errors(addr: Address, action: str) -> None:
    ElicitResultTyped[Address]("accepted", addr)  # pyright: ignore[reportArgumentType]
    ElicitResultTyped[Address](action, addr)  # pyright: ignore[reportArgumentType]
    ElicitResultTyped[Address]("accept", "1 Main St")  # pyright: ignore[reportArgumentType]
    result = ElicitResultTyped[Address]("accept", addr)
    result.action = "decline"  # pyright: ignore[reportAttributeAccessIssue]
    _ = result.content.street  # pyright: ignore[reportOptionalMemberAccess]
