"""The testing kit's step counters on tools that go on as a task (``go_async()``).

`assert_steps_run_once` drives the 2026-07-28 rounds by hand; the round that reaches
``go_async()`` answers with a task, which it follows to its end as ``connect()`` does
(``tasks/get``, the in-task question answered through ``tasks/update``), counting the steps
before and inside the task. On the 2025 eras (and so `count_runs` on every era) the same
tool simply goes on in the call. Real servers of both SDKs, two sharing one MemoryStore and
one request-state key, in memory. The assertion is shown to fail when a step inside the
task runs twice (a fault injected where steps call their function).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer, RequestStateSecurity

import elicitkit
from elicitkit import ask, go_async, step
from elicitkit._runtime import steps as runtime_steps
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.stores import MemoryStore, OutcomeStore
from elicitkit.testing import ScriptedUser, accept, assert_steps_run_once, count_runs
from tests.example_modules import fresh_examples

pytestmark = pytest.mark.anyio

SECRET = secrets.token_bytes(32)
EXAMPLES = Path(__file__).parents[1] / "examples"
ERAS = [pytest.param(protocol, id=protocol) for protocol in PROTOCOL_VERSIONS]


def printer(sdk: str, store: OutcomeStore) -> Any:
    """A tool that asks, steps, goes on as a task, then steps, asks and steps inside it."""
    security = RequestStateSecurity(keys=[SECRET])
    server: Any = (
        MCPServer("printer", request_state_security=security)
        if sdk == "mcp"
        else FastMCP("printer", request_state_security=security)
    )
    elicitkit.install(server, store=store)

    def reserve(title: str) -> int:
        return len(title)

    def render(pages: int) -> str:
        return f"{pages} pages"

    async def send(copies: int) -> str:
        return f"sent {copies}"

    @server.tool()
    async def publish(title: str) -> str:
        pages = await step("reserve", reserve, title)
        sure = await ask(bool, f"Print {pages} pages of {title}?")
        if not sure.content:
            return "Nothing printed."
        as_task = await go_async(f"Printing {title}")
        rendered = await step("render", render, pages)
        copies = await ask(int, f"{rendered} rendered. How many copies?")
        sent = await step("send", send, copies.unwrap())
        return f"{rendered}, {sent}, {'as a task' if as_task else 'in the call'}"

    return server


def reader() -> ScriptedUser:
    return ScriptedUser(accept(value=True), accept(value=3))


STEPS = {"reserve": 1, "render": 1, "send": 1}
ASKED = ["Print 6 pages of report?", "6 pages rendered. How many copies?"]


async def test_assert_steps_run_once_follows_the_task_across_two_servers(sdk: str) -> None:
    store = MemoryStore()
    user = reader()
    runs = await assert_steps_run_once(
        [printer(sdk, store), printer(sdk, store)], "publish", {"title": "report"}, user=user
    )
    assert runs.protocol == "2026-07-28"
    assert runs.result.content[0].text == "6 pages, sent 3, as a task"  # type: ignore[union-attr]
    assert dict(runs.steps) == STEPS
    # Round one once; round two (the task's) once: sent again, it gets the recorded task.
    # Then the task's two legs: the first asks how many copies, the second finishes.
    assert runs.body == 4
    assert user.messages == ASKED  # the in-task question asked once, through the task


async def test_a_task_round_sent_again_after_more_rounds_gets_the_same_task(sdk: str) -> None:
    """Two rounds of questions before the task: the oldest state, after the end, too."""
    store = MemoryStore()
    security = RequestStateSecurity(keys=[SECRET])
    servers: list[Any] = []
    for _ in range(2):
        server: Any = (
            MCPServer("desk", request_state_security=security)
            if sdk == "mcp"
            else FastMCP("desk", request_state_security=security)
        )
        elicitkit.install(server, store=store)

        @server.tool()
        async def book(room: str) -> str:
            day = await ask(str, f"Which day for {room}?")
            held = await step("hold", lambda: f"held {room} on {day.unwrap()}")
            sure = await ask(bool, f"Confirm {held}?")
            await go_async("Booking")
            confirmed = await step("confirm", lambda: f"confirmed={sure.content}")
            return f"{held}, {confirmed}"

        servers.append(server)
    user = ScriptedUser(accept(value="Monday"), accept(value=True))
    runs = await assert_steps_run_once(servers, "book", {"room": "blue"}, user=user)
    assert runs.result.content[0].text == "held blue on Monday, confirmed=True"  # type: ignore[union-attr]
    assert dict(runs.steps) == {"hold": 1, "confirm": 1}
    # Round one once, round two twice, round three (the task's) once; the resend of round
    # three and the oldest state after the end get the recorded task without the body.
    # Then the task's one leg (it asks nothing).
    assert runs.body == 5


async def test_assert_steps_run_once_fails_when_a_step_inside_the_task_runs_twice(
    sdk: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = runtime_steps._call  # the fault goes where a step calls its function

    async def twice_in_a_task(run: Any, key: str, fn: Any, args: Any, kwargs: Any) -> Any:
        if run.delivery.in_task:
            await real(run, key, fn, args, kwargs)
        return await real(run, key, fn, args, kwargs)

    monkeypatch.setattr(runtime_steps, "_call", twice_in_a_task)
    store = MemoryStore()
    with pytest.raises(AssertionError) as caught:
        await assert_steps_run_once(
            [printer(sdk, store), printer(sdk, store)],
            "publish",
            {"title": "report"},
            user=reader(),
        )
    assert str(caught.value) == (
        "The steps of 'publish' did not each run once across 2 rounds, each sent twice, the "
        "task they went on as, and an older state sent after the end: 'render' 2 times, "
        "'send' 2 times. Check that the servers share one store and one request-state key, "
        "and that each step's key is the same in every round."
    )


async def test_a_tool_error_inside_the_task_is_the_calls_result(sdk: str) -> None:
    server: Any = elicitkit.install(MCPServer("jam") if sdk == "mcp" else FastMCP("jam"))

    @server.tool()
    async def jam() -> str:
        await go_async("Printing")
        await step("feed", lambda: "fed")
        raise RuntimeError("paper jam")

    runs = await assert_steps_run_once(server, "jam", user=ScriptedUser())
    said = {"mcp": "Error executing tool jam", "fastmcp": "Error calling tool 'jam': paper jam"}
    assert runs.result.is_error
    assert runs.result.content[0].text == said[sdk]  # type: ignore[union-attr]
    assert dict(runs.steps) == {"feed": 1}


@pytest.mark.parametrize("protocol", ERAS)
async def test_count_runs_counts_the_steps_before_and_inside_the_task(
    sdk: str, protocol: str
) -> None:
    users: list[ScriptedUser] = []

    def user() -> ScriptedUser:
        users.append(reader())
        return users[-1]

    (runs,) = await count_runs(
        printer(sdk, MemoryStore()), "publish", {"title": "report"}, user=user, protocols=[protocol]
    )
    where = "as a task" if protocol == "2026-07-28" else "in the call"  # no tasks before
    assert runs.result.content[0].text == f"6 pages, sent 3, {where}"  # type: ignore[union-attr]
    assert dict(runs.steps) == STEPS
    # On 2026-07-28: round one, the round that goes async, and the task's two legs.
    assert runs.body == (4 if protocol == "2026-07-28" else 1)
    assert users[0].messages == ASKED


@pytest.fixture
def load() -> Iterator[Callable[[Path], Any]]:
    """Load an example file as a fresh module (its ledgers empty); forget it afterwards."""
    with fresh_examples() as load_file:
        yield load_file


async def test_the_tutorial_stage4_refund_pays_once_through_its_task(
    sdk: str, load: Callable[[Path], Any]
) -> None:
    app = load(EXAMPLES / "tutorial" / "stage4_task.py")
    server = app.build(MCPServer("refunds") if sdk == "mcp" else FastMCP("refunds"))
    user = ScriptedUser(
        accept(reason="damaged", amount=30), accept(confirm=True), accept(email="ada@example.com")
    )
    runs = await assert_steps_run_once(server, "refund", {"order_id": "A-17"}, user=user)
    assert runs.result.content[0].text == (  # type: ignore[union-attr]
        "Refunded 30 EUR for a teapot (R-1); receipt sent to ada@example.com."
    )
    assert dict(runs.steps) == {"pay": 1, "post": 1}
    assert app.REFUNDS == [("A-17", 30)]
    assert app.BOOKS == ["A-17: -30 EUR (R-1)"]  # the work inside the task, once (a step)
    assert user.messages[-1] == "Where should we email the receipt?"  # asked in the task


async def test_the_long_report_example_is_followed_to_its_end(load: Callable[[Path], Any]) -> None:
    example = load(EXAMPLES / "long_report.py")
    user = ScriptedUser(accept(name="Ada"), accept(copies=2))
    runs = await assert_steps_run_once(
        example.server, "render", {"title": "Q3", "seconds": 0}, user=user
    )
    assert runs.result.content[0].text == "REPORT Q3 for Ada: 2 copies, as a task."  # type: ignore[union-attr]
    assert runs.steps == {"render": 1}  # the long work, once across the task's two legs
    assert user.messages == ["Who is the report for?", "Q3 is rendered. How many copies?"]
