"""Generate docs/wire-reference.md: each supported annotation and the exact JSON it becomes.

    python -m tests.wire_reference        # rewrite the page from the code

tests/test_docs_wire_reference.py fails when the page and the code disagree, so the page is
the code's output, never a hand-written claim.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from elicitkit import FormDefinitionError, requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS, ProtocolVersion

PAGE = Path(__file__).parents[1] / "docs" / "wire-reference.md"

# Shown on the page and executed before each declaration.
PRELUDE = """\
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Annotated, Literal

from annotated_types import Ge, Gt, Le, Lt, MaxLen, MinLen
from pydantic import AnyUrl, EmailStr

from elicitkit import Email, FormField, Uri


class Size(Enum):
    SMALL = "s"
    LARGE = "l"


class Seat(Enum):
    AISLE = "aisle"
    WINDOW = "window"
    __labels__ = {"AISLE": "Aisle seat", "WINDOW": "Window seat"}
"""

# (section, [field declarations]): each becomes `class Form: <declaration>` on the page.
SECTIONS: list[tuple[str, list[str]]] = [
    (
        "Text",
        [
            "value: str",
            'value: str = "Oslo"',
            "value: Annotated[str, MinLen(2), MaxLen(40)]",
            'value: Annotated[str, FormField(title="City", description="Where you live")]',
            "value: Annotated[str, Email]",
            "value: EmailStr",
            "value: Annotated[str, Uri]",
            "value: AnyUrl",
        ],
    ),
    ("Dates", ["value: date", "value: datetime"]),
    (
        "Numbers",
        [
            "value: int",
            "value: int = 3",
            "value: Annotated[int, Ge(1), Le(9)]",
            "value: Annotated[int, Gt(0), Lt(10)]",
            "value: float",
            "value: Annotated[float, Gt(0), Lt(5)]",
            "value: Decimal",
        ],
    ),
    ("Booleans", ["value: bool", "value: bool = False"]),
    (
        "Single choice",
        [
            'value: Literal["tea", "coffee"]',
            "value: Literal[1, 2, 3]",
            "value: Size",
            "value: Size = Size.SMALL",
            "value: Seat",
            'value: Annotated[Literal["veg", "fish"], FormField(labels={"veg": "Vegetarian"})]',
        ],
    ),
    (
        "Multiple choice",
        [
            'value: list[Literal["tea", "coffee"]]',
            "value: set[Size]",
            "value: Annotated[frozenset[Seat], MinLen(1)]",
        ],
    ),
    ("Optional fields", ["value: int | None = None", "value: str | None"]),
]


def _emitted(declaration: str) -> dict[str, str]:
    """Version -> the exact JSON (or the refusal) for a one-field dataclass form."""
    # A real module: elicitkit resolves a form's annotations in its module's globals.
    module = ModuleType("wire_reference_form")
    sys.modules[module.__name__] = module
    source = f"{PRELUDE}\n\n@dataclass\nclass Form:\n    {declaration}\n"
    try:
        exec(source, module.__dict__)  # only ever the fixed table above
        return {protocol: _render(module.Form, protocol) for protocol in PROTOCOL_VERSIONS}
    finally:
        del sys.modules[module.__name__]


def _render(form: Any, protocol: ProtocolVersion) -> str:
    try:
        return _layout(requested_schema(form, protocol=protocol))
    except FormDefinitionError as refusal:
        return f"refused: {refusal}"


def _layout(schema: dict[str, Any]) -> str:
    """The schema as JSON, one top-level key per line."""
    members = ",\n".join(
        f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in schema.items()
    )
    return "{\n" + members + "\n}"


def _blocks(shown: dict[str, str]) -> list[str]:
    """One block per distinct output, titled with the versions that emit it."""
    groups: dict[str, list[str]] = {}
    for protocol, text in shown.items():
        groups.setdefault(text, []).append(protocol)
    blocks = []
    for text, protocols in groups.items():
        title = "every version" if len(protocols) == len(shown) else " and ".join(protocols)
        language = "text" if text.startswith("refused: ") else "json"
        blocks.append(f'```{language} title="{title}"\n{text}\n```\n')
    return blocks


def generate() -> str:
    """Return the page's text."""
    parts = [
        "# Wire reference\n",
        (
            "Each supported annotation, as the one field of a dataclass form, and the exact\n"
            "`requestedSchema` elicitkit sends for it on each protocol version. The page is\n"
            "generated from the code (`python -m tests.wire_reference`) and a test fails when\n"
            "the two differ, so it cannot drift; the rules behind it are in the\n"
            "[type mapping](type-mapping.md). Every form below was declared after this prelude:\n"
        ),
        f"```python\n{PRELUDE}```\n",
    ]
    for section, declarations in SECTIONS:
        parts.append(f"## {section}\n")
        for declaration in declarations:
            parts.append(f"### `{declaration}`\n")
            parts.extend(_blocks(_emitted(declaration)))
    return "\n".join(parts)


if __name__ == "__main__":
    PAGE.write_text(generate())
