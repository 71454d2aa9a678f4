"""prompt_toolkit is the ``cli`` extra: elicitkit works without it, and the commands that need
it (``elicitkit try``, the demo answered at a terminal) say how to install it, in one line.

Each test runs ``python -m elicitkit`` in a fresh interpreter where prompt_toolkit cannot be
imported: ``sys.modules["prompt_toolkit"] = None`` makes ``import prompt_toolkit`` raise
ImportError, as if the package were not installed.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

REPO = Path(__file__).resolve().parent.parent
INSTALL_HINT = (
    'The terminal forms need prompt_toolkit (the cli extra): pip install "prompt-toolkit>=3.0.43", '
    'or in a checkout of elicitkit, pip install -e ".[cli]".'
)


def without_prompt_toolkit(*args: str) -> list[str]:
    """The command line that runs ``python -m elicitkit ARGS`` with prompt_toolkit blocked."""
    shim = (
        "import runpy, sys; "
        "sys.modules['prompt_toolkit'] = None; "
        f"sys.argv = ['elicitkit', *{list(args)!r}]; "
        "runpy.run_module('elicitkit', run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, "-c", shim]


def test_importing_elicitkit_and_its_command_line_does_not_import_prompt_toolkit() -> None:
    probe = "import sys, elicitkit, elicitkit.cli.main; print('prompt_toolkit' in sys.modules)"
    shown = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert shown == "False\n"


def test_try_without_prompt_toolkit_says_how_to_install_it() -> None:
    run = subprocess.run(
        without_prompt_toolkit("try", "examples/booking.py", "--tool", "book_table"),
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stdout, run.stderr) == (2, "", INSTALL_HINT + "\n")


def test_the_demo_at_a_terminal_without_prompt_toolkit_says_how_to_install_it() -> None:
    command, *args = without_prompt_toolkit("demo")
    child = pexpect.spawn(command, args, cwd=str(REPO), encoding="utf-8", timeout=30)
    child.logfile_read = io.StringIO()
    child.expect(pexpect.EOF)
    child.close()
    shown = child.logfile_read.getvalue().replace("\r\n", "\n")
    assert shown == (f"{INSTALL_HINT} (Or let a script answer: elicitkit demo --scripted.)\n")
    assert child.exitstatus == 2


def test_the_scripted_demo_runs_without_prompt_toolkit() -> None:
    run = subprocess.run(
        without_prompt_toolkit("demo", "--scripted"),
        stdin=subprocess.DEVNULL,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert (
        "User: a script (stdin is not a terminal, so nobody can type answers here)\n" in run.stdout
    )
    assert "=== MCP 2026-07-28" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
