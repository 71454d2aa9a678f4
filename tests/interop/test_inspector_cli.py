"""The MCP Inspector's `--cli` mode: the suite's client without elicitation, one process a call.

`mcp-inspector --cli` makes one request per run and exits; it declares no elicitation. The
server is tests/servers/zero_config.py, which configures nothing (``install()`` bare, with
``on_unsupported="ask_model"``): its `trip` tool asks how many seats, reserves them, asks to
confirm and pays, each effect a row in the test's ledger. The questions come back as the
`ask_model` listing, a normal result with the ticket; `answer_form` with the ticket and the
answers goes on, and a third `answer_form` with the last ticket gets the recorded outcome:
one reservation, one payment.

Over HTTP one server (uvicorn on loopback) serves every run. Over stdio each run starts a
server of its own, so the dialogue lives only in the default SQLite records and the key file
beside them (docs/records.md), which every one of those processes finds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.interop._inspector import _free_port, listening  # pyright: ignore[reportPrivateUsage]
from tests.interop._ledger import count, round_pids, ticket
from tests.interop._tools import NODE_BIN, ROOT, require_inspector_cli

ZERO_CONFIG = ROOT / "tests" / "servers" / "zero_config.py"
# (flavour, the Inspector's --protocol-era: legacy speaks 2025-11-25, modern 2026-07-28).
# Three cells of four on each transport, each flavour and each era at least once, since
# every Inspector run is a Node start (and over stdio a Python server's): the fourth cell
# cost 15 to 20 s of the suite's 30 minutes. tests/test_records_default.py covers both SDKs
# on a server per call with the SDK's client.
HTTP_CELLS = [("mcp", "legacy"), ("mcp", "modern"), ("fastmcp", "modern")]
STDIO_CELLS = [("mcp", "legacy"), ("mcp", "modern"), ("fastmcp", "legacy")]
TIMEOUT = 120  # one Node start and, over stdio, one Python server's; on a busy machine


class InspectorCli:
    """Runs `mcp-inspector --cli` once per call against one target (a URL, or a command)."""

    def __init__(self, launcher: Path, era: str, target: list[str], home: Path) -> None:
        self.launcher = launcher
        self.era = era
        self.target = target
        self.env = {
            **os.environ,
            "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(home),  # its catalog (~/.mcp-inspector) stays out of the real home
        }

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call TOOL in a run of its own; the tool result it printed."""
        done = subprocess.run(
            [
                str(self.launcher), "--cli", "--protocol-era", self.era, "--format", "json",
                "-q", "--method", "tools/call", "--tool-name", tool,
                "--tool-args-json", json.dumps(arguments), *self.target,
            ],
            capture_output=True, text=True, env=self.env, timeout=TIMEOUT, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        result: dict[str, Any] = json.loads(done.stdout)["result"]
        return result

    def trip(self, item: str) -> list[dict[str, Any]]:
        """Ask for a trip, answer both questions through `answer_form`, then resend the last."""
        listing = self.call("trip", {"item": item})
        assert f"Question: How many seats for {item}?" in text(listing)
        confirm = self.call("answer_form", {"ticket": ticket(listing), "answers": {"count": 2}})
        assert "Question: Pay for reservation 1?" in text(confirm)
        last = {"ticket": ticket(confirm), "answers": {"ok": True}}
        return [self.call("answer_form", last), self.call("answer_form", last)]


def text(result: dict[str, Any]) -> str:
    [block] = result["content"]
    return str(block["text"])


def server_env(flavour: str, ledger: Path) -> dict[str, str]:
    return {
        "SERVER_SDK": flavour,
        "LEDGER": str(ledger),
        "PYTHONPATH": str(ROOT),
        # The run's own state folder (tests/conftest.py): where the default records go.
        "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
    }


@pytest.mark.parametrize(("flavour", "era"), HTTP_CELLS, indirect=["flavour"])
def test_over_http_the_listing_is_answered_once(flavour: str, era: str, tmp_path: Path) -> None:
    launcher = require_inspector_cli()
    ledger = tmp_path / "ledger.sqlite3"
    port = _free_port()
    app = "tests.servers.zero_config:app"
    argv = [sys.executable, "-m", "uvicorn", app, "--port", str(port)]
    env = {**os.environ, **server_env(flavour, ledger)}
    with listening(argv, port, ROOT, tmp_path / "server.log", env):
        cli = InspectorCli(launcher, era, [f"http://127.0.0.1:{port}/mcp"], tmp_path)
        paid, again = cli.trip("oslo")
    assert text(paid) == text(again) == "oslo: 2 seats, reservation 1, receipt 1"
    assert (count(ledger, "oslo", "reserve"), count(ledger, "oslo", "pay")) == (1, 1)


@pytest.mark.parametrize(("flavour", "era"), STDIO_CELLS, indirect=["flavour"])
def test_over_stdio_a_server_per_call_answers_once(flavour: str, era: str, tmp_path: Path) -> None:
    launcher = require_inspector_cli()
    ledger = tmp_path / "ledger.sqlite3"
    # The Inspector passes a server only the variables given with -e.
    variables = [
        part
        for name, value in server_env(flavour, ledger).items()
        for part in ("-e", f"{name}={value}")
    ]
    target = [*variables, "--", sys.executable, str(ZERO_CONFIG), "stdio"]
    paid, again = InspectorCli(launcher, era, target, tmp_path).trip("bergen")
    assert text(paid) == text(again) == "bergen: 2 seats, reservation 1, receipt 1"
    assert (count(ledger, "bergen", "reserve"), count(ledger, "bergen", "pay")) == (1, 1)
    # Three runs ran the tool, each in a server process of its own (the fourth got the
    # recorded outcome without running it).
    assert len(round_pids(ledger, "bergen")) == count(ledger, "bergen", "round") == 3
