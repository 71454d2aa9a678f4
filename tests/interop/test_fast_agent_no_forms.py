"""fast-agent with its elicitation off (no capability) meets on_unsupported="ask_model".

fast-agent runs with its `passthrough` model (a message `***CALL_TOOL name {json}` calls a
tool) and `elicitation: {mode: none}` for the server, so it declares no elicitation at all,
as claude.ai does. The server (tests/servers/ask_model.py, the official SDK's) asks for an
address; fast-agent shows the listing elicitkit returns instead of a form (its text, and the
structuredContent with the ticket; a normal result, since the output schema of `ship`,
`-> str`, admits the listing with its text under `result`), and the ticket, typed back into
`answer_form` with the answers, completes the tool.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop._terminal import Terminal
from tests.interop._tools import require_fast_agent

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "servers" / "ask_model.py"
ERAS = ["auto", "legacy"]


@pytest.fixture(scope="module", params=ERAS)
def terminal(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             artifacts: Path) -> Iterator[Terminal]:  # fmt: skip
    launcher = require_fast_agent()
    era: str = request.param
    workdir = tmp_path_factory.mktemp(f"fast-agent-no-forms-{era}")
    (workdir / "fastagent.config.yaml").write_text(
        "default_model: passthrough\n"
        "logger:\n  type: none\n  progress_display: false\n"
        "mcp:\n  servers:\n    ask:\n"
        f"      command: {sys.executable}\n"
        f"      args: [{SCRIPT}, mcp]\n"
        f"      env: {{PYTHONPATH: {ROOT}}}\n"
        f"      protocol_mode: {era}\n"
        "      elicitation:\n        mode: none\n",
        encoding="utf-8",
    )
    home = workdir / "home"
    home.mkdir()
    # Wide enough that the ticket (about 460 characters) is printed on one line.
    term = Terminal(
        [
            "env", f"HOME={home}", "TERM=xterm-256color", str(launcher), "--no-update-check",
            "go", "-c", str(workdir / "fastagent.config.yaml"), "--servers", "ask",
            "--model", "passthrough",
        ],
        cwd=workdir,
        width=1000,
    )  # fmt: skip
    try:
        term.wait_screen(r"^❯\s*$", timeout=60)
        yield term
    finally:
        (artifacts / f"fast-agent-no-forms-{era}-session.txt").write_text(
            term.printed(), encoding="utf-8"
        )
        term.close()


def call(term: Terminal, tool: str, arguments: dict[str, object]) -> None:
    term.wait_screen(r"^❯\s*$")
    term.type(f"***CALL_TOOL ask__{tool} {json.dumps(arguments)}")
    term.press("Enter")


def test_the_listing_reaches_the_model_and_the_ticket_completes_the_tool(
    terminal: Terminal,
) -> None:
    listings = terminal.count_printed("needs answers from the user")
    call(terminal, "ship", {"item": "lamp"})
    terminal.wait_printed("needs answers from the user", after=listings)
    # fast-agent shows the text (cut short) and the structuredContent, which has the ticket.
    shown = terminal.wait_printed(r"'ticket': '(v1\.[A-Za-z0-9_-]{100,})'", after=listings)
    printed = terminal.printed()
    assert "Do not guess, invent or fill in answers yourself." in printed
    assert "zip_code (text, at least 4 characters, required)" in printed
    done = terminal.count_printed(r"shipped lamp to Elm 1")
    answers = {"street": "Elm 1", "zip_code": "1234"}
    call(terminal, "answer_form", {"ticket": shown.group(1), "answers": answers})
    result = terminal.wait_printed(r"shipped lamp to Elm 1 \(model, shipment #\d+\)", after=done)
    assert re.search(r"\(model, shipment #\d+\)", result.group(0))
