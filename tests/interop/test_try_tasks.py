"""``elicitkit try`` follows a task in a real terminal (tmux), typed into as a person would.

``try`` starts tests/servers/try_tasks.py over stdio (it suggests polling every 50 ms) and
speaks 2026-07-28 with the Tasks extension: ``render`` asks a question in the call, becomes a
task, shows its status, asks a question inside the task (through ``tasks/get``, answered
through ``tasks/update``) and ends with its result; ``work`` runs until Ctrl-C, which sends
``tasks/cancel`` and ends the command with status 130. Every wait is for what the terminal
shows or printed, within a bound for a run that went wrong.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop._terminal import Terminal
from tests.interop._tools import ROOT, require_tmux

SERVER = f"{sys.executable} {ROOT / 'tests' / 'servers' / 'try_tasks.py'} 0.05"
TASK_LINE = r"\.\. task ([\w-]+): the call goes on as a task \(Ctrl-C cancels it\)\."


@pytest.fixture
def start(
    request: pytest.FixtureRequest, tmp_path: Path, artifacts: Path
) -> Iterator[list[Terminal]]:
    """Start ``elicitkit try SERVER ARGS`` in a terminal; its transcript kept as an artifact."""
    require_tmux("elicitkit try runs in")
    started: list[Terminal] = []
    yield started
    for term in started:
        name = f"try-tasks-{request.node.name}.txt"
        (artifacts / name).write_text(term.printed(), encoding="utf-8")
        term.close()


def run_try(started: list[Terminal], cwd: Path, *args: str) -> Terminal:
    """Start ``elicitkit try SERVER ARGS``; bash prints its exit status after it.

    Not tmux's own record of it: tmux 3.3a now and then leaves the exited program a zombie
    and its pane alive. bash waits for a command that a Ctrl-C ended by exiting (130), not
    by the signal, and goes on to the echo.
    """
    command = [sys.executable, "-m", "elicitkit", "try", SERVER, *args]
    term = Terminal(
        ["bash", "-c", '"$@"; echo "[exit status $?]"', "bash", *command],
        cwd=cwd,
        width=160,
        height=40,
    )
    started.append(term)
    return term


def exit_status(term: Terminal) -> int:
    return int(term.wait_printed(r"\[exit status (\d+)\]", after=0).group(1))


def fill_in(term: Terminal, question: str, field: str, answer: str) -> None:
    """Wait for QUESTION's form, fill it in (y), type ANSWER into FIELD and press Enter."""
    term.wait_printed(question, after=0)
    term.wait_screen(r"\[Enter/y\] fill in")
    term.type("y")
    term.wait_screen(rf"^\s*{field}:")
    term.type(answer)
    term.press("Enter")


def test_a_task_asks_in_the_task_and_ends_with_its_result(
    start: list[Terminal], tmp_path: Path
) -> None:
    term = run_try(start, tmp_path, "--tool", "render", "--args", '{"title": "Q3"}')
    term.wait_printed(r"Connected: MCP 2026-07-28\.", after=0)
    fill_in(term, r"Who is the report for\?", "Name", "Ada")
    term.wait_printed(TASK_LINE, after=0)
    term.wait_printed(r"\.\. Rendering Q3", after=0)
    fill_in(term, r"Q3 is rendered\. How many copies\?", "Copies", "3")
    term.wait_printed(r"<- result: REPORT Q3 for Ada: 3 copies, as a task\.", after=0)
    assert exit_status(term) == 0
    assert term.count_printed(r"\.\. Rendering Q3") == 1  # once, however many polls saw it


def test_ctrl_c_in_a_task_cancels_it_and_ends_the_command(
    start: list[Terminal], tmp_path: Path
) -> None:
    term = run_try(start, tmp_path, "--tool", "work", "--args", "{}")
    task = term.wait_printed(TASK_LINE, after=0).group(1)
    term.wait_printed(r"\.\. Working", after=0)
    term.press("C-c")
    term.wait_printed(
        rf"\.\. task {task}: cancelled \(the server took the tasks/cancel\)\.\n\nInterrupted\.",
        after=0,
    )
    assert exit_status(term) == 130
    assert "Traceback" not in term.printed()
