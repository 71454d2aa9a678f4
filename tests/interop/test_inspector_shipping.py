"""The shipping example (`examples/shipping.py`) in the MCP Inspector, on both eras.

Two questions in one tool call: an address form, then a bare yes/no confirmation. On
2026-07-28 that is three rounds of the same tool call. The confirmation is answered "no"
by submitting it untouched, which the `false` default on bare yes/no questions allows.
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
)
from tests.interop._tools import ROOT, require_inspector

SHIPPING = ROOT / "examples" / "shipping.py"
SHIPPED = re.compile(r"^Shipping ")


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
    workdir = tmp_path_factory.mktemp(f"inspector-shipping-{era}")
    with running_inspector(launcher, era, workdir, SHIPPING) as url:
        yield era, url


@pytest.fixture
def page(browser: Browser, inspector: tuple[str, str]) -> Iterator[Page]:
    with new_page(browser) as page:
        connect(page, inspector[1])
        yield page


def test_address_then_no_in_one_step(
    page: Page, inspector: tuple[str, str], artifacts: Path
) -> None:
    # (Ticking the box for "yes" is covered by test_inspector.py's yes_or_no tests.)
    page.get_by_text("Tools", exact=True).click()
    page.get_by_role("button", name="ship", exact=True).click()
    page.get_by_role("textbox", name="Item").fill("book")
    page.get_by_role("button", name="Execute Tool").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Where should we ship your order?")).to_be_visible(timeout=TIMEOUT_MS)
    dialog.get_by_role("textbox", name="Name").fill("Ada Lovelace")
    dialog.get_by_role("textbox", name="Street").fill("1 Main St")
    dialog.get_by_role("textbox", name="City").fill("Oslo")
    dialog.get_by_role("textbox", name="Zip code").fill("0150")
    page.screenshot(path=artifacts / f"inspector-{inspector[0]}-shipping-address.png")
    dialog.get_by_role("button", name="Submit").click()
    question = dialog.get_by_text("Ship book to 1 Main St, Oslo by standard?")
    expect(question).to_be_visible(timeout=TIMEOUT_MS)
    box = dialog.get_by_role("checkbox", name="Confirm")
    expect(box).not_to_be_checked()  # prefilled "no"
    submit = dialog.get_by_role("button", name="Submit")
    expect(submit).to_be_enabled()  # answerable without touching the box
    page.screenshot(path=artifacts / f"inspector-{inspector[0]}-shipping-confirm.png")
    submit.click()
    assert result(page, SHIPPED) == "Shipping cancelled: the user did not confirm."
