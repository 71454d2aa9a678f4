"""Hostile answers: the time of each check grows linearly with the answer's size.

    .venv/bin/python benchmarks/bench_hostile.py [--quick]

For each check, the worst input we know how to build is decoded with
``elicitkit.parse_content`` at about 10 KB, 100 KB and 1 MB (``--quick``: 1 KB and 10 KB).
Each input is refused (the run asserts the `InvalidContent` and its one field), so the time
is that of finding the problem, which is where a backtracking check would spend quadratic or
exponential time. The last column is the growth between the two largest sizes: linear is
about 10x, quadratic 100x.

Timing: for each size, the fastest of 5 runs (``--quick``: 1); noise only ever adds time.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import decimal
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pydantic

import elicitkit
from elicitkit import Email, InvalidContent, Uri

SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}
QUICK_SIZES = {"1 KB": 1_000, "10 KB": 10_000}
GROWTH_LIMIT = 30.0  # linear is about 10x per tenfold size (15x on a busy machine); quadratic 100x
OPTIONS: Any = Literal[tuple(f"option-{number}" for number in range(250))]


@dataclasses.dataclass
class Link:
    link: Annotated[str, Uri]


@dataclasses.dataclass
class Url:
    url: pydantic.AnyUrl


@dataclasses.dataclass
class Mail:
    email: Annotated[str, Email]


@dataclasses.dataclass
class Day:
    day: dt.date


@dataclasses.dataclass
class Moment:
    moment: dt.datetime


@dataclasses.dataclass
class Tags:
    tags: list[OPTIONS]  # type: ignore[valid-type]


class Patterned(pydantic.BaseModel):
    word: str = pydantic.Field(pattern=r"^(a|aa)+$")


@dataclasses.dataclass
class Bounded:
    name: Annotated[str, pydantic.Field(max_length=50)]


@dataclasses.dataclass
class Count:
    count: int


@dataclasses.dataclass
class Amount:
    amount: decimal.Decimal


@dataclasses.dataclass
class Choice:
    size: Literal["s", "m", "l"]


def _nested(depth: int) -> Any:
    value: Any = "s"
    for _ in range(depth):
        value = [value]
    return value


# (label, form, key, build(size in bytes) -> the field's hostile value)
CASES: list[tuple[str, Any, str, Callable[[int], Any]]] = [
    ("uri: authority then a space", Link, "link", lambda n: "https://" + "a" * n + " "),
    ("uri: slashes then a control", Link, "link", lambda n: "a:" + "/" * n + "\x00"),
    ("uri: half escapes", Link, "link", lambda n: "http://h/" + "%4" * (n // 2)),
    ("uri: pydantic AnyUrl", Url, "url", lambda n: "https://" + "a" * n + " "),
    ("email: long local part", Mail, "email", lambda n: "a" * n + "@example.com"),
    ("email: many labels", Mail, "email", lambda n: "a@" + "b." * (n // 2) + "@"),
    ("date: long tail", Day, "day", lambda n: "2024-01-01" + "0" * n),
    ("date-time: long tail", Moment, "moment", lambda n: "2024-01-01T00:00:00" + "0" * n),
    (
        "multi-select: duplicates",
        Tags,
        "tags",
        # Every option once, then the last one again and again (13 bytes of JSON an item).
        # The old check counted each item's copies: (options x items). The set finds the
        # first repeat at item 251, so the cost no longer depends on the list's length.
        lambda n: [f"option-{i}" for i in range(250)] + ["option-249"] * (n // 13),
    ),
    ("pattern: ^(a|aa)+$", Patterned, "word", lambda n: "a" * n + "b"),
    ("text: over max_length", Bounded, "name", lambda n: "n" * n),
    # A JSON number of n digits; comparing it with 10**100 looks at its size first.
    ("int: n digits", Count, "count", lambda n: 10**n),
    ("Decimal: n digits", Amount, "amount", lambda n: -(10**n)),
    # Lists nested n/2 deep ("[" and "]" per level); only 3 levels are ever looked at.
    ("choice: nested lists", Choice, "size", lambda n: _nested(n // 2)),
]


def _time(form: Any, content: dict[str, Any], key: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        try:
            elicitkit.parse_content(form, content)
        except InvalidContent as error:
            elapsed = time.perf_counter() - start
            if [problem.field for problem in error.errors] != [key]:
                raise AssertionError(f"{form.__name__}: unexpected errors {error.errors}") from None
        else:
            raise AssertionError(f"{form.__name__}: the hostile answer was accepted")
        best = min(best, elapsed)
    return best


def run(quick: bool) -> list[dict[str, Any]]:
    """One row per check: its label and the fastest time (seconds) at each size."""
    sizes, rounds = (QUICK_SIZES, 1) if quick else (SIZES, 5)
    rows = []
    for label, form, key, build in CASES:
        # Build the inputs first (building 10**1_000_000 is itself slow), outside the timing.
        contents = {size: {key: build(length)} for size, length in sizes.items()}
        _time(form, next(iter(contents.values())), key, 1)  # the first use compiles the form
        times = {size: _time(form, content, key, rounds) for size, content in contents.items()}
        smaller, larger = list(times)[-2:]
        rows.append({"check": label, "times": times, "growth": times[larger] / times[smaller]})
    return rows


def _format(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def table(rows: list[dict[str, Any]]) -> list[str]:
    sizes = list(rows[0]["times"])
    lines = [
        f"| check and input | {' | '.join(sizes)} | {sizes[-2]} -> {sizes[-1]} |",
        "|---|" + "---:|" * (len(sizes) + 1),
    ]
    for row in rows:
        cells = " | ".join(_format(row["times"][size]) for size in sizes)
        check = row["check"].replace("|", "\\|")  # a "|" in a cell ends it in Markdown
        lines.append(f"| {check} | {cells} | {row['growth']:.1f}x |")
    return lines


def targets(rows: list[dict[str, Any]]) -> list[tuple[str, float, float]]:
    sizes = list(rows[0]["times"])
    worst = max(row["growth"] for row in rows)
    return [(f"hostile answers: largest growth {sizes[-2]} -> {sizes[-1]}", worst, GROWTH_LIMIT)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    rows = run(parser.parse_args().quick)
    print("\n".join(table(rows)))
    for name, growth, limit in targets(rows):
        print(f"{name}: {growth:.1f}x (at most {limit:.0f}x)")


if __name__ == "__main__":
    main()
