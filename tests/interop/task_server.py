"""The interop server (server.py) plus tools that go on as tasks, with counters that tell.

Run it through ``_this_checkout.py`` (which puts the checkout first on ``sys.path``):

    python tests/interop/_this_checkout.py tests/interop/task_server.py [mcp|fastmcp] [--http PORT]

``render`` asks who a report is for, calls ``go_async()``, then asks how many copies. Every
result carries how many times the code before and after ``go_async()`` ran for its title, in
this server process: on 2026-07-28 the code before it runs again on each replay round (the
documented rule), and the code after it must run exactly once, in a task or in the call.
``runs`` reads the counters again after the call, so a second run after the result shows too.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import Annotated, Any

from annotated_types import Ge

from elicitkit import InvalidContent, ask, go_async
from tests.interop.server import build, serve

BEFORE: Counter[str] = Counter()  # per title: how often the code before go_async() ran
AFTER: Counter[str] = Counter()  # per title: how often the code after it ran


@dataclass
class Recipient:
    name: str


@dataclass
class Copies:
    copies: Annotated[int, Ge(1)]


async def render(title: str, retries: int = 0) -> str:
    """Ask who the report is for, go on as a task, and ask how many copies in it."""
    BEFORE[title] += 1
    who = await ask(Recipient, "Who is the report for?")
    as_task = await go_async(f"Rendering {title}")
    AFTER[title] += 1
    name = who.content.name if who.content else "nobody"
    try:
        copies = await ask(Copies, f"{title} is rendered. How many copies?", retries=retries)
    except InvalidContent as problem:
        outcome = "INVALID " + " | ".join(str(error) for error in problem.errors)
    else:
        outcome = (
            f"{copies.unwrap().copies} copies"
            if copies.is_accepted()
            else f"NO COPIES: {copies.action}"
        )
    where = "as a task" if as_task else "in the call"
    return (
        f"REPORT {title} for {name}: {outcome}, {where}; "
        f"before={BEFORE[title]} after={AFTER[title]}"
    )


async def runs(title: str) -> str:
    """How many times the code before and after ``go_async()`` ran for TITLE, so far."""
    return f"RUNS {title} before={BEFORE[title]} after={AFTER[title]}"


def build_with_tasks(flavour: str) -> Any:
    """The interop server of FLAVOUR (server.py's ``build``) with ``render`` and ``runs``."""
    server = build(flavour)
    server.tool(title="Render a report")(render)
    server.tool(title="Runs")(runs)
    return server


def main(argv: list[str]) -> None:
    """Run it like server.py: ``FLAVOUR`` on stdio, or ``FLAVOUR --http PORT``."""
    flavour = argv[0] if argv else "mcp"
    serve(build_with_tasks(flavour), flavour, argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
