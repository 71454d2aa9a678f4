"""The testing kit follows a task: ``connect()`` polls it, answers its questions, cancels it."""

from __future__ import annotations

import anyio
import pytest

from elicitkit.testing import ScriptedUser, accept, connect
from tests.mrtr import text_of
from tests.test_tasks import Counts, build

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_connect_tests_a_long_tool_like_a_short_one(sdk: str, protocol: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    # The second answer does not fit (copies >= 1): the re-ask reaches the same user.
    user = ScriptedUser(accept(name="Ada"), accept(copies=0), accept(copies=2))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("render", {"title": "Q3"})
    where = "task" if protocol == "2026-07-28" else "in the call"
    assert text_of(result) == f"Q3 for Ada: 2 copies ({where})."
    assert [request.message for request in user.requests] == [
        "Who is the report for?",
        "Rendered Q3. How many copies?",
        "Rendered Q3. How many copies?\n\nPlease correct your answer. Copies: Must be at least 1.",
    ]
    # In a task the tool runs again for each leg: asked, re-asked, finished (three legs).
    legs = 3 if protocol == "2026-07-28" else 1
    assert (counts.after_go_async, counts.finished) == (legs, 1)


async def test_a_cancelled_call_cancels_its_task(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts, long_work=True)
    async with connect(server, user=ScriptedUser(accept(name="Ada"))) as client:
        with anyio.move_on_after(0.3):
            await client.call_tool("render", {"title": "Q3"})
        with anyio.fail_after(5):
            await counts.ended.wait()
    assert (counts.after_go_async, counts.cancelled, counts.finished) == (1, 1, 0)
