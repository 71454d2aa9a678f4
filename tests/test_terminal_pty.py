"""``elicitkit try`` and the interactive demo, driven by keystrokes through a real pseudo-terminal.

Each test starts the real command under pexpect (a pty: stdin and stdout are terminals), types
what a person would, and asserts the tool's result and the exit status.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 30
ENTER = "\r"
CTRL_C = "\x03"
CTRL_D = "\x04"
CTRL_U = "\x15"  # clear the line (the prefilled default)
BACKSPACE = "\x7f"
# What pexpect reads includes the terminal's control sequences; strip them to read the text.
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")

BOOKED = "<- result: Booked Noma for 4 on Thursday 24 December at 21:00, terrace, under Ada."


@pytest.fixture
def spawn(starts_processes: None) -> Iterator[list[pexpect.spawn]]:
    children: list[pexpect.spawn] = []
    yield children
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def start(children: list[pexpect.spawn], *args: str) -> pexpect.spawn:
    env = {
        **os.environ,
        "TERM": "xterm",
        # No cursor-position requests: pexpect does not answer them (prompt_toolkit would
        # otherwise wait for the reply before drawing).
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }
    child = pexpect.spawn(
        sys.executable,
        ["-m", "elicitkit", *args],
        cwd=str(REPO),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 200),
    )
    child.logfile_read = io.StringIO()  # the whole transcript, for the final assertions
    children.append(child)
    return child


def finish(child: pexpect.spawn) -> tuple[str, int]:
    """Wait for the end; return everything it printed (as text) and its exit status."""
    child.expect(pexpect.EOF)
    child.close()
    transcript = child.logfile_read
    assert isinstance(transcript, io.StringIO)
    seen = CONTROL.sub("", transcript.getvalue())
    assert child.exitstatus is not None, f"killed by signal {child.signalstatus}"
    return seen, child.exitstatus


def try_booking(children: list[pexpect.spawn]) -> pexpect.spawn:
    child = start(
        children,
        "try",
        "examples/booking.py",
        "--tool",
        "book_table",
        "--args",
        '{"restaurant": "Noma"}',
    )
    child.expect("Book a table at Noma")
    child.expect("fill in")
    return child


def test_try_fills_a_date_a_choice_and_a_number_correcting_mistakes(
    spawn: list[pexpect.spawn],
) -> None:
    child = try_booking(spawn)
    child.send("y")  # one keystroke: fill the form in
    child.expect("Name:")
    child.send("Ada" + ENTER)
    child.expect("Day:")
    child.send("2026-12-2" + ENTER)  # not a date yet: Enter is refused, the reason shown
    child.expect("A date as YYYY-MM-DD, like 2026-12-24.")
    child.send("4" + ENTER)
    child.expect("Time:")  # a choice, its default (19:30) shown as if selected
    child.send("3" + ENTER)  # pick by number: typing replaces the default (not "19:303")
    child.expect("Guests:")
    child.send("20")  # out of bounds: flagged while typing
    child.expect("A whole number from 1 to 12.")
    child.send(ENTER)  # refused
    child.send(BACKSPACE * 2 + "4" + ENTER)
    child.expect("Area:")
    child.send("terrace" + ENTER)  # pick by value, replacing the default
    child.expect("Note:")
    child.send(ENTER)  # optional: skipped
    seen, status = finish(child)
    assert BOOKED in seen
    assert status == 0


def test_try_ctrl_c_in_a_field_cancels_the_form_cleanly(spawn: list[pexpect.spawn]) -> None:
    child = try_booking(spawn)
    child.send(ENTER)  # Enter fills in
    child.expect("Name:")
    child.send("Ad" + CTRL_C)
    child.expect("Cancelled: the form was closed without an answer.")
    seen, status = finish(child)
    assert "<- result: No booking made." in seen
    assert "Traceback" not in seen
    assert status == 0


def test_try_decline_key(spawn: list[pexpect.spawn]) -> None:
    child = try_booking(spawn)
    child.send("n")  # not "decline": "n" means no, and this is no yes/no question
    child.send("d")
    child.expect("You chose to decline.")
    seen, status = finish(child)
    assert "[Enter/y] fill in · [d] decline · [c] cancel" in seen
    assert "<- result: No booking made." in seen
    assert status == 0


@pytest.mark.parametrize("example", ["shipping", "fastmcp_server"])
def test_try_asks_for_the_tool_arguments_then_the_form(
    spawn: list[pexpect.spawn], example: str
) -> None:
    child = start(
        spawn, "try", f"examples/{example}.py", "--tool", "ship", "--protocol", "2025-06-18"
    )
    child.expect("Connected: MCP 2025-06-18.")  # the SDK client tuned to offer it
    child.expect("The arguments of ship:")
    child.expect("[Ii]tem:")  # fastmcp's input schema has no titles: the name as it is
    child.send("a kettle" + ENTER)
    child.expect("Where should we ship your order?")
    # 2025-06-18 has no default for a choice: nothing is prefilled, so Enter skips it.
    child.expect(r"Speed \(pick 1-2, optional, Enter skips\)")
    child.expect("fill in")
    child.send("c")
    child.expect("You chose to cancel.")
    seen, status = finish(child)
    assert '-> ship {"item": "a kettle"}' in seen
    assert "<- result: Shipping cancelled: the user chose to cancel." in seen
    assert status == 0


def test_the_scripted_demo_at_a_terminal_says_it_was_asked_to(spawn: list[pexpect.spawn]) -> None:
    child = start(spawn, "demo", "--scripted")
    seen, status = finish(child)
    assert "User: a script (--scripted)\n" in seen  # a terminal, so only the flag
    assert "fill in" not in seen
    assert status == 0


def test_demo_at_a_terminal_fills_both_eras(spawn: list[pexpect.spawn]) -> None:
    child = start(spawn, "demo")
    child.expect("User: you, at this terminal")
    for _ in range(2):  # 2025-11-25, then 2026-07-28
        child.expect(r"Speed \(pick 1-2, optional, Enter keeps the default\)")  # prefilled
        child.expect("fill in")
        child.send(ENTER)
        child.expect("Name:")
        child.send("Grace Hopper" + ENTER)
        child.expect("Street:")
        child.send("1 Navy Way" + ENTER)
        child.expect("City:")
        child.send("Arlington" + ENTER)
        child.expect("Zip code:")
        child.send("222")  # too short, corrected before Enter
        child.expect(r"At least 4 characters \(3 so far\)\.")
        child.send("01" + ENTER)
        child.expect("Speed:")
        child.send("2" + ENTER)  # express: the number replaces the shown default
        child.expect("Floor:")
        child.send("3" + ENTER)
        child.expect(r"Ship a teapot to Arlington \(express\)\?")
        # A yes/no form is one keystroke: no "fill in" first (a bare bool's default is no)
        child.expect(r"Confirm\? \[y\]es · \[N\]o · \[d\]ecline · \[c\]ancel")
        child.send("y")
    seen, status = finish(child)
    assert (
        seen.count(
            "city='Arlington', zip_code='22201', speed=<Speed.EXPRESS: 'express'>, floor=3) "
            "and confirmed=True."
        )
        == 2
    )
    assert status == 0


def test_demo_decline_is_a_valid_answer(spawn: list[pexpect.spawn]) -> None:
    child = start(spawn, "demo")
    for _ in range(2):
        child.expect("fill in")
        child.send("d")
    seen, status = finish(child)
    assert seen.count("<- result: Not shipped: the user chose to decline.") == 2
    assert (
        seen.count("Nothing was shipped: saying no is a valid answer, and the tool handled it.")
        == 2
    )
    assert status == 0


@pytest.mark.parametrize("key", [CTRL_C, CTRL_D], ids=["ctrl-c", "ctrl-d"])
def test_demo_ctrl_c_or_ctrl_d_ends_it_cleanly(spawn: list[pexpect.spawn], key: str) -> None:
    child = start(spawn, "demo")
    child.expect("fill in")
    child.send(ENTER)
    child.expect("Name:")
    child.send(key)
    seen, status = finish(child)
    assert "Cancelled: the form was closed without an answer." in seen
    assert "<- result: Not shipped: the user chose to cancel." in seen
    assert seen.rstrip().endswith(
        "You closed the form, so the demo stops here. Run it again any time."
    )
    assert "Traceback" not in seen
    assert "2026-07-28" not in seen
    assert status == 0


@pytest.mark.parametrize("example", ["shipping", "booking", "fastmcp_server"])
def test_an_example_run_at_a_terminal_says_how_to_connect(
    spawn: list[pexpect.spawn], example: str
) -> None:
    child = pexpect.spawn(
        sys.executable,
        [f"examples/{example}.py"],
        cwd=str(REPO),
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    child.logfile_read = io.StringIO()
    spawn.append(child)
    seen, status = finish(child)
    assert seen.startswith(
        "This is an MCP server: it speaks JSON-RPC on stdin and stdout, to a client.\n"
        "Fill in its forms at this terminal with\n"
        f"    elicitkit try examples/{example}.py --tool "
    )
    assert seen.endswith(
        f"or add `python examples/{example}.py` to your MCP client's stdio servers.\n"
    )
    assert status == 1


LEFT, RIGHT = "\x1b[D", "\x1b[C"


def test_try_an_arrow_key_edits_the_default_instead_of_replacing_it(
    spawn: list[pexpect.spawn],
) -> None:
    child = try_booking(spawn)
    child.send(ENTER)
    child.expect("Name:")
    child.send("Ada" + ENTER)
    child.expect("Day:")
    child.send("2026-12-24" + ENTER)
    child.expect("Time:")
    child.send(LEFT + RIGHT + "0")  # an arrow first: the 0 is added, "19:300"
    child.expect("One of 1-3, or a value from the list.")
    child.send(BACKSPACE + ENTER)  # "19:30", the default, kept
    child.expect("Guests:")
    child.send("4" + ENTER)
    child.expect("Area:")
    child.send(ENTER)  # Enter keeps a default
    child.expect("Note:")
    child.send(ENTER)
    seen, status = finish(child)
    assert (
        "<- result: Booked Noma for 4 on Thursday 24 December at 19:30, inside, under Ada." in seen
    )
    assert status == 0


NOT_CONFIRMED = "<- result: Not shipped: a teapot was not confirmed. The tool saw"


@pytest.mark.parametrize(
    ("key", "said", "result"),
    [
        pytest.param("n", "Confirm: no", NOT_CONFIRMED, id="n-is-no"),
        pytest.param(ENTER, "Confirm: no", NOT_CONFIRMED, id="enter"),
        pytest.param("d", "You chose to decline.", NOT_CONFIRMED, id="d-declines"),
    ],
)
def test_demo_yes_no_question_takes_one_key(
    spawn: list[pexpect.spawn], key: str, said: str, result: str
) -> None:
    child = start(spawn, "demo")
    child.expect("fill in")
    child.send(ENTER)
    for field, value in [
        ("Name:", "Grace Hopper"),
        ("Street:", "1 Navy Way"),
        ("City:", "Arlington"),
        ("Zip code:", "22201"),
        ("Speed:", ""),
        ("Floor:", ""),
    ]:
        child.expect(field)
        child.send(value + ENTER)
    child.expect(r"Confirm\? \[y\]es · \[N\]o · \[d\]ecline · \[c\]ancel")
    child.send(key)
    child.expect(said)
    child.expect(r"fill in")  # the second era's first form: one key was the whole answer
    child.send(CTRL_C)
    seen, status = finish(child)
    first_era = seen.split("=== MCP 2026-07-28")[0]
    assert result in first_era
    assert "requestedSchema" not in seen  # shown only with --schema
    assert status == 0


def test_try_shows_the_schema_only_with_the_flag(spawn: list[pexpect.spawn]) -> None:
    child = start(
        spawn,
        "try",
        "examples/booking.py",
        "--tool",
        "book_table",
        "--args",
        '{"restaurant": "Noma"}',
        "--schema",
    )
    child.expect('requestedSchema: {"type": "object", "properties": {"name": ')
    child.expect("fill in")
    child.send("c")
    child.expect("You chose to cancel.")
    seen, status = finish(child)
    assert "<- result: No booking made." in seen
    assert status == 0


def test_demo_shows_the_schema_only_with_the_flag(spawn: list[pexpect.spawn]) -> None:
    child = start(spawn, "demo", "--schema")
    child.expect('requestedSchema: {"type": "object", "properties": {"name": ')
    child.expect("fill in")
    child.send(CTRL_C)
    seen, status = finish(child)
    assert "Traceback" not in seen
    assert status == 0


def test_the_help_try_example_works_outside_a_checkout(
    spawn: list[pexpect.spawn], tmp_path: Path
) -> None:
    """`elicitkit --help`'s try example, with the demo server a wheel ships, from elsewhere."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "elicitkit", "try", f"{sys.executable} -m elicitkit.cli.demo_server",
         "--tool", "ship", "--args", '{"item": "a kettle"}'],
        cwd=str(tmp_path),
        env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1", "PYTHONPATH": str(REPO)},
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 200),
    )  # fmt: skip
    child.logfile_read = io.StringIO()
    spawn.append(child)
    child.expect("Where should we ship your order?")
    child.expect("fill in")
    child.send("y")
    for field, value in [
        ("Name:", "Ada"),
        ("Street:", "1 Main St"),
        ("City:", "Oslo"),
        ("Zip code:", "0150"),
        ("Speed:", "2"),  # replaces the shown default: express
        ("Floor:", ""),
    ]:
        child.expect(field)
        child.send(value + ENTER)
    child.expect(r"Ship a kettle to Oslo \(express\)\?")
    child.send("y")  # one key
    seen, status = finish(child)
    assert "<- result: Shipped a kettle." in seen
    assert "speed=<Speed.EXPRESS: 'express'>" in seen
    assert status == 0
