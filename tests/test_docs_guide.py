"""The guide reads in order: each page ends with "Next" to the page after it in the nav, and
the tutorial's stages appear along it, one per page, in stage order.

mkdocs.yml's nav is the one source of the order: a page moved in the nav must move its
"Next" links with it, and a page added to the guide must link on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
NEXT = re.compile(r"^Next: .*?\[[^\]]+\]\(([^)#]+\.md)\)", re.MULTILINE)
INCLUDED_STAGE = re.compile(r'^--8<-- "examples/tutorial/(stage\d+_\w+)\.py"$', re.MULTILINE)


def _group(title: str) -> list[str]:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    (entries,) = [entry[title] for entry in nav if title in entry]
    return [next(iter(entry.values())) for entry in entries]


GUIDE = _group("Guide")
# Where the last guide page sends the reader: the first page after the guide.
AFTER_GUIDE = _group("Examples")[0]


def test_the_guide_is_in_the_order_people_learn() -> None:
    assert GUIDE == [
        "getting-started.md",
        "forms.md",
        "replay.md",
        "steps.md",
        "long-work.md",
        "when-the-client-cannot-ask.md",
        "url-mode.md",
        "records.md",
        "testing.md",
    ]


@pytest.mark.parametrize(
    ("page", "following"),
    list(zip(GUIDE, [*GUIDE[1:], AFTER_GUIDE], strict=True)),
    ids=GUIDE,
)
def test_each_guide_page_ends_with_next(page: str, following: str) -> None:
    text = (DOCS / page).read_text()
    last_paragraph = text.rstrip().rsplit("\n\n", 1)[-1]
    assert NEXT.findall(last_paragraph) == [following]
    assert NEXT.findall(text) == [following]  # one "Next", at the end


def test_the_home_page_and_getting_started_lead_into_the_guide() -> None:
    home = (DOCS / "index.md").read_text()
    for page in GUIDE:
        assert f"]({page})" in home
    assert "](forms.md)" in (DOCS / "getting-started.md").read_text()


def test_the_tutorial_stages_follow_the_guide() -> None:
    shown = [stage for page in GUIDE for stage in INCLUDED_STAGE.findall((DOCS / page).read_text())]
    stages = sorted(path.stem for path in (ROOT / "examples" / "tutorial").glob("stage*.py"))
    assert shown == stages
