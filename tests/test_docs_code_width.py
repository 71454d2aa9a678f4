"""Code blocks on the docs site fit the page at 1280 px: nothing runs past a block's edge.

Builds the site with ``mkdocs build --strict`` and opens its pages in Chromium (Debian's, the
one the interop suite drives) through Playwright at 1280 x 800, the width a reader reported
the blocks cut at. Every ``pre > code`` must show all of its text without scrolling.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
CHROMIUM = Path(os.environ.get("ELICITKIT_CHROMIUM", "/usr/bin/chromium"))
PAGES = ["getting-started", "asking", "testing", "wire-reference", "recipes", "api", "http"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, starts_processes: None) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        message = f"Chromium is not installed at {CHROMIUM} (Debian package 'chromium')."
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI is set, so .ci/setup should have installed it.)")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (the dev extra)

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


# For each code block cut at its edge: the page's block number and the start of its text.
OVERFLOWING = """
() => [...document.querySelectorAll("pre > code")]
    .map((code, index) => [index, code.scrollWidth - code.clientWidth, code.innerText])
    .filter(([, hidden]) => hidden > 1)
    .map(([index, hidden, text]) => `block ${index}: ${hidden} px hidden: ${text.slice(0, 60)}`)
"""


@pytest.mark.parametrize("page", PAGES)
def test_no_code_block_is_cut_at_1280_px(site: Path, browser: object, page: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})  # type: ignore[attr-defined]
    try:
        tab = context.new_page()
        tab.goto((site / page / "index.html").as_uri())
        blocks = tab.evaluate("document.querySelectorAll('pre > code').length")
        assert blocks > 0, f"{page} has no code block to check"
        assert tab.evaluate(OVERFLOWING) == []
    finally:
        context.close()
