"""The README's demo command works: real subprocesses, exit status 0, the promised transcript."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

DEMO = [sys.executable, "-m", "elicitkit", "demo"]
TYPED = (
    "The tool saw ShippingAddress(name='Ada Lovelace', street=\"12 St James's Square\", "
    "city='London', zip_code='SW1Y 4JH', speed=<Speed.EXPRESS: 'express'>, floor=None) and "
    "confirmed=True."
)


def run(command: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_demo_command_with_the_scripted_user() -> None:
    done = run(DEMO)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    # stdin is /dev/null here: the line says why a script answers.
    assert "User: a script (stdin is not a terminal, so nobody can type answers here)\n" in out
    legacy, modern = out.split("=== MCP 2026-07-28 (stateless era)")
    assert "=== MCP 2025-11-25 (handshake era)" in legacy
    assert "(the server sends elicitation/create in the middle of the call)" in legacy
    assert legacy.count('the client shows a form: "Where should we ship your order?"') == 1
    assert legacy.count('the client shows a form: "Ship a teapot to London (express)?"') == 1
    assert f"<- result: Shipped a teapot. {TYPED}" in legacy
    # 2026-07-28: two questions, so three rounds; each question shown exactly once.
    for line in (
        "round 1: the tool stopped at a question; result input_required",
        "round 2: the tool stopped at a question; result input_required",
        "round 3: the tool ran to the end",
    ):
        assert line in modern
    assert modern.count("the client shows a form:") == 2
    assert "question key shipping_address#1" in modern
    assert "question key bool#1" in modern
    assert f"<- result: Shipped a teapot. {TYPED}" in modern
    assert "requestedSchema" not in out  # the raw JSON only on request: --schema


def test_demo_shows_the_schema_with_the_flag() -> None:
    done = run([*DEMO, "--schema"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("     requestedSchema: {") == 4  # two forms on each era
    assert '"speed": {"type": "string", "title": "Speed", "oneOf": [' in done.stdout


# A person answering at a terminal: tests/test_terminal_pty.py (a real pseudo-terminal).
