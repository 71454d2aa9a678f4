"""Per-call overrides: the schema and the decode, against a cached form and the SDK's way.

    .venv/bin/python benchmarks/bench_overrides.py [--quick]

One 8-field order form (a dataclass for elicitkit, the same fields as a pydantic model for
the SDK) and one valid answer. A typical per-call override changes 3 fields: the options of
``region`` (a list built from account data), a default for ``quantity`` and a title for
``item``. Each contender renders the wire ``requestedSchema``, decodes the answer, and does
both for one call (as ``ask()`` does: one overrides object for the question and its answer):

* **cached form**: ``requested_schema(Order)`` / ``parse_content(Order, answer)``, no
  overrides: the floor.
* **overrides, same values**: a new `Overrides` with the same values built in every call (as
  a tool does: ``ask(Order, overrides=Overrides(choices={"region": regions}, ...))``).
* **overrides, new values**: every call has a region list no earlier call had (1,024
  different lists, in turn), so nothing can be reused from an earlier call.
* **SDK, one model**: the official SDK's path for a form known in advance:
  ``render_elicitation_schema(Model)`` / ``Model.model_validate(answer)``.
* **SDK, model per call**: what an SDK user writes for per-call options, default and title:
  ``pydantic.create_model`` with a ``Literal`` of this call's regions, then the same two calls
  (the decode uses the model built for the call).

Interleaved rounds of ``timeit`` loops; the figure is the fastest round (noise only adds
time), the median round beside it; the ratios compare schema-then-decode. Before timing,
every contender's schema and decoded answer are checked to say the same thing.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import statistics
import timeit
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal

import pydantic
from annotated_types import Ge, Le, MaxLen, MinLen
from mcp.server.elicitation import render_elicitation_schema

import elicitkit

PROTOCOL = "2025-11-25"
Text = Annotated[str, MinLen(1), MaxLen(80)]
Quantity = Annotated[int, Ge(1), Le(10)]
PlanName = Literal["free", "team", "enterprise"]


@dataclasses.dataclass
class Order:
    region: str
    item: Text
    plan: PlanName
    quantity: Quantity = 1
    gift: bool = False
    email: str | None = None
    note: str | None = None
    coupon: str | None = None


class OrderModel(pydantic.BaseModel):
    """`Order` as the SDK takes it: a pydantic model with the same annotations."""

    region: str
    item: Text
    plan: PlanName
    quantity: Quantity = 1
    gift: bool = False
    email: str | None = None
    note: str | None = None
    coupon: str | None = None


REGIONS = ["eu-west", "eu-north", "us-east"]
ANSWER: dict[str, Any] = {"region": "eu-west", "item": "Blue mug", "plan": "team", "gift": True}
DISTINCT = 1024  # region lists of the "new values" case, more than any cache keeps


def overrides_for(regions: list[str]) -> elicitkit.Overrides:
    """The typical per-call override: options from account data, a default, a title."""
    return elicitkit.Overrides(
        choices={"region": regions}, defaults={"quantity": 2}, titles={"item": "Item (SKU 42)"}
    )


def model_for(regions: list[str]) -> type[pydantic.BaseModel]:
    """The SDK user's per-call model: the same three changes, as a new pydantic model."""
    fields: dict[str, Any] = {
        name: (info.annotation, info) for name, info in OrderModel.model_fields.items()
    }
    fields["region"] = (Literal[tuple(regions)], ...)  # type: ignore[valid-type]
    fields["quantity"] = (Quantity, pydantic.Field(2))
    fields["item"] = (Text, pydantic.Field(title="Item (SKU 42)"))
    return pydantic.create_model("OrderModel", **fields)


def _new_values() -> Iterator[list[str]]:
    return itertools.cycle([["eu-west", f"zone-{n}"] for n in range(DISTINCT)])


Case = tuple[Callable[[], object], Callable[[], object], Callable[[], object]]
"""(schema, decode, both): the schema alone, the decode alone, and both for one call with
one overrides object, as ``ask()`` does (it renders the question, then decodes the answer)."""


def cases() -> dict[str, Case]:
    schema, parse = elicitkit.requested_schema, elicitkit.parse_content
    fresh_schema, fresh_decode, fresh_both = _new_values(), _new_values(), _new_values()
    sdk_schema, sdk_both = _new_values(), _new_values()
    models = [model_for(regions) for regions in itertools.islice(_new_values(), 64)]
    per_call_model = itertools.cycle(models)

    def ours_both(overrides: elicitkit.Overrides | None) -> object:
        schema(Order, protocol=PROTOCOL, overrides=overrides)
        return parse(Order, ANSWER, protocol=PROTOCOL, overrides=overrides)

    def sdk_per_call_both() -> object:
        model = model_for(next(sdk_both))
        render_elicitation_schema(model)
        return model.model_validate(ANSWER)

    return {
        "elicitkit, cached form": (
            lambda: schema(Order, protocol=PROTOCOL),
            lambda: parse(Order, ANSWER, protocol=PROTOCOL),
            lambda: ours_both(None),
        ),
        "elicitkit, overrides, same values": (
            lambda: schema(Order, protocol=PROTOCOL, overrides=overrides_for(list(REGIONS))),
            lambda: parse(Order, ANSWER, protocol=PROTOCOL, overrides=overrides_for(list(REGIONS))),
            lambda: ours_both(overrides_for(list(REGIONS))),
        ),
        "elicitkit, overrides, new values": (
            lambda: schema(Order, protocol=PROTOCOL, overrides=overrides_for(next(fresh_schema))),
            lambda: parse(
                Order, ANSWER, protocol=PROTOCOL, overrides=overrides_for(next(fresh_decode))
            ),
            lambda: ours_both(overrides_for(next(fresh_both))),
        ),
        "SDK, one model": (
            lambda: render_elicitation_schema(OrderModel),
            lambda: OrderModel.model_validate(ANSWER),
            lambda: (render_elicitation_schema(OrderModel), OrderModel.model_validate(ANSWER)),
        ),
        "SDK, model per call": (
            lambda: render_elicitation_schema(model_for(next(sdk_schema))),
            # The model is built for the call (timed above); validating with it is the decode.
            lambda: next(per_call_model).model_validate(ANSWER),
            sdk_per_call_both,
        ),
    }


def check() -> None:
    """Every contender says the same thing: the overrides' schema and answer, the SDK's."""
    ours = elicitkit.requested_schema(Order, protocol=PROTOCOL, overrides=overrides_for(REGIONS))
    theirs = render_elicitation_schema(model_for(REGIONS))
    assert list(ours["properties"]) == list(theirs["properties"]), (ours, theirs)
    assert set(ours["required"]) == set(theirs["required"]), (ours, theirs)
    assert ours["properties"]["region"]["enum"] == theirs["properties"]["region"]["enum"]
    assert ours["properties"]["item"]["title"] == theirs["properties"]["item"]["title"]
    assert ours["properties"]["quantity"]["default"] == theirs["properties"]["quantity"]["default"]
    decoded = elicitkit.parse_content(
        Order, ANSWER, protocol=PROTOCOL, overrides=overrides_for(REGIONS)
    )
    by_model = model_for(REGIONS).model_validate(ANSWER)
    assert dataclasses.asdict(decoded) == by_model.model_dump(), (decoded, by_model)
    assert decoded.quantity == 2  # the per-call default, on both sides
    assert elicitkit.parse_content(Order, ANSWER, protocol=PROTOCOL).quantity == 1
    try:  # the per-call options are enforced on decode
        elicitkit.parse_content(
            Order, ANSWER, protocol=PROTOCOL, overrides=overrides_for(["us-east"])
        )
    except elicitkit.InvalidContent:
        pass
    else:
        raise AssertionError("an answer outside this call's options was accepted")


PARTS = ("schema", "decode", "both")


def run(quick: bool) -> list[dict[str, Any]]:
    """Time every contender; one row per contender, in the order of `cases`."""
    check()
    rounds, seconds = (3, 0.02) if quick else (15, 0.2)
    contenders = cases()
    timers: dict[tuple[str, str], timeit.Timer] = {}
    for name, calls in contenders.items():
        for part, call in zip(PARTS, calls, strict=True):
            call()  # first use: compile, render, build (not timed)
            timers[name, part] = timeit.Timer(call)
    numbers: dict[tuple[str, str], int] = {}
    for label, timer in timers.items():
        count, took = timer.autorange()
        numbers[label] = max(1, round(count * seconds / took))
    per_call: dict[tuple[str, str], list[float]] = {label: [] for label in timers}
    for _ in range(rounds):
        for label, timer in timers.items():
            per_call[label].append(timer.timeit(numbers[label]) / numbers[label] * 1e6)
    rows = []
    for name in contenders:
        row: dict[str, Any] = {"contender": name, "rounds": rounds}
        for part in PARTS:
            row[f"{part}_min"] = min(per_call[name, part])
            row[f"{part}_median"] = statistics.median(per_call[name, part])
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown: each contender's figures, and the ratios of its schema-then-decode."""
    by_name = {row["contender"]: row["both_min"] for row in rows}
    cached, sdk = by_name["elicitkit, cached form"], by_name["SDK, one model"]
    sdk_per_call = by_name["SDK, model per call"]
    lines = [
        (
            "| contender | schema µs (min / median) | decode µs (min / median) | "
            "schema then decode µs (min / median) | x cached form | x SDK, one model | "
            "x SDK, model per call |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines.extend(
        f"| {row['contender']} | {row['schema_min']:.2f} / {row['schema_median']:.2f} | "
        f"{row['decode_min']:.2f} / {row['decode_median']:.2f} | "
        f"{row['both_min']:.2f} / {row['both_median']:.2f} | "
        f"{_ratio(row['both_min'] / cached)} | {_ratio(row['both_min'] / sdk)} | "
        f"{_ratio(row['both_min'] / sdk_per_call)} |"
        for row in rows
    )
    return lines


def _ratio(value: float) -> str:
    return f"{value:.2f}x" if value >= 0.1 else f"{value:.4f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    rows = run(parser.parse_args().quick)
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
