"""docs/clients.md shows exactly the facts in docs/clients.json, which the interop suite checks."""

from __future__ import annotations

from tests.interop._facts import PAGE, documented, generated_section


def test_client_page_table_is_generated_from_the_observed_facts() -> None:
    assert generated_section(documented()) in PAGE.read_text(encoding="utf-8"), (
        "docs/clients.md is out of date with docs/clients.json: run python -m tests.interop._facts"
    )


def test_every_documented_fact_has_a_description() -> None:
    facts = documented()
    for client in facts["clients"].values():
        for era in client["eras"].values():
            assert set(era) <= set(facts["facts"]), era
