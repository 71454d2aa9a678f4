"""Per-call overrides are cached by value, and one call's values never stand in for another's."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import enum
import gc
import weakref
from collections.abc import Iterator
from decimal import Decimal
from typing import Annotated, Any, Literal

import annotated_types as at
import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

import elicitkit._compiler.overrides
from elicitkit import (
    FormDefinitionError,
    InvalidContent,
    Overrides,
    ask,
    install,
    parse_content,
    requested_schema,
)
from elicitkit._compiler.compiled_forms import compiled_form
from elicitkit._compiler.overrides import MAX_CACHED_OVERRIDES
from tests.sdks import ERAS
from tests.spec_check import assert_spec_valid


class Plan(enum.Enum):
    FREE = "free"
    TEAM = "team"


class Tier(enum.Enum):  # the same names and values as Plan, another class
    FREE = "free"
    TEAM = "team"


@dataclasses.dataclass
class Order:
    region: str
    plan: Plan
    tags: list[Literal["a", "b", "c"]] = dataclasses.field(default_factory=list[Any])
    quantity: Annotated[int, at.Ge(0), at.Le(10)] = 1
    ratio: float = 0.5
    gift: bool = False
    price: Decimal | None = None
    when: dt.datetime | None = None
    note: str = ""


ANSWER = {"region": "eu", "plan": "free"}  # every optional field left to its default


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    compiled_form(Order).overridden.clear()
    yield
    compiled_form(Order).overridden.clear()


@pytest.fixture
def applied(monkeypatch: pytest.MonkeyPatch) -> list[Overrides]:
    """Every time overrides are actually applied to a form (a cache hit applies nothing)."""
    seen: list[Overrides] = []
    original = elicitkit._compiler.overrides.apply_overrides

    def counting(spec: Any, overrides: Overrides, *args: Any) -> Any:
        seen.append(overrides)
        return original(spec, overrides, *args)

    monkeypatch.setattr(elicitkit._compiler.overrides, "apply_overrides", counting)
    return seen


def _outcome(overrides: Overrides) -> tuple[str, str]:
    """What a call with ``overrides`` shows and decodes, exactly (``repr`` tells -0.0 and 0.0,
    1 and 1.0, Decimal('1.0') and Decimal('1.00') apart), or the sentence it is refused with."""
    try:
        schema = requested_schema(Order, overrides=overrides)
    except FormDefinitionError as error:
        shown = f"refused: {error}"
    else:
        assert_spec_valid(schema, "2026-07-28")
        shown = repr(schema)
    try:
        decoded = repr(parse_content(Order, ANSWER, overrides=overrides))
    except (FormDefinitionError, InvalidContent) as error:
        decoded = f"refused: {error}"
    return shown, decoded


UTC, PLUS_ONE = dt.timezone.utc, dt.timezone(dt.timedelta(hours=1))

# Pairs of overrides that Python calls equal, or nearly, and that differ on the wire, in
# the decoded answer, or in whether they are refused.
LOOK_ALIKE = [
    pytest.param({"defaults": {"quantity": 1}}, {"defaults": {"quantity": True}}, id="1 vs True"),
    pytest.param({"defaults": {"gift": True}}, {"defaults": {"gift": 1}}, id="True vs 1"),
    pytest.param({"defaults": {"ratio": 1}}, {"defaults": {"ratio": 1.0}}, id="1 vs 1.0"),
    pytest.param({"defaults": {"ratio": 0.0}}, {"defaults": {"ratio": -0.0}}, id="0.0 vs -0.0"),
    pytest.param(
        {"defaults": {"price": Decimal("1.0")}},
        {"defaults": {"price": Decimal("1.00")}},
        id="Decimal 1.0 vs 1.00",
    ),
    pytest.param(
        {"defaults": {"when": dt.datetime(2026, 1, 1, 12, tzinfo=UTC)}},
        {"defaults": {"when": dt.datetime(2026, 1, 1, 13, tzinfo=PLUS_ONE)}},
        id="one instant, two offsets",
    ),
    pytest.param({"defaults": {"tags": ("a",)}}, {"defaults": {"tags": ["a"]}}, id="tuple vs list"),
    pytest.param({"choices": {"region": ["1"]}}, {"choices": {"region": [1]}}, id="'1' vs 1"),
    pytest.param(
        {"choices": {"region": ["eu", "us"]}},
        {"choices": {"region": ["us", "eu"]}},
        id="option order",
    ),
    pytest.param(
        {"choices": {"region": {"eu": "Europe"}}},
        {"choices": {"region": {"eu": "EU"}}},
        id="labels",
    ),
    pytest.param(
        {"choices": {"region": ["eu"]}}, {"choices": {"region": {"eu": "eu"}}}, id="list vs labels"
    ),
    pytest.param(
        {"choices": {"plan": [Plan.FREE]}},
        {"choices": {"plan": [Tier.FREE]}},
        id="same member name, other Enum",
    ),
    pytest.param({"titles": {"note": "x"}}, {"descriptions": {"note": "x"}}, id="title vs text"),
    pytest.param({"titles": {"note": "x"}}, {"titles": {"region": "x"}}, id="other field"),
    pytest.param({"defaults": {"note": "x"}}, {}, id="default vs none"),
]


@pytest.mark.parametrize(("first", "second"), LOOK_ALIKE)
def test_look_alike_overrides_never_share_a_cached_application(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    alone = []
    for values in (first, second):  # each on its own, with nothing cached
        compiled_form(Order).overridden.clear()
        alone.append(_outcome(Overrides(**values)))
    assert alone[0] != alone[1]  # the pair is worth testing
    for _ in range(2):  # now interleaved, each call with a new Overrides of equal values
        assert _outcome(Overrides(**copy.deepcopy(first))) == alone[0]
        assert _outcome(Overrides(**copy.deepcopy(second))) == alone[1]


def test_equal_values_find_the_same_application(applied: list[Overrides]) -> None:
    def per_call() -> Overrides:  # as a tool builds them: new objects every call
        return Overrides(
            choices={"region": ["eu", "us"]}, defaults={"quantity": 2}, titles={"note": "Note"}
        )

    schema = requested_schema(Order, overrides=per_call())
    assert requested_schema(Order, overrides=per_call()) == schema
    assert parse_content(Order, ANSWER, overrides=per_call()).quantity == 2
    assert len(applied) == 1
    # Another protocol version is rendered for the same application.
    legacy = requested_schema(Order, protocol="2025-11-25", overrides=per_call())
    assert requested_schema(Order, protocol="2025-11-25", overrides=per_call()) == legacy
    assert len(applied) == 1


def test_an_option_list_changed_in_place_is_read_again() -> None:
    regions = ["eu", "us"]
    overrides = Overrides(choices={"region": regions})
    before = requested_schema(Order, overrides=overrides)
    kept = copy.deepcopy(before)
    regions.append("ap")
    after = requested_schema(Order, overrides=overrides)
    assert after["properties"]["region"]["enum"] == ["eu", "us", "ap"]
    assert parse_content(Order, {**ANSWER, "region": "ap"}, overrides=overrides).region == "ap"
    assert before == kept  # what the first call was given did not change
    regions.remove("ap")
    with pytest.raises(InvalidContent):
        parse_content(Order, {**ANSWER, "region": "ap"}, overrides=overrides)


def test_what_one_call_gets_is_never_changed_by_another() -> None:
    # A list default is the call's own: never cached, so never handed to the next call.
    first = parse_content(Order, ANSWER, overrides=Overrides(defaults={"tags": ["a"]}))
    first.tags.append("b")
    second = parse_content(Order, ANSWER, overrides=Overrides(defaults={"tags": ["a"]}))
    assert second.tags == ["a"]
    assert first.tags is not second.tags
    # A schema handed out stays as it was while later calls fill and overflow the cache.
    schema = requested_schema(Order, overrides=Overrides(choices={"region": ["eu"]}))
    kept = copy.deepcopy(schema)
    base = requested_schema(Order)
    kept_base = copy.deepcopy(base)
    for number in range(MAX_CACHED_OVERRIDES + 5):
        overrides = Overrides(
            choices={"region": [f"r{number}"]},
            defaults={"quantity": number % 10},
            titles={"region": f"Region {number}"},
        )
        requested_schema(Order, overrides=overrides)
        parse_content(Order, {**ANSWER, "region": f"r{number}"}, overrides=overrides)
    assert schema == kept
    assert requested_schema(Order) == kept_base
    assert base == kept_base


def test_the_cache_keeps_only_the_most_recent_applications(applied: list[Overrides]) -> None:
    def numbered(number: int) -> Overrides:
        return Overrides(titles={"note": f"Note {number}"})

    first = requested_schema(Order, overrides=numbered(0))
    for number in range(1, MAX_CACHED_OVERRIDES + 10):
        requested_schema(Order, overrides=numbered(number))
    assert len(applied) == MAX_CACHED_OVERRIDES + 10
    # The most recent ones are found again: nothing is applied for them.
    for number in range(10, MAX_CACHED_OVERRIDES + 10):
        requested_schema(Order, overrides=numbered(number))
    assert len(applied) == MAX_CACHED_OVERRIDES + 10
    again = requested_schema(Order, overrides=numbered(0))  # dropped, so applied again
    assert len(applied) == MAX_CACHED_OVERRIDES + 11
    assert again == first


def _generated(options: list[str]) -> Iterator[str]:
    yield from options


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(_generated, id="generator"),
        pytest.param(lambda options: dict.fromkeys(options, "x").keys(), id="keys view"),
    ],
)
def test_options_that_cannot_be_read_twice_are_applied_every_call(
    make: Any, applied: list[Overrides]
) -> None:
    for options in (["eu", "us"], ["ap"], ["eu", "us"]):
        schema = requested_schema(Order, overrides=Overrides(choices={"region": make(options)}))
        assert schema["properties"]["region"]["enum"] == options
    assert len(applied) == 3


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        pytest.param(
            Overrides(titles={"regoin": "Region"}),
            "Cannot ask Order with overrides: 'regoin' is not a field of Order. Name its fields "
            "as declared: 'region', 'plan', 'tags', 'quantity', 'ratio', 'gift', 'price', "
            "'when', 'note'.",
            id="unknown field",
        ),
        pytest.param(
            Overrides(defaults={"quantity": 11}),
            "Cannot ask Order with overrides for field 'quantity': the default 11 does not fit "
            "the field (Must be at most 10). Give a value of the field's type within its limits "
            "(for a choice, one of its options).",
            id="default out of bounds",
        ),
    ],
)
def test_refusals_are_never_cached(
    overrides: Overrides, message: str, applied: list[Overrides]
) -> None:
    for _ in range(3):
        with pytest.raises(FormDefinitionError) as caught:
            requested_schema(Order, overrides=overrides)
        assert str(caught.value) == message
        with pytest.raises(FormDefinitionError) as caught:
            parse_content(Order, ANSWER, overrides=overrides)
        assert str(caught.value) == message
    assert len(applied) == 6  # each call tried afresh


def test_a_form_built_per_call_dies_with_its_cached_overrides() -> None:
    def per_call_form() -> weakref.ref[type]:
        tp = dataclasses.make_dataclass("Slot", [("slot", str), ("seats", int, 1)])
        overrides = Overrides(choices={"slot": ["9:00", "10:00"]}, defaults={"seats": 2})
        requested_schema(tp, overrides=overrides)
        assert parse_content(tp, {"slot": "9:00"}, overrides=overrides).seats == 2
        return weakref.ref(tp)

    dead = [per_call_form() for _ in range(20)]
    gc.collect()
    assert [ref() for ref in dead] == [None] * 20


# --------------------------------------------------------------------------------------
# Through real calls, on both eras: each call's options, whatever was cached before
# --------------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_each_call_asks_and_enforces_its_own_options(mode: str, version: str) -> None:
    server = install(MCPServer("overrides-cache"))

    @server.tool()
    async def order(regions: list[str]) -> str:
        overrides = Overrides(choices={"region": regions}, defaults={"quantity": len(regions)})
        try:
            answer = await ask(Order, "Your order", overrides=overrides, retries=0)
        except InvalidContent as problem:
            return "invalid: " + " | ".join(f"{e.field}={e.message}" for e in problem.errors)
        content = answer.unwrap()
        return f"{content.region}/{content.quantity}"

    seen: list[Any] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params.requested_schema["properties"]["region"]["enum"])
        assert_spec_valid(params.requested_schema, version)
        return types.ElicitResult(action="accept", content=ANSWER)

    calls = [(["eu", "us"], "eu/2"), (["us"], "invalid: region=Must be 'us'; got 'eu'.")]
    with anyio.fail_after(20):
        async with Client(server, mode=mode, elicitation_callback=callback) as client:
            for regions, expected in calls * 2:
                result = await client.call_tool("order", {"regions": regions})
                assert result.content[0].text == expected
    assert seen == [["eu", "us"], ["us"], ["eu", "us"], ["us"]]
