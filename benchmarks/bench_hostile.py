"""Hostile-answer benchmark: the time of each check grows linearly with the answer's size.

Run from the repository root::

    .venv/bin/python benchmarks/bench_hostile.py

For each check, the worst input we know how to build is decoded with
``elicitkit.parse_content`` at about 10 KB, 100 KB and 1 MB. Each input is refused (the
script asserts the `InvalidContent` and its field), so the time is that of finding the
problem, which is where a backtracking check would spend quadratic or exponential time.
The last column is the growth from 100 KB to 1 MB: linear is about 10x, quadratic 100x.

Timing: for each size, the minimum of 5 runs (noise only ever adds time); the three sizes
are timed in interleaved rounds so that drift of a shared machine affects them alike.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import platform
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pydantic

import elicitkit
from elicitkit import Email, InvalidContent, Uri

ROUNDS = 5
SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}
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


def _time(form: Any, content: dict[str, Any], key: str) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
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


def _format(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} µs"


def main() -> None:
    print(f"Python {sys.version.split()[0]} on {platform.machine()}, elicitkit hostile answers")
    print("Each figure: the fastest of", ROUNDS, "runs of parse_content on one hostile answer.")
    print()
    header = f"| {'check and input':<30} | " + " | ".join(f"{s:>12}" for s in SIZES)
    print(header + " | 100 KB -> 1 MB |")
    print("|" + "-" * 32 + "|" + "|".join("-" * 14 for _ in SIZES) + "|" + "-" * 16 + "|")
    worst = 0.0
    for label, form, key, build in CASES:
        # Build the inputs first (building 10**1_000_000 is itself slow), outside the timing.
        contents = {size: {key: build(length)} for size, length in SIZES.items()}
        times = {size: _time(form, content, key) for size, content in contents.items()}
        growth = times["1 MB"] / times["100 KB"]
        worst = max(worst, growth)
        cells = " | ".join(f"{_format(times[size]):>12}" for size in SIZES)
        print(f"| {label:<30} | {cells} | {growth:13.1f}x |")
    print()
    print(
        f"Largest growth from 100 KB to 1 MB: {worst:.1f}x (linear is about 10x; a quadratic "
        "check would show about 100x)."
    )


if __name__ == "__main__":
    main()
