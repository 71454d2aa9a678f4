"""``elicitkit try`` follows a task: in memory, the terminal's keys scripted, time injected.

The real SDK client (`try_tool`, as ``elicitkit try`` runs it) meets a real elicitkit
server (tests/servers/try_tasks.py) in memory; the person's keystrokes go through
prompt_toolkit's pipe input into the same terminal forms, and what ``try`` prints is read
from stdout. Polls wait on a `FakeClock`, so each test moves time by what it checks, and
waits for the program to settle (`anyio.wait_all_tasks_blocked`), never for real time.
The same command over stdio, in a pseudo-terminal, is tests/test_cli_try_tasks_stdio.py.
"""

from __future__ import annotations

import io
import json
import signal
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from elicitkit._client.tasks import CreatedTask
from elicitkit._interrupt import CTRL_C
from elicitkit._replay.tasks import TaskRecord
from elicitkit.cli.interruptible import run_interruptibly
from elicitkit.cli.task_follower import _Watch, poll_interval
from elicitkit.cli.try_server import Progress, try_tool
from elicitkit.integrations._router import ElicitkitMiddleware
from elicitkit.testing import FakeClock
from tests.servers.try_tasks import BACKEND_DOWN, build
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

MOST_STEPS = 50
"""Clock steps a run may take before the test gives up on it (each a poll or fewer)."""


@pytest.fixture
def keys() -> Iterator[PipeInput]:
    """The terminal's keyboard: keys sent here reach the forms' prompts."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        yield pipe


class Screen:
    """What ``try`` printed so far (stdout, as pytest captured it)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys
        self._text = ""

    def text(self) -> str:
        self._text += self._capsys.readouterr().out
        return self._text

    def lines(self) -> list[str]:
        return [line.strip() for line in self.text().splitlines() if line.strip()]

    async def shows(self, line: str) -> None:
        """Wait until ``line`` is printed, then until the program has settled.

        Keys reach prompt_toolkit through a pipe, which the event loop reads when it polls:
        until then every task looks blocked. So the wait is for what the keys lead to; the
        bound is in real seconds, for a run that went wrong, never reached by one that works.
        """
        with anyio.fail_after(30):
            while line not in self.lines():
                await anyio.lowlevel.checkpoint()
        await anyio.wait_all_tasks_blocked()


@pytest.fixture
def screen(capsys: pytest.CaptureFixture[str]) -> Screen:
    return Screen(capsys)


class Run:
    """One ``try`` of a tool, in a task of the test's event loop."""

    def __init__(self) -> None:
        self.status: int | None = None

    async def __call__(
        self,
        server: MCPServer,
        tool: str,
        arguments: dict[str, Any],
        *,
        protocol: str | None = None,
        tasks: bool = True,
    ) -> None:
        progress = Progress(io.StringIO(), show_schema=False, tasks=tasks)
        self.status = await try_tool(server, tool, arguments, protocol, progress)

    async def to_its_end(self, clock: FakeClock, *, step: float) -> int:
        """Move the clock ``step`` at a time, the program settling in between, until it ends."""
        for _ in range(MOST_STEPS):
            await anyio.wait_all_tasks_blocked()
            if self.status is not None:
                return self.status
            await clock.advance(step)
        raise AssertionError(f"try did not end within {MOST_STEPS} steps of {step} s")


async def asking(server: Any) -> bool:
    """Whether a task of the server (its `MemoryTaskStore`) has a question outstanding."""
    (middleware,) = (m for m in server.middleware if isinstance(m, ElicitkitMiddleware))
    rows = middleware.tasks.backend.backend._rows.values()
    return any(TaskRecord.from_json(json.loads(row.value)).questions for row in rows)


def shown_id(lines: list[str]) -> str:
    """The task's id as the line that says the call became a task shows it."""
    line = next(line for line in lines if line.startswith(".. task "))
    return line.removeprefix(".. task ").partition(":")[0]


def short(lines: list[str]) -> str:
    """The line that says the call became a task, its id (random) written as ID."""
    task_id = shown_id(lines)
    return next(line for line in lines if line.startswith(f".. task {task_id}")).replace(
        task_id, "ID"
    )


async def test_a_task_shows_its_status_asks_in_the_task_and_ends_with_its_result(
    keys: PipeInput, screen: Screen
) -> None:
    released = anyio.Event()
    server = build(poll=2.0, gate=released.wait)
    run = Run()
    with FakeClock() as clock:
        async with anyio.create_task_group() as group:
            group.start_soon(run, server, "render", {"title": "Q3"})
            await screen.shows("Who is the report for?")  # a question of the call
            assert screen.lines()[-2:] == ["Who is the report for?", "Name (text)"]
            keys.send_text("yAda\r")
            await screen.shows(".. Rendering Q3")  # a task now, working
            assert screen.lines()[-1] == ".. Rendering Q3"
            released.set()  # the long work is done, the task asks: seen at the next poll
            # The leg runs on Docket's worker, whose reads wait in real time: wait for the
            # question to be in the task's record (not for the clock), then move the clock.
            await eventually(
                lambda: asking(server),
                within=10,
                every=0.01,
                what="the task's question in its record",
            )
            await anyio.wait_all_tasks_blocked()
            await clock.advance(1.9)
            assert "How many copies?" not in screen.text()
            await clock.advance(0.1)  # the task's pollIntervalMs: 2 s
            assert screen.lines()[-2] == "Q3 is rendered. How many copies?"  # the task's
            keys.send_text("y3\r")  # answered through tasks/update
            status = await run.to_its_end(clock, step=2.0)
    assert status == 0
    lines = screen.lines()
    assert lines[0] == "Connected: MCP 2026-07-28."
    assert lines[1] == '-> render {"title": "Q3"}'
    assert short(lines) == ".. task ID: the call goes on as a task (Ctrl-C cancels it)."
    assert lines.count(".. Rendering Q3") == 1  # once, however many polls saw it
    assert lines[-1] == "<- result: REPORT Q3 for Ada: 3 copies, as a task."


async def test_a_failed_task_ends_the_call_with_its_error(screen: Screen) -> None:
    run = Run()
    with FakeClock() as clock:
        async with anyio.create_task_group() as group:
            group.start_soon(run, build(), "job", {})
            status = await run.to_its_end(clock, step=1.0)
    assert status == 1
    lines = screen.lines()
    assert short(lines) == ".. task ID: the call goes on as a task (Ctrl-C cancels it)."
    assert lines[-2:] == [".. Running the job", f"<- task failed: {BACKEND_DOWN} (code -32001)"]


@pytest.mark.parametrize(
    ("protocol", "tasks"),
    [("2026-07-28", False), ("2025-11-25", True)],
    ids=["no-tasks", "2025-11-25"],
)
async def test_without_the_extension_the_tool_runs_in_the_call(
    keys: PipeInput, screen: Screen, protocol: str, tasks: bool
) -> None:
    run = Run()
    keys.send_text("yAda\r")
    keys.send_text("y3\r")
    with FakeClock():
        await run(build(), "render", {"title": "Q3"}, protocol=protocol, tasks=tasks)
    assert run.status == 0
    lines = screen.lines()
    assert lines[0] == f"Connected: MCP {protocol}."
    assert not [line for line in lines if line.startswith("..")]
    assert lines[-1] == "<- result: REPORT Q3 for Ada: 3 copies, in the call."


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """The command line's Ctrl-C, pressed in the test, forgotten after it."""
    assert not CTRL_C.pressed
    yield
    CTRL_C.pressed = False


def test_ctrl_c_during_a_task_sends_tasks_cancel_then_interrupts(
    screen: Screen, ctrl_c: None
) -> None:
    server = build()

    async def press_ctrl_c_in_the_task() -> None:
        with FakeClock():
            async with anyio.create_task_group() as group:
                group.start_soon(Run(), server, "work", {})
                await anyio.wait_all_tasks_blocked()
                assert screen.lines()[-1] == ".. Working"
                CTRL_C.handle(signal.SIGINT, None)  # as the signal runs it, between two bytecodes
                await anyio.sleep_forever()

    with pytest.raises(KeyboardInterrupt):
        run_interruptibly(press_ctrl_c_in_the_task)
    lines = screen.lines()
    assert short(lines) == ".. task ID: the call goes on as a task (Ctrl-C cancels it)."
    # Printed once the server answered the tasks/cancel, the connection still reading.
    said = f".. task {shown_id(lines)}: cancelled (the server took the tasks/cancel)."
    assert lines[-2:] == [".. Working", said]


def _created(poll_ms: int | None) -> CreatedTask:
    return CreatedTask(
        task_id="t",
        status="working",
        created_at="2026-01-01T00:00:00Z",
        last_updated_at="2026-01-01T00:00:00Z",
        ttl_ms=None,
        poll_interval_ms=poll_ms,
    )


@pytest.mark.parametrize(
    ("latest", "created", "seconds"),
    [
        ({"pollIntervalMs": 1500}, 200, 1.5),
        ({}, 200, 0.2),
        ({}, None, 1.0),
        ({"pollIntervalMs": 1}, 200, 0.05),
        ({"pollIntervalMs": 3_600_000}, 200, 5.0),
        ({"pollIntervalMs": "soon"}, 200, 1.0),
        ({"pollIntervalMs": True}, 200, 1.0),
    ],
    ids=["latest", "as-created", "none", "too-fast", "too-slow", "not-a-number", "bool"],
)
def test_the_poll_interval_is_the_tasks_latest_within_bounds(
    latest: dict[str, Any], created: int | None, seconds: float
) -> None:
    assert poll_interval(latest, _created(created)) == seconds


def test_a_status_message_is_told_once_per_change_and_never_for_an_ended_task(
    screen: Screen,
) -> None:
    watch = _Watch("abc")
    for task in [
        {"status": "working", "statusMessage": "Rendering"},
        {"status": "working", "statusMessage": "Rendering"},
        {"status": "input_required", "statusMessage": "Rendering"},
        {"status": "working"},
        {"status": "working", "statusMessage": "Printing\x1b[2J"},
        {"status": "failed", "statusMessage": "Out of paper"},
    ]:
        watch.seen(task)
    assert screen.lines() == [".. Rendering", ".. Printing\\u001b[2J"]
