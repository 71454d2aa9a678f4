"""Ctrl-C at any moment of the command line leaves with one line, never a traceback.

The first moment, while ``python -m elicitkit`` imports the package, comes before any of the
command line's code: `elicitkit._interrupt` covers it, for the CLI's process only. It is
checked in a fresh interpreter that raises the interrupt itself (deterministic), and with a
real Ctrl-C through a pseudo-terminal at several moments of the demo's start.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.python_child import run_python

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "started",
    [
        # What `python -m elicitkit demo` looks like to the package while it imports.
        pytest.param(
            'sys.orig_argv = [sys.executable, "-X", "utf8", "-m", "elicitkit", "demo"]',
            id="python-m",
        ),
        # The console script: `from elicitkit.cli.main import main` in bin/elicitkit.
        pytest.param(
            'sys.orig_argv = [sys.executable, "/venv/bin/elicitkit", "demo"]; '
            'sys.argv = ["/venv/bin/elicitkit", "demo"]',
            id="console-script",
        ),
    ],
)
def test_an_interrupt_while_the_cli_imports_the_package_is_one_line(started: str) -> None:
    done = run_python(
        f"""
        import sys
        {started}
        import elicitkit
        raise KeyboardInterrupt
        """
    )
    assert done.stderr == "\nInterrupted.\n"
    assert done.returncode == -signal.SIGINT  # Python still ends as killed by the Ctrl-C


def test_a_program_that_imports_elicitkit_keeps_its_own_traceback() -> None:
    done = run_python(
        """
        import elicitkit
        raise KeyboardInterrupt
        """
    )
    assert "Traceback (most recent call last):" in done.stderr
    assert done.stderr.rstrip().endswith("KeyboardInterrupt")


def test_other_errors_of_the_cli_keep_their_traceback() -> None:
    done = run_python(
        """
        import sys
        sys.orig_argv = [sys.executable, "-m", "elicitkit", "demo"]
        import elicitkit
        raise RuntimeError("boom")
        """
    )
    assert "Traceback (most recent call last):" in done.stderr
    assert done.stderr.rstrip().endswith("RuntimeError: boom")


def _interrupts_as_at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def spawned() -> Iterator[list[pexpect.spawn]]:
    children: list[pexpect.spawn] = []
    yield children
    for child in children:
        if child.isalive():
            child.terminate(force=True)


# Seconds after the start: in the package's import (about 0.2 s quiet), in the command
# line's (the SDK client, to 0.7 s), while the server starts (to 2 s), and at the first form.
@pytest.mark.parametrize("after", [0.1, 0.3, 0.6, 1.2, 2.5])
def test_ctrl_c_during_the_demos_start_is_one_line(
    spawned: list[pexpect.spawn], after: float
) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "elicitkit", "demo"],
        cwd=str(REPO),
        env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"},
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
        # As at a terminal: a runner started in the background (CI) ignores SIGINT, and a
        # child inherits that, so Ctrl-C during the import would be lost, not caught.
        preexec_fn=_interrupts_as_at_a_terminal,
    )
    child.logfile_read = io.StringIO()
    spawned.append(child)
    time.sleep(after)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    transcript = child.logfile_read.getvalue()
    assert "Traceback" not in transcript
    assert "KeyboardInterrupt" not in transcript
    # One line says so, whichever moment it was: the import, the command, a form.
    said = [
        line for line in transcript.splitlines() if "Interrupted" in line or "Cancelled" in line
    ]
    assert len(said) == 1, transcript
    # 130 (the shell's number for Ctrl-C), killed by SIGINT (the import), or 0 (a form
    # cancelled, which is an answer: the demo ends normally).
    assert child.exitstatus in (0, 130) or child.signalstatus == signal.SIGINT, transcript
