"""The mcp-use Inspector's web UI, run for real and driven by a person's clicks in Chromium.

The mcp-use Inspector (`@mcp-use/inspector` on npm) speaks streamable HTTP only, so the
interop server runs over HTTP on loopback (``server.py FLAVOUR --http PORT``) and the
Inspector's page connects to it, through its own proxy where it must, with the protocol
setting of its connection form: ``Auto`` (it negotiates 2026-07-28 by itself) or
``Legacy (2025-11-25)``. Its elements carry ``data-testid`` attributes, which this driver
uses; a form field is ``elicitation-field-KEY``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.interop._inspector import _free_port, listening
from tests.interop._tools import NODE_BIN, SERVER

TIMEOUT_MS = 20_000
# The protocol settings of its connection form, by the era names of docs/clients.json.
SETTINGS = {"auto": "Auto", "legacy": "Legacy (2025-11-25)"}
# Every result the interop server returns starts with one of these words.
RESULT = re.compile(
    r"^(STAY|NO STAY|PREFS|NO PREFS|INVALID|ANSWER|NO ANSWER|TIP|NO TIP|LINK)\b", re.MULTILINE
)


@contextmanager
def running_server(flavour: str, workdir: Path) -> Iterator[str]:
    """Run the interop server of FLAVOUR over streamable HTTP; yield its MCP endpoint."""
    port = _free_port()
    log = workdir / f"server-{flavour}.log"
    argv = [sys.executable, str(SERVER), flavour, "--http", str(port)]
    with listening(argv, port, workdir, log):
        yield f"http://127.0.0.1:{port}/mcp"


@contextmanager
def running_inspector(launcher: Path, workdir: Path) -> Iterator[str]:
    """Run the mcp-use Inspector (its UI and its proxy); yield the URL of its page.

    Its anonymous usage reports are switched off; its log is kept in WORKDIR.
    """
    port = _free_port()
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "MCP_USE_ANONYMIZED_TELEMETRY": "false",
    }
    log = workdir / "mcp-use-inspector.log"
    argv = [str(NODE_BIN / "node"), str(launcher), "--port", str(port), "--no-open"]
    with listening(argv, port, workdir, log, env):
        yield f"http://127.0.0.1:{port}/inspector"


def connect(page: Page, inspector: str, server: str, era: str) -> str:
    """Connect the Inspector's page to SERVER with ERA's setting; return the protocol it shows."""
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(inspector)
    page.get_by_test_id("connection-form-url-input").fill(server)
    page.get_by_test_id("connection-form-protocol-mode-select").click()
    page.get_by_role("option", name=SETTINGS[era], exact=True).click()
    page.get_by_test_id("connection-form-connect-button").click()
    expect(page.get_by_test_id("server-tile-status-ready")).to_be_visible(timeout=TIMEOUT_MS)
    page.get_by_test_id(f"server-tile-{server}").click()
    _open_tab(page, "Server Metadata")
    shown = page.get_by_text(re.compile(r"^\d{4}-\d{2}-\d{2}$")).first
    expect(shown).to_be_visible(timeout=TIMEOUT_MS)
    return shown.inner_text().strip()


@dataclass
class Form:
    """A form the Inspector shows for one tool call, and what that tool showed before it."""

    page: Page
    before: str  # the tool's previous result on this page ("" for none)

    def field(self, key: str) -> Locator:
        """The input of the field whose wire key is KEY."""
        return self.page.get_by_test_id(f"elicitation-field-{key}")

    def button(self, name: str) -> Locator:
        """The Accept, Decline or Cancel button."""
        return self.page.get_by_test_id(f"elicitation-{name.lower()}-button")

    def text(self, text: str, *, exact: bool = True) -> Locator:
        """Text shown in the form (its message, a link); all of it, or in it.

        The toast that announced the form may show the same text: the form's comes first.
        """
        return self.page.get_by_text(text, exact=exact).first


def call_tool(page: Page, tool: str) -> Form:
    """Run TOOL from the Tools tab and open the form it asks.

    The result panel keeps each tool's latest result; the one shown before the call is
    kept, so that `result` waits for this call's. (No test sends one tool the same answer
    twice on one page, so this call's result always differs from the one before.)
    """
    _open_tab(page, "Tools")
    page.get_by_test_id(f"tool-item-{tool}").click()
    shown = page.get_by_test_id(_TEXT)
    before = shown.inner_text().strip() if shown.count() else ""
    page.get_by_test_id("tool-execution-execute-button").click()
    return next_form(page, before)


def next_form(page: Page, before: str) -> Form:
    """Open the form the Inspector announces (in a toast), on the Elicitation tab.

    The toast's View Details selects the request and shows the Elicitation tab, but sets
    the tab without writing it into the page's address, which still says ``tab=tools``.
    The Inspector's router commits address changes as React transitions and then sets the
    tab from the address; on a loaded machine the commit of an earlier click (Tools) can
    land after View Details and switch the tab back while the form is being filled (its
    fields then are "not visible"). Opening the tab from the sidebar too, as a person does
    when the tab jumps away, writes the tab into the address, so the last commit agrees.
    """
    page.get_by_test_id("elicitation-toast-view-details").last.click()
    _open_tab(page, "Elicitation")
    expect(page.get_by_test_id("elicitation-accept-button")).to_be_visible(timeout=TIMEOUT_MS)
    return Form(page, before)


def decline_every_request(page: Page) -> None:
    """Decline every request still listed on the Elicitation tab (a failed test's).

    A request left open keeps its tool call running, and a running call hides the Execute
    button that every later test on the page needs.
    """
    _open_tab(page, "Elicitation")
    listed = page.locator("[data-testid^='elicitation-request-item-']")
    for left in range(listed.count(), 0, -1):
        page.get_by_test_id("elicitation-request-item-0").click()
        page.get_by_test_id("elicitation-decline-button").click()
        expect(listed).to_have_count(left - 1, timeout=TIMEOUT_MS)


def result(form: Form) -> str:
    """Wait for the result of the tool call that showed FORM and return its text."""
    page = form.page
    _open_tab(page, "Tools")
    shown = page.get_by_test_id(_TEXT)
    expect(shown).to_have_text(RESULT, timeout=TIMEOUT_MS)
    if form.before:
        expect(shown).not_to_have_text(form.before, timeout=TIMEOUT_MS)
    return shown.inner_text().strip()


def outcome(form: Form) -> str:
    """Wait for the tool result, or the error the Inspector shows instead; return it.

    An error is told as the interop suite tells a call that fails inside the client:
    ``the call fails in the client: MESSAGE``.
    """
    page = form.page
    _open_tab(page, "Tools")
    shown = page.get_by_test_id(_TEXT)
    failed = page.get_by_test_id("tool-result").get_by_text(re.compile(r"^Error:"))
    fresh = shown.filter(has_not_text=form.before) if form.before else shown
    expect(fresh.or_(failed).first).to_be_visible(timeout=TIMEOUT_MS)
    if failed.count():
        said = failed.first.locator("xpath=..").inner_text().strip()
        return "the call fails in the client: " + said.removeprefix("Error:").strip()
    return shown.inner_text().strip()


def _open_tab(page: Page, name: str) -> None:
    """Show the tab NAME from the sidebar (which writes it into the page's address too)."""
    page.get_by_role("button", name=name, exact=True).click()


_TEXT = "tool-execution-results-text-content"
