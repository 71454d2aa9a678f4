"""The README's quick loop: ``-m "not interop and not processes"`` leaves out every module that
starts a process, and keeps the in-process ones (tests/conftest.py sets the marker)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
QUICK = "not interop and not processes"


def collected(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True, text=True, timeout=120, check=False, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}


def test_the_quick_loop_leaves_out_the_modules_that_start_processes() -> None:
    modules = [
        "tests/test_stdio.py",  # servers over stdio
        "tests/test_terminal_pty.py",  # a pseudo-terminal
        "tests/test_scaleout.py",  # HTTP workers
        "tests/test_schema_table.py",  # in process
        "tests/test_ask_inmemory.py",  # the SDK's client and server, in memory
    ]
    assert collected("-m", QUICK, *modules) == {
        "tests/test_schema_table.py",
        "tests/test_ask_inmemory.py",
    }
    assert collected("-m", "processes", *modules) == set(modules[:3])
