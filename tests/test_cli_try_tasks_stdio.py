"""``elicitkit try`` follows a task over stdio, typed into a real pseudo-terminal.

The command runs as a person runs it (``python -m elicitkit try``, under pexpect), against
tests/servers/try_tasks.py as a real stdio server process that suggests polling every 50 ms.
Each step waits for what the terminal shows (pexpect's bound is for a run that went wrong),
never for time to pass. The same flows in memory, on an injected clock, are
tests/test_cli_try_tasks.py.
"""

from __future__ import annotations

import io
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.servers.try_tasks import BACKEND_DOWN
from tests.test_terminal_pty import CONTROL, ENTER, TIMEOUT

REPO = Path(__file__).resolve().parent.parent
SERVER = f"{sys.executable} tests/servers/try_tasks.py 0.05"
TASK_LINE = re.compile(r"\.\. task ([\w-]+): the call goes on as a task \(Ctrl-C cancels it\)\.")


@pytest.fixture
def spawn(starts_processes: None) -> Iterator[list[pexpect.spawn]]:
    children: list[pexpect.spawn] = []
    yield children
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def _as_at_a_terminal() -> None:
    # A runner started in the background (CI) ignores SIGINT, and a child inherits that.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def try_(children: list[pexpect.spawn], *args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "elicitkit", "try", SERVER, *args],
        cwd=str(REPO),
        env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"},
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 200),
        preexec_fn=_as_at_a_terminal,
    )
    child.logfile_read = io.StringIO()
    children.append(child)
    return child


def finish(child: pexpect.spawn) -> tuple[str, int]:
    """Wait for the end; return everything it printed (as text) and its exit status."""
    child.expect(pexpect.EOF)
    child.close()
    transcript = child.logfile_read
    assert isinstance(transcript, io.StringIO)
    assert child.exitstatus is not None, f"killed by signal {child.signalstatus}"
    return CONTROL.sub("", transcript.getvalue()), child.exitstatus


def answer_the_name(child: pexpect.spawn) -> None:
    child.expect("Who is the report for?")
    child.expect("fill in")
    child.send("y")
    child.expect("Name:")
    child.send("Ada" + ENTER)


def test_a_task_shows_its_status_asks_in_the_task_and_ends_with_its_result(
    spawn: list[pexpect.spawn],
) -> None:
    child = try_(spawn, "--tool", "render", "--args", '{"title": "Q3"}')
    answer_the_name(child)
    child.expect(TASK_LINE)
    child.expect(r"\.\. Rendering Q3")
    child.expect("Q3 is rendered. How many copies?")  # in the task: tasks/get showed it
    child.expect("fill in")
    child.send("y")
    child.expect("Copies:")
    child.send("3" + ENTER)  # answered through tasks/update
    seen, status = finish(child)
    assert "<- result: REPORT Q3 for Ada: 3 copies, as a task." in seen
    assert seen.count(".. Rendering Q3") == 1  # once, however many polls saw it
    assert status == 0


def test_a_failed_task_ends_the_call_with_its_error(spawn: list[pexpect.spawn]) -> None:
    seen, status = finish(try_(spawn, "--tool", "job", "--args", "{}"))
    assert TASK_LINE.search(seen)
    assert seen.endswith(f".. Running the job\n<- task failed: {BACKEND_DOWN} (code -32001)\n")
    assert status == 1


@pytest.mark.parametrize(
    ("option", "version"),
    [(("--no-tasks",), "2026-07-28"), (("--protocol", "2025-11-25"), "2025-11-25")],
    ids=["no-tasks", "2025-11-25"],
)
def test_without_the_extension_the_tool_runs_in_the_call(
    spawn: list[pexpect.spawn], option: tuple[str, ...], version: str
) -> None:
    child = try_(spawn, "--tool", "render", "--args", '{"title": "Q3"}', *option)
    child.expect(f"Connected: MCP {version}.")
    answer_the_name(child)
    child.expect("Q3 is rendered. How many copies?")  # asked in the call
    child.expect("fill in")
    child.send("y")
    child.expect("Copies:")
    child.send("3" + ENTER)
    seen, status = finish(child)
    assert "<- result: REPORT Q3 for Ada: 3 copies, in the call." in seen
    assert ".. task" not in seen
    assert status == 0


def test_ctrl_c_during_a_task_sends_tasks_cancel_then_interrupts(
    spawn: list[pexpect.spawn],
) -> None:
    child = try_(spawn, "--tool", "work", "--args", "{}")
    child.expect(TASK_LINE)
    task = child.match.group(1)
    child.expect(r"\.\. Working")
    child.sendintr()  # cooked mode: SIGINT, as a person's Ctrl-C
    seen, status = finish(child)
    # Printed once the server answered the tasks/cancel.
    assert f".. task {task}: cancelled (the server took the tasks/cancel).\n\nInterrupted." in seen
    assert "Traceback" not in seen
    assert status == 130
