"""ask(timeout=...) and cancellation, with the real SDK client, on both server SDKs and eras."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from elicitkit import ask
from elicitkit.errors import ElicitationTimeout
from elicitkit.testing import FakeClock
from tests.sdks import in_memory, new_server

pytestmark = pytest.mark.anyio

TIMED_OUT = (
    "The user did not answer the form within 0.2 seconds, so the question was withdrawn. Ask "
    "again if the answer is still needed, or pass a longer timeout= to ask()."
)


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def make_server(sdk: str, ended: list[str] | None = None) -> Any:
    server = new_server(sdk, "timeouts")

    @server.tool()
    async def confirm() -> str:
        try:
            answer = await ask(bool, "Go?", timeout=0.2)
        except ElicitationTimeout as error:
            return f"timeout: {error}"
        finally:
            if ended is not None:
                ended.append("ended")
        return f"{answer.action}:{answer.content}"

    @server.tool()
    async def hold() -> str:
        try:
            answer = await ask(bool, "Go?", timeout=None)  # only a cancellation ends it
        except BaseException as error:
            if ended is not None:
                ended.append(type(error).__name__)
            raise
        return f"{answer.action}:{answer.content}"

    return server


async def test_a_question_nobody_answers_times_out_and_is_withdrawn_on_2025_11_25(
    sdk: str,
) -> None:
    withdrawn = anyio.Event()

    async def never_answers(context: Any, params: Any) -> types.ElicitResult:
        try:
            await anyio.sleep_forever()
        finally:
            withdrawn.set()  # the server's notifications/cancelled reached the client
        raise AssertionError("unreachable")

    server = in_memory(make_server(sdk))
    async with Client(server, mode="legacy", elicitation_callback=never_answers) as client:
        assert client.protocol_version == "2025-11-25"
        with anyio.fail_after(5):
            result = await client.call_tool("confirm", {})
            await withdrawn.wait()
    assert text_of(result) == f"timeout: {TIMED_OUT}"


async def test_an_answer_after_the_deadline_is_refused_on_2026_07_28(
    sdk: str, elicit_clock: FakeClock
) -> None:
    """On 2026-07-28 the deadline travels in the sealed state: a late answer is too late."""

    async def slow(context: Any, params: Any) -> types.ElicitResult:
        elicit_clock.jump(0.3)  # the user takes longer than the question's 0.2 s
        return types.ElicitResult(action="accept", content={"value": True})

    async with Client(
        in_memory(make_server(sdk)), mode="auto", elicitation_callback=slow
    ) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("confirm", {})
    assert text_of(result) == f"timeout: {TIMED_OUT}"


@pytest.mark.parametrize(
    "mode", [pytest.param("legacy", id="2025-11-25"), pytest.param("auto", id="2026-07-28")]
)
async def test_an_answer_in_time_is_taken(sdk: str, mode: str) -> None:
    async def quick(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"value": True})

    async with Client(in_memory(make_server(sdk)), mode=mode, elicitation_callback=quick) as client:
        result = await client.call_tool("confirm", {})
    assert text_of(result) == "accept:True"


@pytest.mark.parametrize(
    ("seconds", "message"),
    [
        pytest.param(0, "ask() got timeout=0, which", id="zero"),
        pytest.param(float("inf"), "ask() got timeout=inf, which", id="infinite"),
        pytest.param(float("nan"), "ask() got timeout=nan, which", id="nan"),
        pytest.param(0.0, "ask() got timeout=0.0, which", id="zero float"),
        pytest.param(-1.5, "ask() got timeout=-1.5, which", id="negative float"),
        pytest.param("10", "ask() got timeout='10', which", id="text"),
    ],
)
async def test_a_bad_timeout_is_refused(sdk: str, seconds: Any, message: str) -> None:
    server = new_server(sdk, "bad")

    @server.tool()
    async def asker() -> str:
        try:
            await ask(bool, "Sure?", timeout=seconds)
        except ValueError as error:
            return str(error)
        return "asked"

    async def never(context: Any, params: Any) -> types.ElicitResult:
        raise AssertionError("nothing is sent")

    async with Client(in_memory(server), mode="legacy", elicitation_callback=never) as client:
        text = text_of(await client.call_tool("asker", {}))
    assert text == (
        f"{message} is not a positive number of seconds. Pass the seconds the user has to "
        "answer, e.g. timeout=600, or None for no limit."
    )


async def test_many_cancelled_calls_end_their_questions_and_leave_nothing_behind(
    sdk: str,
) -> None:
    """The client cancels the call mid-question: the ask ends at once, the form is withdrawn."""
    calls = 40
    opened = anyio.Event()  # this call's form is open at the client
    settled = anyio.Event()  # every ask has ended and every form was withdrawn
    withdrawn = 0

    class Ended(list[str]):
        def append(self, item: str) -> None:
            super().append(item)
            tally()

    def tally() -> None:
        if len(ended) == calls and withdrawn == calls:
            settled.set()

    ended = Ended()

    async def holds_the_form(context: Any, params: Any) -> types.ElicitResult:
        nonlocal withdrawn
        opened.set()
        try:
            await anyio.sleep_forever()
        finally:
            withdrawn += 1
            tally()
        raise AssertionError("unreachable")

    async with Client(
        in_memory(make_server(sdk, ended)), mode="legacy", elicitation_callback=holds_the_form
    ) as client:
        baseline = len(asyncio.all_tasks())
        for _ in range(calls):
            opened = anyio.Event()
            with anyio.move_on_after(5) as deadline:
                async with anyio.create_task_group() as group:
                    group.start_soon(client.call_tool, "hold", {})
                    await opened.wait()
                    group.cancel_scope.cancel()  # the client cancels the call
            assert not deadline.cancelled_caught
        with anyio.fail_after(5):
            await settled.wait()
        assert len(asyncio.all_tasks()) <= baseline
    assert ended == ["CancelledError"] * calls  # every ask ended with the cancellation
    assert withdrawn == calls  # and every form was withdrawn at the client
