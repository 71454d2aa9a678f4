"""Every stage of the tutorial app (examples/tutorial/) on both server SDKs and every era.

The guide grows one refund tool page by page; each stage is a runnable file a reader may
copy. Here each stage's ``build(server)`` runs on a fresh ``MCPServer`` and ``FastMCP``, and
the real SDK client calls it in memory through the testing kit on 2025-06-18, 2025-11-25 and
2026-07-28, with a scripted customer. Each stage is loaded afresh per test, so its fake
payment ledger starts empty and counts the refunds this call made.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer

from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.testing import PROFILES, ScriptedUser, accept, connect, count_runs, decline
from tests.example_modules import fresh_examples

pytestmark = pytest.mark.anyio

TUTORIAL = Path(__file__).parents[1] / "examples" / "tutorial"
STAGES = sorted(path.stem for path in TUTORIAL.glob("stage*.py"))
ERAS = [pytest.param(protocol, id=protocol) for protocol in PROTOCOL_VERSIONS]
REQUEST = accept(reason="damaged", amount=30)
YES = accept(confirm=True)
RECEIPT = accept(email="ada@example.com")


def bare(sdk: str) -> Any:
    """A new server of ``sdk`` without elicitkit: each stage's ``build()`` installs it."""
    return MCPServer("refunds") if sdk == "mcp" else FastMCP("refunds")


@pytest.fixture
def load() -> Iterator[Callable[[str], ModuleType]]:
    """Load a stage as a fresh module (its ledgers empty); forget it afterwards."""
    with fresh_examples() as load_file:
        yield lambda stage: load_file(TUTORIAL / f"{stage}.py")


def test_the_stages_are_the_ones_the_guide_shows() -> None:
    assert STAGES == [
        "stage1_form",
        "stage2_confirm",
        "stage3_step",
        "stage4_task",
        "stage5_fallback",
        "stage6_tests",
    ]


# What the customer answers at each stage, what the tool then says, and how many times its
# body runs on 2026-07-28, where the tool runs again from the top for each question (once on
# the 2025 eras). From stage 4 on, the round that reaches go_async() is the call's last, and
# the task runs the tool twice more: its first leg asks the receipt question (inside the
# task), its second finishes with the answer.
REFUNDED = "Refunded 30 EUR for a teapot (R-1)"
HAPPY: dict[str, tuple[tuple[Any, ...], str, int]] = {
    "stage1_form": ((REQUEST,), "Refund of 30 EUR for a teapot requested (damaged).", 2),
    "stage2_confirm": ((REQUEST, YES), f"{REFUNDED}.", 3),
    "stage3_step": ((REQUEST, YES, RECEIPT), f"{REFUNDED}; receipt sent to ada@example.com.", 4),
    "stage4_task": ((REQUEST, YES, RECEIPT), f"{REFUNDED}; receipt sent to ada@example.com.", 5),
    "stage5_fallback": (
        (REQUEST, YES, RECEIPT),
        f"{REFUNDED}; receipt sent to ada@example.com.",
        5,
    ),
}


@pytest.mark.parametrize("protocol", ERAS)
@pytest.mark.parametrize("stage", list(HAPPY))
async def test_a_refund_at_each_stage(load: Any, stage: str, sdk: str, protocol: str) -> None:
    app = load(stage)
    replies, said, rounds_2026 = HAPPY[stage]
    server = app.build(bare(sdk))
    users: list[ScriptedUser] = []

    def user() -> ScriptedUser:
        users.append(ScriptedUser(*replies))
        return users[-1]

    (runs,) = await count_runs(
        server, "refund", {"order_id": "A-17"}, user=user, protocols=[protocol]
    )
    assert runs.result.content[0].text == said
    assert runs.body == (rounds_2026 if protocol == "2026-07-28" else 1)
    assert [request.message for request in users[0].requests] == [
        "Refund for a teapot (paid 40 EUR)",
        "Refund 30 EUR for a teapot to your card?",
        "Where should we email the receipt?",
    ][: len(replies)]
    if stage != "stage1_form":
        assert app.REFUNDS == [("A-17", 30)]  # paid once, whatever the era
    if stage >= "stage4":  # posting to the books is a step too: a task replays the tool
        assert runs.steps == {"pay": 1, "post": 1}
    elif stage >= "stage3":
        assert runs.steps == {"pay": 1}
    if stage >= "stage4":
        assert app.BOOKS == ["A-17: -30 EUR (R-1)"]


@pytest.mark.parametrize("protocol", ERAS)
async def test_stage1_refuses_more_than_was_paid(load: Any, sdk: str, protocol: str) -> None:
    server = load("stage1_form").build(bare(sdk))
    user = ScriptedUser(accept(reason="wrong item", amount=41))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("refund", {"order_id": "A-17"})
    assert result.content[0].text == "At most 40 EUR can be refunded for a teapot."


@pytest.mark.parametrize("protocol", ERAS)
async def test_stage2_pays_nothing_when_the_customer_says_no(
    load: Any, sdk: str, protocol: str
) -> None:
    app = load("stage2_confirm")
    server = app.build(bare(sdk))
    user = ScriptedUser(REQUEST, accept(confirm=False))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("refund", {"order_id": "A-17"})
    assert result.content[0].text == "No refund."
    assert app.REFUNDS == []


@pytest.mark.parametrize("protocol", ERAS)
async def test_stage3_a_declined_receipt_keeps_the_refund(
    load: Any, sdk: str, protocol: str
) -> None:
    app = load("stage3_step")
    server = app.build(bare(sdk))
    user = ScriptedUser(REQUEST, YES, decline())
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("refund", {"order_id": "A-17"})
    assert result.content[0].text == f"{REFUNDED}."
    assert app.REFUNDS == [("A-17", 30)]


@pytest.mark.parametrize("protocol", ERAS)
async def test_stage5_without_forms_the_model_asks_and_staff_confirm(
    load: Any, sdk: str, protocol: str
) -> None:
    app = load("stage5_fallback")
    server = app.build(bare(sdk))
    async with connect(server, protocol=protocol, profile=PROFILES["no-elicitation"]) as client:
        listing = await client.call_tool("refund", {"order_id": "A-17"})
        questions = listing.structured_content["questions"]
        assert [field["name"] for field in questions[0]["fields"]] == ["reason", "amount", "note"]
        done = await client.call_tool(
            "answer_form",
            {
                "ticket": listing.structured_content["ticket"],
                "answers": {"reason": "damaged", "amount": 30},
            },
        )
    assert (
        done.content[0].text
        == "The refund of 30 EUR for a teapot waits for our staff to confirm it."
    )
    assert app.HELD == [("A-17", 30)]
    assert app.REFUNDS == []


# Stage 6 is the app's own test module, as a reader runs it with pytest. Its tests run here
# as they are, with its server fixture replaced by one for each SDK: stage 6 imports stage 5
# by name, as pytest lets a test module beside it do.
sys.path.insert(0, str(TUTORIAL))
stage6 = importlib.import_module("stage6_tests")
empty_ledgers = stage6.empty_ledgers
test_stage6_a_refund_is_paid_once = stage6.test_a_refund_is_paid_once
test_stage6_no_means_no_refund = stage6.test_no_means_no_refund
test_stage6_without_forms_the_refund_waits_for_staff = (
    stage6.test_without_forms_the_refund_waits_for_staff
)
test_stage6_the_payment_runs_once_on_every_era = stage6.test_the_payment_runs_once_on_every_era
test_stage6_the_payment_runs_once_however_the_rounds_are_resent = (
    stage6.test_the_payment_runs_once_however_the_rounds_are_resent
)


@pytest.fixture
def make_server(sdk: str) -> Any:
    """Stage 6's servers, on each SDK in turn (its own fixture builds an ``MCPServer``)."""
    return lambda: stage6.app.build(bare(sdk))


def test_every_test_of_stage6_runs_here() -> None:
    theirs = {name for name in vars(stage6) if name.startswith("test_")}
    here = {
        name.removeprefix("test_stage6_") for name in globals() if name.startswith("test_stage6_")
    }
    assert here == {name.removeprefix("test_") for name in theirs}
