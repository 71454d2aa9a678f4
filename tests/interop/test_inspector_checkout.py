"""The quote -> confirm -> pay example (`examples/quote_confirm_pay.py`) in the MCP Inspector.

A person checks out a lamp in the Inspector's web UI: the tool looks up a quote (a durable
step), asks to confirm the price, pays (a durable step), then asks for the city. On
2026-07-28 (the Inspector's ``modern`` era) that is three rounds of one tool call, and the
body runs in each; the server (tests/interop/checkout_server.py) writes down every real
run, so the test sees that the quote and the payment each happened once. On 2025-11-25
(``legacy``) the body runs once, with the same result.
"""

from __future__ import annotations

import re
from collections import Counter
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
from tests.interop._tools import require_inspector

SERVER = Path(__file__).resolve().with_name("checkout_server.py")
PAID = re.compile(r"^(Paid|Nothing paid) ")
PROTOCOLS = {"legacy": "2025-11-25", "modern": "2026-07-28"}
BODY_RUNS = {"legacy": 1, "modern": 3}  # modern: once per round (quote, confirm, city)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_inspector()
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module", params=["modern", "legacy"])
def inspector(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, Path]]:
    """A running Inspector on the checkout server: its era, its URL, the server's runs file."""
    launcher = require_inspector()
    era: str = request.param
    workdir = tmp_path_factory.mktemp(f"inspector-checkout-{era}")
    runs = workdir / "runs.txt"
    with running_inspector(launcher, era, workdir, SERVER, str(runs)) as url:
        yield era, url, runs


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with new_page(browser) as page:
        yield page


def test_quote_confirm_pay_pays_once(
    page: Page, inspector: tuple[str, str, Path], artifacts: Path
) -> None:
    era, url, runs = inspector
    assert connect(page, url) == PROTOCOLS[era]
    page.get_by_text("Tools", exact=True).click()
    page.get_by_role("button", name="checkout", exact=True).click()
    page.get_by_role("textbox", name="Item").fill("lamp")
    page.get_by_role("button", name="Execute Tool").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Pay 42 EUR for 1 x lamp?")).to_be_visible(timeout=TIMEOUT_MS)
    dialog.get_by_role("checkbox").check()
    page.screenshot(path=artifacts / f"inspector-{era}-checkout-confirm.png")
    dialog.get_by_role("button", name="Submit").click()
    expect(dialog.get_by_text("Which city should we ship to?")).to_be_visible(timeout=TIMEOUT_MS)
    dialog.get_by_role("textbox").fill("Oslo")
    page.screenshot(path=artifacts / f"inspector-{era}-checkout-city.png")
    dialog.get_by_role("button", name="Submit").click()
    shown = result(page, PAID)
    page.screenshot(path=artifacts / f"inspector-{era}-checkout-paid.png")
    # The fake provider numbers payments process-wide: a second payment would read "2".
    assert shown == "Paid 42 EUR (payment 1 for quote 1); shipping to Oslo."
    ran = Counter(runs.read_text(encoding="utf-8").splitlines())
    assert ran == {"body checkout": BODY_RUNS[era], "step quote": 1, "step pay": 1}
