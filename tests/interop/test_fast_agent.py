"""fast-agent's terminal forms in a real pseudo-terminal, on both protocol eras, by keystrokes.

fast-agent runs with its `passthrough` model (no LLM: a message `***CALL_TOOL name {json}`
calls the tool) and starts the interop server over stdio, both flavours of it: with
`protocol_mode` left at `auto` it speaks 2026-07-28, with `legacy` 2025-11-25. One
fast-agent session per era serves every test of that era; each test calls a tool, fills the
form with keystrokes and checks the result fast-agent prints.

The tests of what a person fills in, declines, cancels or gets told also run against the
fastmcp flavour of the server (`both_flavours`): the same keystrokes must give the same
results and the same observations; the other tests run on the official SDK's server only
(`mcp_only`).
"""

from __future__ import annotations

import ast
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop._facts import Observe
from tests.interop._terminal import Terminal
from tests.interop._tools import FLAVOURS, SERVER, both_flavours, mcp_only, require_fast_agent

CLIENT = "fast-agent"
ERAS = ["auto", "legacy"]
RESULT = r"\{\s*'result': (?:'[^'\n]*'|\"[^\"\n]*\")\s*\}"


class FastAgent:
    """A fast-agent session a test talks to through its terminal, and the server it calls."""

    def __init__(self, terminal: Terminal, era: str, flavour: str, artifacts: Path) -> None:
        self.terminal = terminal
        self.era = era
        self.flavour = flavour
        self.artifacts = artifacts

    def call(self, tool: str) -> None:
        """Call TOOL and wait for its form."""
        forms = self.terminal.count_printed("Elicitation Request")
        self.terminal.wait_screen(r"^❯\s*$")  # the prompt is ready for a message
        self.terminal.type(f"***CALL_TOOL {self.flavour}__{tool} {{}}")
        self.terminal.press("Enter")
        self.terminal.wait_printed("Elicitation Request", after=forms)
        self.terminal.wait_screen(r"<\s*Accept\s*>")

    def shoot(self, name: str) -> str:
        """Save the screen as a text artifact and return it."""
        time.sleep(0.5)  # let the form redraw after the last keystroke
        screen = self.terminal.screen()
        path = self.artifacts / f"fast-agent-{self.flavour}-{self.era}-{name}.txt"
        path.write_text(screen, encoding="utf-8")
        return screen

    def submit(self, *keys: str) -> str:
        """Press KEYS (which end the form) and return the tool result fast-agent prints."""
        before = self.terminal.count_printed(RESULT)
        self.terminal.press(*keys)
        printed = self.terminal.wait_printed(RESULT, after=before).group(0)
        return str(ast.literal_eval(printed)["result"])


@pytest.fixture(scope="module", params=ERAS)
def session(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    artifacts: Path,
    observe: Observe,
) -> Iterator[tuple[str, Terminal]]:
    """(era, terminal) of one fast-agent session on that era, with both flavours' servers.

    The servers are named after their flavour, so a tool is called as `mcp__plan_stay` or
    `fastmcp__plan_stay`: one session serves both, which halves the seconds spent starting
    fast-agent.
    """
    launcher = require_fast_agent()
    era: str = request.param
    workdir = tmp_path_factory.mktemp(f"fast-agent-{era}")
    servers = "".join(
        f"    {flavour}:\n"
        f"      command: {sys.executable}\n"
        f"      args: [{SERVER}, {flavour}]\n"
        f"      protocol_mode: {era}\n"
        for flavour in FLAVOURS
    )
    (workdir / "fastagent.config.yaml").write_text(
        "default_model: passthrough\n"
        "logger:\n  type: none\n  progress_display: false\n"
        f"mcp:\n  servers:\n{servers}",
        encoding="utf-8",
    )
    home = workdir / "home"
    home.mkdir()
    terminal = Terminal(
        [
            "env", f"HOME={home}", "TERM=xterm-256color", str(launcher), "--no-update-check",
            "go", "-c", str(workdir / "fastagent.config.yaml"), "--servers", ",".join(FLAVOURS),
            "--model", "passthrough",
        ],
        cwd=workdir,
    )  # fmt: skip
    try:
        terminal.wait_screen(r"^❯\s*$", timeout=60)
        terminal.type("/mcp")
        terminal.press("Enter")
        for flavour in FLAVOURS:
            # Each server's card: "[ 1] mcp ───…", its name line, then "protocol : …".
            shown = terminal.wait_printed(
                rf"\] {flavour} ─[^\[]*?protocol\s*:\s*(\d{{4}}-\d{{2}}-\d{{2}})", after=0
            )
            observe(CLIENT, era, "protocol", shown.group(1))
        yield era, terminal
    finally:
        (artifacts / f"fast-agent-{era}-session.txt").write_text(
            terminal.printed(), encoding="utf-8"
        )
        terminal.close()


@pytest.fixture
def fast_agent(session: tuple[str, Terminal], flavour: str, artifacts: Path) -> FastAgent:
    """The era's fast-agent session, calling the tools of the server of that flavour."""
    era, terminal = session
    return FastAgent(terminal, era, flavour, artifacts)


def fill_stay(fa: FastAgent, guest: str, day: str) -> None:
    term = fa.terminal
    term.type(guest)
    term.press("Tab")
    term.type("3")
    term.press("Tab", "Down", "Space", "Tab")  # cabin: the second option
    term.press("Space", "Down", "Down", "Space", "Tab")  # extras: the first and third
    term.type(day)
    term.press("Tab", "Space")  # insured: ticked


@both_flavours
def test_every_widget_filled_by_keystrokes(fast_agent: FastAgent) -> None:
    fast_agent.call("plan_stay")
    fill_stay(fast_agent, "Ada Lovelace", "2026-12-24")
    fast_agent.shoot("plan_stay-filled")
    assert fast_agent.submit("Tab", "Enter") == (
        "STAY guest=Ada Lovelace nights=3 cabin=garden extras=breakfast,late "
        "day=2026-12-24 insured=True"
    )


@both_flavours
def test_decline_reaches_the_tool(fast_agent: FastAgent) -> None:
    fast_agent.call("plan_stay")
    # Six fields, then the buttons Accept, Decline, Cancel.
    assert fast_agent.submit(*["Tab"] * 7, "Enter") == "NO STAY: decline"


@both_flavours
def test_cancel_reaches_the_tool(fast_agent: FastAgent) -> None:
    fast_agent.call("plan_stay")
    assert fast_agent.submit("Escape") == "NO STAY: cancel"


@both_flavours
def test_invalid_value_is_reported_per_field(fast_agent: FastAgent, observe: Observe) -> None:
    fast_agent.call("plan_stay")
    fill_stay(fast_agent, "Ada Lovelace", "20261224")  # digits only: not YYYY-MM-DD
    fast_agent.shoot("plan_stay-invalid")
    text = fast_agent.submit("Tab", "Enter")
    observe(CLIENT, fast_agent.era, "checks_date_format", not text.startswith("INVALID"))
    assert text == "INVALID day: Expected a date like 2024-12-31, got '20261224'."


@mcp_only
@pytest.mark.parametrize(("keys", "expected"), [((), "ANSWER False"), (("Space",), "ANSWER True")])
def test_yes_no_is_one_step_either_way(
    fast_agent: FastAgent, observe: Observe, keys: tuple[str, ...], expected: str
) -> None:
    fast_agent.call("yes_or_no")
    fast_agent.terminal.press(*keys)
    fast_agent.shoot(f"yes_or_no-{'ticked' if keys else 'untouched'}")
    text = fast_agent.submit("Tab", "Enter")
    if not keys:
        observe(CLIENT, fast_agent.era, "bare_bool_submit_enabled_untouched", text == expected)
    assert text == expected


@mcp_only
def test_exclusive_bound_is_said_in_words(fast_agent: FastAgent, observe: Observe) -> None:
    fast_agent.call("tip")
    fast_agent.terminal.type("0")
    screen = fast_agent.shoot("tip-bound")
    assert re.search(r"Tip \* - In euros\. Must be more than 0\. \(min 0, max 50\)", screen)
    text = fast_agent.submit("Enter")
    observe(CLIENT, fast_agent.era, "sends_exclusive_bound_itself", text.startswith("INVALID"))
    assert text == "INVALID value: Must be greater than 0."


@mcp_only
def test_optional_fields_left_alone(fast_agent: FastAgent, observe: Observe) -> None:
    fast_agent.call("preferences")
    fast_agent.shoot("preferences-untouched")
    # Five fields, then Accept.
    observe(
        CLIENT, fast_agent.era, "untouched_optional_form", fast_agent.submit(*["Tab"] * 5, "Enter")
    )


@mcp_only
def test_short_text_is_stopped_in_the_form(fast_agent: FastAgent, observe: Observe) -> None:
    fast_agent.call("plan_stay")
    fill_stay(fast_agent, "A", "2026-12-24")  # the guest's name needs at least 2 characters
    results = fast_agent.terminal.count_printed(RESULT)
    fast_agent.terminal.press("Tab", "Enter")
    try:
        fast_agent.terminal.wait_screen(r"Error: 'Guest': Need 1 more char", timeout=15)
    except AssertionError:
        stopped = False
    else:
        stopped = True
    fast_agent.shoot("plan_stay-short-text")
    observe(CLIENT, fast_agent.era, "checks_min_length", stopped)
    assert fast_agent.terminal.count_printed(RESULT) == results  # nothing was sent
    assert fast_agent.submit("Escape") == "NO STAY: cancel"
