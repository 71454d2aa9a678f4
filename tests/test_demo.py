"""The README's demo command works: a real subprocess, exit status 0, the promised output."""

from __future__ import annotations

import subprocess
import sys


def test_demo_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "elicitkit", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for protocol in ("2025-06-18", "2025-11-25", "2026-07-28"):
        assert f"requestedSchema on {protocol}:" in out
    assert '"enumNames": [' in out  # 2025-06-18 labels
    assert '"oneOf": [' in out  # later versions' labels
    assert "speed=<Speed.EXPRESS: 'express'>" in out
    assert "deliver_on=datetime.date(2026, 12, 24)" in out
    assert "parse_content raises InvalidContent with 9 field errors:" in out
    assert "  zip_code: Must be at least 4 characters long." in out
    assert done.stderr == ""


def test_no_command_shows_usage() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "elicitkit"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "usage: python -m elicitkit" in done.stderr
