"""The docs' pictures of forms, some taken again from the MCP Inspector, and the site looked at.

`docs/pictures/make_pictures.py` is run as a person runs it, into a temporary folder, for one
picture of each kind of server its table runs (each picture costs an Inspector of its own,
about 6 s; the other rows differ from these only in their data, and every committed picture
is checked as a whole PNG in the quick loop, tests/test_docs_picture_markers.py). Each must
come out as a whole PNG of a form's size, with the size of the one committed under
docs/images/forms (a form that changed shows as a picture of another size: run the script
and commit). Then the site is built (`mkdocs build --strict`), served on loopback, and its
home page, three guide pages and the gallery are screenshotted at 1280 px wide in Chromium
into the interop artifacts, each with its pictures loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from docs.pictures.make_pictures import EXAMPLES, FORMS, HERE, PICTURES, Picture
from playwright.sync_api import Browser, expect

from tests.interop._inspector import TIMEOUT_MS, chromium
from tests.interop._tools import ROOT, require_inspector
from tests.png import check_form_picture

DOCS = ROOT / "docs"
# The pages looked at, in one place: the home page, four guide pages that show a form, and
# the gallery.
PAGES = ("index.md", "getting-started.md", "replay.md", "long-work.md", "url-mode.md", "gallery.md")
# The pictures taken again: one of each kind of server, and of each protocol version, that
# the table's rows run (test_the_pictures_taken_again_cover_every_kind_of_row says so).
RETAKEN = (
    "shipping-address",  # an example server that serves itself (examples/shipping.py)
    "preferences-2025-06-18",  # the docs' own server, offered 2025-06-18 through _offer.py
    "url-mode",  # the interop suite's server: a URL-mode request, no form
    "tutorial-stage4-receipt-in-task",  # a tutorial stage on 2026-07-28, asked in a task
    "gallery-choose-record",  # a page's example served by _serve.py, its list left open
)


def kind(picture: Picture) -> str:
    """What runs a row's server: the folder its script is in, or _serve.py for a page's."""
    script = picture.server.script
    if not picture.server.serves:
        return "a page's example, served by _serve.py"
    for folder, what in (
        (EXAMPLES / "tutorial", "a tutorial stage"),
        (EXAMPLES, "an example server"),
        (HERE, "a server of the docs' own"),
        (ROOT / "tests" / "interop", "the interop suite's server"),
    ):
        if script.is_relative_to(folder):
            return what
    raise AssertionError(f"{picture.name} runs {script}, of no kind this test knows.")


def test_the_pictures_taken_again_cover_every_kind_of_row() -> None:
    rows = {picture.name: picture for picture in PICTURES}
    retaken = [rows[name] for name in RETAKEN]
    assert len(retaken) <= 6  # each costs an Inspector start: the interop suite's time
    assert {kind(picture) for picture in retaken} == {kind(picture) for picture in PICTURES}
    versions = {picture.server.protocol for picture in PICTURES}
    assert {picture.server.protocol for picture in retaken} == versions


@pytest.fixture(scope="module")
def taken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pictures of RETAKEN, taken by the script into a folder of its own."""
    require_inspector()
    out = tmp_path_factory.mktemp("form-pictures")
    subprocess.run(
        [sys.executable, "-m", "docs.pictures.make_pictures", "--out", str(out), *RETAKEN],
        cwd=ROOT,
        check=True,
        timeout=300,
    )
    return out


@pytest.mark.parametrize("name", RETAKEN)
def test_the_script_takes_a_picture_of_each_kind(taken: Path, name: str) -> None:
    size = check_form_picture((taken / f"{name}.png").read_bytes())
    committed = FORMS / f"{name}.png"
    assert committed.is_file(), f"{committed} is not committed: commit what the script took."
    assert check_form_picture(committed.read_bytes()) == size, (
        f"{committed.name} is not the size of the form the script takes now: run "
        ".venv/bin/python -m docs.pictures.make_pictures and commit the pictures."
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The docs built with --strict into a temporary folder, served on loopback."""
    require_inspector()  # Chromium and Playwright, which the screenshots need
    built = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(built)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=True,
        timeout=300,
    )

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(built)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_inspector()
    with chromium() as launched:
        yield launched


def test_the_pages_at_1280_px(site: str, browser: Browser, artifacts: Path) -> None:
    pages = [page for page in PAGES if (DOCS / page).is_file()]
    assert pages == list(PAGES), f"{set(PAGES) - set(pages)} left the docs"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        tab = context.new_page()
        tab.set_default_timeout(TIMEOUT_MS)
        for page in pages:
            path = "" if page == "index.md" else page.removesuffix(".md") + "/"
            tab.goto(f"{site}/{path}")
            expect(tab.locator("article h1").first).to_be_visible()
            # Every picture on the page shown, not a broken image: loaded and of some size.
            tab.wait_for_function(
                "Array.from(document.images).every(image => image.complete)", timeout=TIMEOUT_MS
            )
            broken = tab.evaluate(
                "Array.from(document.images).filter(image => !image.naturalWidth)"
                ".map(image => image.src)"
            )
            assert broken == []
            tab.screenshot(path=artifacts / f"docs-{page.removesuffix('.md')}.png", full_page=True)
        tab.goto(f"{site}/")
        pictured = tab.locator("article img[src*='images/forms/']")
        expect(pictured.first).to_be_visible()  # the home page shows a form as a client does
    finally:
        context.close()
