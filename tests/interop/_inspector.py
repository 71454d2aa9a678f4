"""The MCP Inspector's web UI, run for real and driven by a person's clicks in Chromium."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from tests.interop._tools import CHROMIUM, NODE_BIN, SERVER

TIMEOUT_MS = 20_000
TOOLS = ("plan_stay", "preferences", "yes_or_no", "tip")  # the interop server's tools
# Every result the interop server returns starts with one of these words.
RESULT = re.compile(r"^(STAY|NO STAY|PREFS|NO PREFS|INVALID|ANSWER|NO ANSWER|TIP|NO TIP)\b")
# How the Inspector words a failed tool call: the server's error text, or its own.
FAILURE = re.compile(r"^(Error executing tool|Protocol value failed)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running_inspector(
    launcher: Path, era: str, workdir: Path, server: Path = SERVER, *server_args: str
) -> Iterator[str]:
    """Run `mcp-inspector --web --protocol-era ERA` on a stdio server; yield its URL.

    The server is `python SERVER SERVER_ARGS...`.

    The Inspector and every server it spawns share a new process group, which is ended on
    exit. Its log is kept in WORKDIR.
    """
    client_port, sandbox_port = _free_port(), _free_port()
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),  # its settings and secret store stay out of the real home
        "CLIENT_PORT": str(client_port),
        "SERVER_PORT": str(sandbox_port),
        "MCP_AUTO_OPEN_ENABLED": "false",
        "DANGEROUSLY_OMIT_AUTH": "true",  # loopback only, for one test session
        "MCP_INSPECTOR_SECRET_STORE": "memory",
    }
    argv = [str(launcher), "--web", "--protocol-era", era, sys.executable, str(server)]
    log = workdir / f"inspector-{era}.log"
    with listening([*argv, *server_args], client_port, workdir, log, env):
        yield f"http://127.0.0.1:{client_port}"


@contextmanager
def listening(
    argv: list[str], port: int, workdir: Path, log: Path, env: dict[str, str] | None = None
) -> Iterator[None]:
    """Run ARGV in WORKDIR, in a new process group, until it listens on PORT on loopback.

    Its output goes to LOG; on exit the whole group is ended.
    """
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            cwd=workdir,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        _wait_for_port(port, process, log)
        yield
    finally:
        _end_group(process)


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Chromium (the one at CHROMIUM) for the web clients' tests."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


@contextmanager
def new_page(browser: Browser) -> Iterator[Page]:
    """A fresh tab in a context of its own, closed on exit."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        yield context.new_page()
    finally:
        context.close()


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"The Inspector exited early:\n{log.read_text(errors='replace')}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"The Inspector did not listen within 60 s:\n{log.read_text()}")


def _end_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    # Servers the Inspector spawned may outlive it; they are in the same group.
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def connect(page: Page, url: str) -> str:
    """Open the Inspector, switch the server on, and return the protocol version it shows."""
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    page.locator(".mantine-Switch-track").first.click()  # the on/off switch of the server
    expect(page.get_by_text("Connected", exact=True)).to_be_visible(timeout=TIMEOUT_MS)
    shown = page.get_by_text(re.compile(r"^MCP \d{4}-\d{2}-\d{2}$")).first.inner_text()
    return shown.removeprefix("MCP ")


def call_tool(page: Page, tool: str) -> Locator:
    """Run a tool from the Tools tab and return the elicitation dialog it opens.

    The page may still show the result of an earlier call: selecting another tool first
    empties the Results panel, so the result read afterwards is this call's. (Two others,
    in turn: one of them may be the tool already selected.)
    """
    page.get_by_text("Tools", exact=True).click()
    for other in (name for name in TOOLS if name != tool):
        tool_button(page, other).click()
    expect(page.get_by_text(RESULT)).to_have_count(0, timeout=TIMEOUT_MS)
    expect(page.get_by_text(FAILURE)).to_have_count(0, timeout=TIMEOUT_MS)
    tool_button(page, tool).click()
    page.get_by_role("button", name="Execute Tool").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("Elicitation Request")).to_be_visible(timeout=TIMEOUT_MS)
    return dialog


def tool_button(page: Page, tool: str) -> Locator:
    """The button of a tool in the Tools tab: its name, under its title if it has one."""
    return page.get_by_role("button", name=re.compile(rf"(^|\s){re.escape(tool)}$"))


def pick(page: Page, dialog: Locator, field: str, *options: str) -> None:
    """Choose options in a select or multi-select by clicking them, then close the list."""
    box = dialog.locator(".mantine-InputWrapper-root").filter(
        has=page.locator("label", has_text=re.compile(rf"^{re.escape(field)}\b"))
    )
    box.locator(".mantine-Input-input").click()
    for option in options:
        page.get_by_role("option", name=option, exact=True).click()
    dialog.get_by_text("Elicitation Request").click()  # click outside: the list closes


def result(page: Page, pattern: re.Pattern[str] = RESULT) -> str:
    """Wait for the tool result the Inspector shows and return its text."""
    shown = page.get_by_text(pattern).first
    expect(shown).to_be_visible(timeout=TIMEOUT_MS)
    return shown.inner_text().strip()


def outcome(page: Page) -> str:
    """Wait for the tool result or the Inspector's tool error, and return its text."""
    shown = page.get_by_text(RESULT).or_(page.get_by_text(FAILURE)).first
    expect(shown).to_be_visible(timeout=TIMEOUT_MS)
    return shown.inner_text().strip()
