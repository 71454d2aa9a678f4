"""The rich-form examples as real stdio MCP servers, on both eras."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import IO

import pytest

from tests.spec_check import spec_errors
from tests.test_stdio import ERAS, REPO, accept, run_sdk, text_of

PER_CALL = REPO / "examples" / "per_call_choices.py"


@pytest.fixture
def errlog(starts_processes: None) -> Iterator[IO[str]]:
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        yield log


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
def test_per_call_choices_example(mode: str, protocol: str, errlog: IO[str]) -> None:
    plan = {"region": "eu-north-1", "size": "medium", "replicas": 2, "confirm_cost": True}
    session, results = run_sdk(
        PER_CALL,
        mode,
        [
            ("deploy", {"account": "acme", "service": "orders-db"}),
            ("deploy", {"account": "globex", "service": "web"}),
        ],
        # The second call's region is not offered to globex: the same answer three times
        # (the question and ask()'s two re-asks), then the tool reports the problem.
        [accept(plan), accept(plan), accept(plan), accept(plan)],
        errlog,
    )
    assert session.protocol == protocol
    assert [text_of(result) for result in results] == [
        "Deploying orders-db to eu-north-1: 2 x medium.",
        "Not deployed: region: Must be \"US East (Virginia)\" ('us-east-1'); got 'eu-north-1'.",
    ]
    first, second, *reasked = session.asked
    assert len(reasked) == 2
    properties = first.requested_schema["properties"]
    assert properties["region"]["oneOf"] == [
        {"const": "eu-west-1", "title": "Europe (Ireland)"},
        {"const": "eu-north-1", "title": "Europe (Stockholm)"},
    ]
    assert properties["size"]["default"] == "large"
    assert properties["confirm_cost"]["title"] == "I accept the monthly cost of orders-db"
    assert second.requested_schema["properties"]["size"]["default"] == "small"
    assert spec_errors(first.requested_schema, protocol) == []


NESTED = REPO / "examples" / "nested_order.py"


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
def test_nested_order_example(mode: str, protocol: str, errlog: IO[str]) -> None:
    shipping = {"quantity": 2, "shipping_street": "1 Main St", "shipping_city": "Oslo"}
    session, results = run_sdk(
        NESTED,
        mode,
        [("order", {"item": "teapot"}), ("order", {"item": "kettle"})],
        [
            accept(shipping),
            # Half a billing address, three times (the question and two re-asks).
            *[accept({**shipping, "billing_city": "Bergen", "billing_country": "SE"})] * 3,
        ],
        errlog,
    )
    assert session.protocol == protocol
    assert [text_of(result) for result in results] == [
        "2 x teapot to 1 Main St, Oslo (NO); invoice to Oslo.",
        "Not ordered: billing_street: Required when any of Billing is filled in.",
    ]
    properties = session.asked[0].requested_schema["properties"]
    assert properties["billing_country"]["title"] == "Billing › Country"
    assert spec_errors(session.asked[0].requested_schema, protocol) == []


FILL = REPO / "examples" / "fill_missing_tool.py"


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
def test_fill_missing_example(mode: str, protocol: str, errlog: IO[str]) -> None:
    session, results = run_sdk(
        FILL,
        mode,
        [
            ("book_table", {"restaurant": "Maaemo", "day": "2026-12-24"}),
            ("book_table", {"restaurant": "Maaemo", "day": "2026-12-24", "guests": 2}),
        ],
        [accept({"guests": 4})],
        errlog,
    )
    assert session.protocol == protocol
    assert [text_of(result) for result in results] == [
        "Booked Maaemo on Thursday 24 December for 4.",
        "Booked Maaemo on Thursday 24 December for 2.",
    ]
    [asked] = session.asked
    assert asked.message == "A few details for the booking"
    assert asked.requested_schema == {
        "type": "object",
        "properties": {
            "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12}
        },
        "required": ["guests"],
    }
