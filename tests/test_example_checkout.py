"""examples/quote_confirm_pay.py as a real stdio MCP server, on both eras, with the SDK client.

The example's fake pricing service and payment provider number their quotes and payments
process-wide, and the session makes three checkouts: consecutive numbers in the results
prove each step ran exactly once per call, although on 2026-07-28 the tool body ran once
per round (three rounds for a paid checkout).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO

import pytest

from tests.test_stdio import ERAS, REPO, accept, run_sdk, text_of

CHECKOUT = REPO / "examples" / "quote_confirm_pay.py"


@pytest.fixture
def errlog(starts_processes: None) -> Iterator[IO[str]]:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        yield log


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
def test_each_step_of_the_checkout_example_runs_once_per_call(
    mode: str, protocol: str, errlog: IO[str]
) -> None:
    session, results = run_sdk(
        CHECKOUT,
        mode,
        [
            ("checkout", {"item": "lamp", "quantity": 2}),
            ("checkout", {"item": "mug"}),
            ("checkout", {"item": "kettle"}),
        ],
        [
            accept({"value": True}),
            accept({"value": "Oslo"}),
            accept({"value": False}),
            accept({"value": True}),
            accept({"value": "Bergen"}),
        ],
        errlog,
    )
    assert session.protocol == protocol
    assert [text_of(result) for result in results] == [
        "Paid 84 EUR (payment 1 for quote 1); shipping to Oslo.",
        "Nothing paid for quote 2.",
        "Paid 42 EUR (payment 2 for quote 3); shipping to Bergen.",
    ]
    assert [params.message for params in session.asked] == [
        "Pay 84 EUR for 2 x lamp?",
        "Which city should we ship to?",
        "Pay 42 EUR for 1 x mug?",
        "Pay 42 EUR for 1 x kettle?",
        "Which city should we ship to?",
    ]
