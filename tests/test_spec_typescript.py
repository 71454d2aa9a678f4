"""The strict checker's key lists are the TypeScript interfaces' key lists.

The checker (tests/spec_check.py) allows exactly the properties the generated schema.json
lists for each variant. The TypeScript is the normative source, so this reads the
interfaces in each version's schema.ts and checks the two agree key for key.
"""

from __future__ import annotations

import re

import pytest

from tests.spec_check import SPEC_DIR, official_schema

VARIANTS = {
    "2025-06-18": ["StringSchema", "NumberSchema", "BooleanSchema", "EnumSchema"],
    "2025-11-25": [
        "StringSchema",
        "NumberSchema",
        "BooleanSchema",
        "UntitledSingleSelectEnumSchema",
        "TitledSingleSelectEnumSchema",
        "UntitledMultiSelectEnumSchema",
        "TitledMultiSelectEnumSchema",
        "LegacyTitledEnumSchema",
    ],
}
VARIANTS["2026-07-28"] = VARIANTS["2025-11-25"]
COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
KEY = re.compile(r"^\s*(\$?\w+)\??\s*:", re.MULTILINE)


def interface_keys(protocol: str, name: str) -> set[str]:
    """The top-level keys of ``export interface name { ... }`` in the version's schema.ts."""
    source = COMMENTS.sub("", (SPEC_DIR / protocol / "schema.ts").read_text())
    start = source.index(f"export interface {name} ")
    opening = source.index("{", start)
    depth, body = 0, []
    for char in source[opening:]:
        depth += {"{": 1, "}": -1}.get(char, 0)
        body.append(char if depth == 1 else ("\n" if char == "\n" else " "))
        if depth == 0:
            break
    return set(KEY.findall("".join(body)))


def definition_keys(protocol: str, name: str) -> set[str]:
    schema = official_schema(protocol)
    definitions = schema.get("$defs") or schema["definitions"]
    return set(definitions[name]["properties"])


@pytest.mark.parametrize(
    ("protocol", "name"),
    [(protocol, name) for protocol, names in VARIANTS.items() for name in names],
    ids=lambda value: value,
)
def test_every_variant_allows_the_typescript_keys(protocol: str, name: str) -> None:
    keys = interface_keys(protocol, name)
    assert keys  # the parser found the interface
    assert keys == definition_keys(protocol, name)


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_form_params_allow_the_typescript_keys(protocol: str) -> None:
    keys = interface_keys(protocol, "ElicitRequestFormParams")
    inherited = {"_meta", "task"} if protocol == "2025-11-25" else set()
    assert keys | inherited == definition_keys(protocol, "ElicitRequestFormParams")
