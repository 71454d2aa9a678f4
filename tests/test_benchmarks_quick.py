"""CI's smoke run of ``python -m benchmarks --quick``: every part runs and agrees.

No timing is asserted (the figures of a quick run on a shared machine mean nothing); what
the run checks itself (every contender returns the same answers, decoders agree, all
pending calls complete with their own answers) would fail it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

ROOT = Path(__file__).parent.parent


def _python(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run this interpreter in the checkout; fail with the end of its stderr if it fails."""
    run = subprocess.run(
        [sys.executable, *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def test_the_quick_benchmark_run_writes_every_section(tmp_path: Path) -> None:
    output = tmp_path / "RESULTS.md"
    run = _python("-m", "benchmarks", "--quick", "--output", str(output))
    text = output.read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Targets",
        "## Round trip: a 10-field form, 1 to 50 asks, in memory and over HTTP",
        "## fastmcp: elicitkit against fastmcp's own ways, 1 ask, in memory",
        "## The outcome stores: the same dialogue over HTTP, 2026-07-28",
        "## Decode: the same dataclass (and model), elicitkit vs pydantic `TypeAdapter`",
        "## Per-call overrides: schema and decode, against a cached form and the SDK",
        "## Hostile answers: the time to refuse one grows linearly with its size",
        "## Import",
        "## Replay state (2026-07-28): size on the wire, seal and open time",
        "## Durable steps (2026-07-28): the cost of a step per round, in memory",
        "## Many pending questions: 20 at once on one server, streamable HTTP",
    ]
    assert "Quick smoke run: the figures mean nothing." in text
    # Every era and transport was measured, with each contender.
    for era in ("2025-11-25", "2026-07-28"):
        for transport in ("memory", "http"):
            for contender in ("floor", "elicitkit ask()", "SDK", "hand-written SDK"):
                assert any(
                    line.startswith(f"| {era} | {transport} | 1 | {contender}")
                    for line in text.splitlines()
                ), (era, transport, contender)
    # The server's own logging (as MCPServer() sets it), on both eras.
    for era in ("2025-11-25", "2026-07-28"):
        for contender in ("elicitkit ask()", "hand-written SDK"):
            assert any(
                line.startswith(f"| {era} | memory, server logging | 1 | {contender}")
                for line in text.splitlines()
            ), (era, contender)
    assert "| decode pydantic model, valid: elicitkit / TypeAdapter |" in text
    assert "| RedisStore / MemoryStore, 2026-07-28 http, 1 ask(s) |" in text
    for store in ("MemoryStore", "SqliteStore", "RedisStore"):
        assert any(line.startswith(f"| 1 | {store} |") for line in text.splitlines()), store
    # Quiet: stdout holds the summary (the targets), not the sections' tables.
    assert "## Targets" in run.stdout
    assert "## Round trip" not in run.stdout
    # And the fastmcp contenders, on both eras.
    for era, theirs in (("2025-11-25", "fastmcp ctx.elicit"), ("2026-07-28", "fastmcp guard")):
        for contender in ("floor", "elicitkit ask()", theirs):
            assert any(line.startswith(f"| {era} | {contender}") for line in text.splitlines()), (
                era,
                contender,
            )
    # Every overrides contender was measured.
    for contender in (
        "elicitkit, cached form",
        "elicitkit, overrides, same values",
        "elicitkit, overrides, new values",
        "SDK, one model",
        "SDK, model per call",
    ):
        assert any(line.startswith(f"| {contender} |") for line in text.splitlines()), contender
    # Every hostile answer was refused and timed (bench_hostile.py asserts the refusal).
    hostile = text.split("## Hostile answers", 1)[1].split("\n## ", 1)[0]
    for check in ("uri: authority then a space", "pattern: ^(a\\|aa)+$", "choice: nested lists"):
        assert f"| {check} |" in hostile, check


def test_the_round_profile_times_every_step_and_every_what_if() -> None:
    # benchmarks/round_profile.py is a diagnostic, not a RESULTS.md section: this keeps it
    # running as elicitkit's internals move (each wrapped step must still exist and be hit).
    script = str(ROOT / "benchmarks" / "round_profile.py")
    steps = _python(script, "phases", "--asks", "2", "--quick")
    rows = {
        line.split("|")[1].strip(): line.split("|")[3].strip()
        for line in steps.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| step")
    }
    # Two asks: three rounds (each reads its state, round one an empty one), one carried
    # answer rebuilt, five store calls (open; claim, release; claim, record).
    assert rows["the middleware, round included"] == "3", steps.stdout
    assert rows["replay state: read"] == "3", steps.stdout
    assert rows["ask(): rebuild a carried answer"] == "1", steps.stdout
    assert rows["outcome store calls"] == "5", steps.stdout
    bounds = _python(script, "bounds", "--asks", "2", "--repeats", "1", "--quick")
    assert bounds.stdout.splitlines()[0] == "| asks | as is | no-store | free-replays | both |"
    assert bounds.stdout.splitlines()[2].startswith("| 2 | "), bounds.stdout
