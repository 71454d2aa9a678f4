"""Tutorial stage 6 (Testing your tools): the refund app's tests, on every protocol era.

Run them with pytest; elicitkit's pytest plugin (installed with elicitkit) gives each test
that takes ``elicit_connect`` one run per era, 2025-06-18, 2025-11-25 and 2026-07-28:

    pytest examples/tutorial/stage6_tests.py

The scripted customer answers the forms; the app's fake ledgers say what really happened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import stage5_fallback as app  # the app as stage 5 left it (pytest puts this folder on sys.path)
from mcp.server.mcpserver import MCPServer

from elicitkit.testing import (
    PROFILES,
    ScriptedUser,
    StepsRunOnce,
    accept,
    count_runs,
    decline,
)

REQUEST = accept(reason="damaged", amount=30)


@pytest.fixture
def make_server() -> Callable[[], Any]:
    """Build a refund server: once per test, or twice for two workers of one service."""
    return lambda: app.build(MCPServer("refunds"))


@pytest.fixture(autouse=True)
def empty_ledgers() -> Iterator[None]:
    yield
    for ledger in (app.REFUNDS, app.BOOKS, app.HELD):
        ledger.clear()


@pytest.mark.anyio
async def test_a_refund_is_paid_once(elicit_connect: Any, make_server: Any) -> None:
    user = ScriptedUser(REQUEST, accept(confirm=True), accept(email="ada@example.com"))
    async with elicit_connect(make_server(), user=user) as client:
        result = await client.call_tool("refund", {"order_id": "A-17"})
    assert result.content[0].text == (
        "Refunded 30 EUR for a teapot (R-1); receipt sent to ada@example.com."
    )
    assert app.REFUNDS == [("A-17", 30)]
    assert app.BOOKS == ["A-17: -30 EUR (R-1)"]


@pytest.mark.anyio
async def test_no_means_no_refund(elicit_connect: Any, make_server: Any) -> None:
    user = ScriptedUser(REQUEST, decline())
    async with elicit_connect(make_server(), user=user) as client:
        result = await client.call_tool("refund", {"order_id": "A-17"})
    assert result.content[0].text == "No refund."
    assert app.REFUNDS == []


@pytest.mark.anyio
async def test_without_forms_the_refund_waits_for_staff(
    elicit_connect: Any, make_server: Any
) -> None:
    async with elicit_connect(make_server(), profile=PROFILES["no-elicitation"]) as client:
        listing = await client.call_tool("refund", {"order_id": "A-17"})
        ticket = listing.structured_content["ticket"]
        answers = {"reason": "damaged", "amount": 30}
        done = await client.call_tool("answer_form", {"ticket": ticket, "answers": answers})
    assert done.content[0].text == (
        "The refund of 30 EUR for a teapot waits for our staff to confirm it."
    )
    assert app.HELD == [("A-17", 30)]
    assert app.REFUNDS == []


@pytest.mark.anyio
async def test_the_payment_runs_once_on_every_era(make_server: Any) -> None:
    # count_runs calls the tool once per era and counts, on the server side, how many times
    # the body and each step ran: on 2026-07-28 the body runs once per round of questions.
    def user() -> ScriptedUser:
        return ScriptedUser(REQUEST, accept(confirm=True), accept(email="ada@example.com"))

    runs = await count_runs(make_server(), "refund", {"order_id": "A-17"}, user=user)
    assert [(run.protocol, run.body, run.steps) for run in runs] == [
        ("2025-06-18", 1, {"pay": 1, "post": 1}),
        ("2025-11-25", 1, {"pay": 1, "post": 1}),
        # Form, confirmation, the round that goes async, then the task's two legs (the
        # receipt question ends the first): the body runs five times, each step once.
        ("2026-07-28", 5, {"pay": 1, "post": 1}),
    ]
    assert app.REFUNDS == [("A-17", 30)] * 3  # one refund per call, three calls


@pytest.mark.anyio
async def test_the_payment_runs_once_however_the_rounds_are_resent(
    steps_run_once: StepsRunOnce, make_server: Any
) -> None:
    # steps_run_once drives the 2026-07-28 rounds itself, sends each one again, and follows
    # the task the last one goes on as to its end (the receipt question is asked in it).
    user = ScriptedUser(REQUEST, accept(confirm=True), accept(email="ada@example.com"))
    runs = await steps_run_once(make_server(), "refund", {"order_id": "A-17"}, user=user)
    assert runs.result.content[0].text == (
        "Refunded 30 EUR for a teapot (R-1); receipt sent to ada@example.com."
    )
    assert runs.steps == {"pay": 1, "post": 1}
    assert app.REFUNDS == [("A-17", 30)]
    assert app.BOOKS == ["A-17: -30 EUR (R-1)"]
