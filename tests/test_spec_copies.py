"""The vendored official schemas are the official files, and the strict checker is neither
lax nor over-strict: it accepts the official examples and rejects what the spec forbids.

The vendored copies are checked against ``tests/spec/SHA256SUMS``, the official files'
digests, so the check runs wherever the tests do, from the sdist too; that the digests are
still those of ``../shared/spec`` is checked where that folder exists
(``tests/test_spec_upstream.py``, not shipped in the sdist).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from elicitkit import parse_content, requested_schema
from tests.spec_check import SPEC_DIR, spec_errors
from tests.spec_digests import OFFICIAL_DIGESTS, official_digests

EXAMPLES = SPEC_DIR / "2026-07-28" / "examples"
PROPERTY_EXAMPLE_DIRS = [
    "StringSchema",
    "NumberSchema",
    "BooleanSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledSingleSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
]


def _copies() -> list[str]:
    """Every vendored file but the folder's own README and digest list."""
    ours = {"README.md", OFFICIAL_DIGESTS.name}
    return sorted(
        path.relative_to(SPEC_DIR).as_posix()
        for path in SPEC_DIR.rglob("*")
        if path.is_file() and path.name not in ours
    )


def test_every_vendored_file_has_an_official_digest() -> None:
    assert sorted(official_digests()) == _copies()


@pytest.mark.parametrize("relative", _copies())
def test_vendored_copy_is_the_official_file(relative: str) -> None:
    digest = hashlib.sha256((SPEC_DIR / relative).read_bytes()).hexdigest()
    assert digest == official_digests()[relative]


def _property_examples() -> list[Any]:
    return [
        pytest.param(json.loads(path.read_text()), id=f"{path.parent.name}/{path.name}")
        for name in PROPERTY_EXAMPLE_DIRS
        for path in sorted((EXAMPLES / name).glob("*.json"))
    ]


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("fragment", _property_examples())
def test_checker_accepts_official_property_examples(fragment: Any, protocol: str) -> None:
    schema = {"type": "object", "properties": {"field": fragment}}
    assert spec_errors(schema, protocol) == []


@pytest.mark.parametrize(
    "path", sorted((EXAMPLES / "ElicitRequestFormParams").glob("*.json")), ids=lambda p: p.name
)
def test_checker_accepts_official_form_examples(path: Path) -> None:
    params = json.loads(path.read_text())
    assert spec_errors(params["requestedSchema"], "2026-07-28") == []


FORBIDDEN = [
    pytest.param({"type": "string", "pattern": "^a"}, "2026-07-28", id="pattern"),
    pytest.param({"type": "string", "format": "int32"}, "2026-07-28", id="unknown format"),
    pytest.param({"anyOf": [{"type": "string"}, {"type": "null"}]}, "2026-07-28", id="anyOf null"),
    pytest.param({"$ref": "#/$defs/Color"}, "2026-07-28", id="ref"),
    pytest.param(
        {"type": "array", "items": {"enum": ["a"]}}, "2026-07-28", id="items without type"
    ),
    pytest.param({"type": "string", "default": "x"}, "2025-06-18", id="string default on 06-18"),
    pytest.param(
        {"type": "array", "items": {"type": "string", "enum": ["a"]}},
        "2025-06-18",
        id="array on 06-18",
    ),
    pytest.param(
        {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
        "2025-06-18",
        id="oneOf on 06-18",
    ),
    pytest.param({"type": "object", "properties": {}}, "2026-07-28", id="nested object"),
]


@pytest.mark.parametrize(("fragment", "protocol"), FORBIDDEN)
def test_checker_rejects_what_the_spec_forbids(fragment: Any, protocol: str) -> None:
    assert spec_errors({"type": "object", "properties": {"field": fragment}}, protocol) != []


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param(
            {"type": "object", "title": "Form", "properties": {"a": {"type": "string"}}},
            id="top-level title",
        ),
        pytest.param({"type": "object", "properties": {}}, id="empty properties"),
        pytest.param(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
            id="additionalProperties",
        ),
    ],
)
def test_checker_rejects_forbidden_top_level_shapes(schema: dict[str, Any]) -> None:
    assert spec_errors(schema, "2026-07-28") != []


class ContactInformation(pydantic.BaseModel):
    name: str = pydantic.Field(description="Your full name")
    email: pydantic.EmailStr = pydantic.Field(description="Your email address")
    age: float | None = pydantic.Field(default=None, ge=18, description="Your age")


def test_official_multiple_fields_example_from_a_model() -> None:
    official = json.loads(
        (EXAMPLES / "ElicitRequestFormParams" / "elicit-multiple-fields.json").read_text()
    )
    ours = requested_schema(ContactInformation)
    # The same schema, plus the titles elicitkit adds to every field.
    titles = {"name": "Name", "email": "Email", "age": "Age"}
    expected = official["requestedSchema"]
    expected["properties"] = {
        key: {**value, "title": titles[key]} for key, value in expected["properties"].items()
    }
    assert ours == expected


def test_official_answer_example_decodes() -> None:
    answer = json.loads((EXAMPLES / "ElicitResult" / "input-multiple-fields.json").read_text())
    value = parse_content(ContactInformation, answer["content"])
    assert value == ContactInformation(
        name="Monalisa Octocat", email="octocat@github.com", age=30.0
    )
