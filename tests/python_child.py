"""Run a snippet of Python in a fresh interpreter of this checkout."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RunPython = Callable[..., subprocess.CompletedProcess[str]]
"""`run_python`'s type, for the fixture of that name (tests/conftest.py) that tests take."""


def run_python(code: str, *, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (dedented) with ``python -c``; return what it printed and its status.

    cwd=ROOT: ``python -c`` puts the working directory first on ``sys.path``, so the
    elicitkit under test is imported, whatever is installed.
    """
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
