"""A long tool in the MCP Inspector (2.12): ask, go async, an in-task question, cancel.

`examples/long_report.py`'s ``render`` asks who the report is for, calls ``go_async()``,
works, and asks how many copies. The Inspector speaks the Tasks extension on 2026-07-28:
the first question comes as a replay round, the call is answered with a task, the
Inspector polls it and shows the in-task question in its elicitation dialog ("your answer
is submitted via a tasks/update request"), then the result. On 2025-11-25 the same tool runs
in the call. The Inspector's "Cancel Task" button cancels a task that works.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.interop._inspector import (
    TIMEOUT_MS,
    chromium,
    connect,
    new_page,
    result,
    running_inspector,
    tool_button,
)
from tests.interop._tools import ROOT, require_inspector

LONG_REPORT = ROOT / "examples" / "long_report.py"
THIS_CHECKOUT = Path(__file__).with_name("_this_checkout.py")
REPORT = re.compile(r"^REPORT ")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_inspector()
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module", params=["legacy", "modern"])
def inspector(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    launcher = require_inspector()
    era: str = request.param
    workdir = tmp_path_factory.mktemp(f"inspector-tasks-{era}")
    with running_inspector(launcher, era, workdir, THIS_CHECKOUT, str(LONG_REPORT)) as url:
        yield era, url


@pytest.fixture
def page(browser: Browser, inspector: tuple[str, str]) -> Iterator[Page]:
    with new_page(browser) as page:
        connect(page, inspector[1])
        yield page


def _render(page: Page, seconds: str) -> None:
    """Run ``render`` and answer its first question (who the report is for)."""
    page.get_by_text("Tools", exact=True).click()
    tool_button(page, "render").click()
    page.get_by_role("textbox", name="Title").fill("Q3")
    page.get_by_role("textbox", name="Seconds").fill(seconds)
    page.get_by_role("button", name="Execute Tool").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Who is the report for?")).to_be_visible(timeout=TIMEOUT_MS)
    dialog.get_by_role("textbox", name="Name").fill("Ada")
    dialog.get_by_role("button", name="Submit").click()


def test_ask_then_go_async_then_ask_in_the_task(
    page: Page, inspector: tuple[str, str], artifacts: Path
) -> None:
    era = inspector[0]
    _render(page, "1")
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Q3 is rendered. How many copies?")).to_be_visible(timeout=TIMEOUT_MS)
    if era == "modern":  # the Inspector says where the answer goes
        expect(dialog.get_by_text(re.compile("submitted via a tasks/update"))).to_be_visible()
    page.screenshot(path=artifacts / f"inspector-{era}-task-question.png")
    copies = dialog.get_by_role("spinbutton", name="Copies")
    copies.or_(dialog.get_by_role("textbox", name="Copies")).first.fill("2")
    dialog.get_by_role("button", name="Submit").click()
    where = "as a task" if era == "modern" else "in the call"
    assert result(page, REPORT) == f"REPORT Q3 for Ada: 2 copies, {where}."
    page.screenshot(path=artifacts / f"inspector-{era}-task-result.png")


@pytest.mark.parametrize("inspector", ["modern"], indirect=True)  # 2025-11-25 has no tasks
def test_cancel_task_while_it_works(page: Page, artifacts: Path) -> None:
    _render(page, "60")
    cancel = page.get_by_role("button", name="Cancel Task")
    expect(cancel).to_be_visible(timeout=TIMEOUT_MS)
    cancel.click()
    expect(page.get_by_text(re.compile(r"^cancelled$", re.IGNORECASE)).first).to_be_visible(
        timeout=TIMEOUT_MS
    )
    page.screenshot(path=artifacts / "inspector-modern-task-cancelled.png")
