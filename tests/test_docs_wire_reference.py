"""docs/wire-reference.md is exactly what the code emits for each annotation it lists."""

from __future__ import annotations

from tests.wire_reference import PAGE, SECTIONS, generate


def test_the_wire_reference_page_is_what_the_code_emits() -> None:
    # On failure, after checking that the new output is intended: python -m tests.wire_reference
    assert PAGE.read_text() == generate()


def test_the_wire_reference_covers_every_kind_of_field() -> None:
    assert [section for section, _ in SECTIONS] == [
        "Text",
        "Dates",
        "Numbers",
        "Booleans",
        "Single choice",
        "Multiple choice",
        "Optional fields",
    ]
    assert sum(len(declarations) for _, declarations in SECTIONS) == 30
