"""The stdio MCP server the real clients of the interop suite talk to, in two flavours.

Each tool asks one form (`long_report` two, around a `go_async()`) and returns a sentence
that spells out the typed answer, so a test can check what the client sent by reading the
tool result the client shows.

The tools are written once, as plain functions, and registered on the server of the flavour
named on the command line: the official SDK's ``MCPServer`` (``mcp``, the default) or
fastmcp's ``FastMCP`` (``fastmcp``). A real client must see the same forms and get the same
results from both. (A command-line argument, not an environment variable: the Inspector
passes only a few variables of its own environment to the servers it starts.)

    python tests/interop/server.py [mcp|fastmcp] [--http PORT]
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal

from annotated_types import Gt, Le, MaxLen, MinLen
from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, InvalidContent, ask, form, go_async, install
from elicitkit.url import ask_url


class Cabin(Enum):
    """A labelled single choice."""

    SEA = "sea"
    GARDEN = "garden"
    __labels__ = {"SEA": "Sea view", "GARDEN": "Garden side"}


Extra = Literal["breakfast", "parking", "late"]


@form(message="Plan your stay")
@dataclass
class Stay:
    """Every widget kind a person fills in: text, number, choice, multi-select, box, date."""

    guest: Annotated[str, MinLen(2), MaxLen(40), FormField(description="Name on the booking")]
    nights: Annotated[int, Gt(0), Le(14), FormField(description="How many nights")]
    cabin: Cabin
    extras: Annotated[
        set[Extra],
        FormField(labels={"breakfast": "Breakfast", "parking": "Parking", "late": "Late exit"}),
    ]
    day: Annotated[dt.date, FormField(description="Arrival day, YYYY-MM-DD")]
    insured: bool = False


# One full, valid answer to `Stay`, as a client sends it: the booking every client test makes.
STAY = {
    "guest": "Ada Lovelace",
    "nights": 3,
    "cabin": "garden",
    "extras": ["breakfast", "late"],
    "day": "2026-12-24",
    "insured": True,
}


@form(message="Any preferences?")
@dataclass
class Preferences:
    """Optional fields only, with and without defaults: what a client sends when left alone."""

    pillow: Literal["soft", "firm"] | None = None
    view: Cabin = Cabin.GARDEN
    newsletter: bool | None = None
    towels: set[Extra] | None = None
    floor: int | None = None


async def plan_stay() -> str:
    """Ask for the details of a stay and repeat them back."""
    try:
        # retries=0: this suite checks that the per-field report reaches the person in a
        # real client; re-asking is tested with the SDK client (tests/test_retry.py).
        answer = await ask(Stay, retries=0)
    except InvalidContent as problem:
        return "INVALID " + " | ".join(str(error) for error in problem.errors)
    if not answer.is_accepted():
        return f"NO STAY: {answer.action}"
    stay = answer.unwrap()
    extras = ",".join(sorted(stay.extras)) or "none"
    return (
        f"STAY guest={stay.guest} nights={stay.nights} cabin={stay.cabin.value} "
        f"extras={extras} day={stay.day.isoformat()} insured={stay.insured}"
    )


async def preferences() -> str:
    """Ask for optional preferences and repeat back exactly what arrived."""
    try:
        answer = await ask(Preferences, retries=0)
    except InvalidContent as problem:
        return "INVALID " + " | ".join(str(error) for error in problem.errors)
    if not answer.is_accepted():
        return f"NO PREFS: {answer.action}"
    prefs = answer.unwrap()
    towels = None if prefs.towels is None else ",".join(sorted(prefs.towels)) or "empty"
    return (
        f"PREFS pillow={prefs.pillow} view={prefs.view.value} newsletter={prefs.newsletter} "
        f"towels={towels} floor={prefs.floor}"
    )


async def yes_or_no() -> str:
    """Ask a bare yes/no question."""
    answer = await ask(bool, "Send the newsletter?")
    if not answer.is_accepted():
        return f"NO ANSWER: {answer.action}"
    return f"ANSWER {answer.unwrap()}"


async def tip() -> str:
    """Ask for a number that must be more than 0 (an exclusive float bound)."""
    try:
        answer = await ask(
            Annotated[float, Gt(0), Le(50), FormField(title="Tip", description="In euros")],
            retries=0,
        )
    except InvalidContent as problem:
        return "INVALID " + " | ".join(str(error) for error in problem.errors)
    if not answer.is_accepted():
        return f"NO TIP: {answer.action}"
    return f"TIP {answer.unwrap()}"


async def stay_reasked() -> str:
    """Ask for a stay, and ask again once with the problems spelled out if it does not fit."""
    try:
        answer = await ask(Stay, retries=1)
    except InvalidContent as problem:
        return "INVALID " + " | ".join(str(error) for error in problem.errors)
    if not answer.is_accepted():
        return f"NO STAY: {answer.action}"
    stay = answer.unwrap()
    return f"STAY guest={stay.guest} nights={stay.nights} day={stay.day.isoformat()}"


async def open_link() -> str:
    """Send the person to a page (URL mode); the consent is taken as done."""
    answer = await ask_url("Sign in at the bank to link your account.", LINK)
    return f"LINK {answer.action}"


# How often the code after go_async() ran, per number of pages asked for (a test asks for a
# number of pages once per server: the tools take no arguments, so that both flavours list
# the same input schemas). On 2026-07-28 a client without the Tasks extension answers both
# questions as replay rounds, so that code runs in two rounds (docs/long-work.md); on the
# 2025 eras, and in a task, it runs once.
RAN_AFTER_GO_ASYNC: dict[int, int] = {}


async def long_report() -> str:
    """Ask how many pages, go async, ask how many copies; say how often the middle ran."""
    pages = await ask(Annotated[int, Gt(0)], "How many pages?")
    in_a_task = await go_async("Rendering the report")
    key = pages.unwrap() if pages.is_accepted() else 0
    RAN_AFTER_GO_ASYNC[key] = RAN_AFTER_GO_ASYNC.get(key, 0) + 1
    copies = await ask(Annotated[int, Gt(0)], "How many copies?")
    if not (pages.is_accepted() and copies.is_accepted()):
        return f"NO REPORT: {pages.action}, {copies.action}"
    return (
        f"REPORT pages={pages.unwrap()} copies={copies.unwrap()} task={in_a_task} "
        f"after_go_async_ran={RAN_AFTER_GO_ASYNC[key]}"
    )


LINK = "https://bank.example/authorize"
TOOLS: tuple[Callable[[], Awaitable[str]], ...] = (
    plan_stay,
    preferences,
    yes_or_no,
    tip,
    stay_reasked,
    open_link,
    long_report,
)
# fastmcp gives every tool a title (its name in title case) and clients show the title
# rather than the name: explicit titles make both flavours list the same tools.
TITLES = {
    "plan_stay": "Plan a stay",
    "preferences": "Preferences",
    "yes_or_no": "Yes or no",
    "tip": "Tip",
    "stay_reasked": "Plan a stay, asked again if need be",
    "open_link": "Open a link",
    "long_report": "A long report",
}
FLAVOURS = ("mcp", "fastmcp")


def build(flavour: str) -> Any:
    """The interop server of FLAVOUR (``mcp`` or ``fastmcp``) with elicitkit and every tool."""
    if flavour == "mcp":
        server: Any = MCPServer("elicitkit-interop")
    elif flavour == "fastmcp":
        from fastmcp import FastMCP  # noqa: PLC0415 (slow to import: only when asked for)

        server = FastMCP("elicitkit-interop")
    else:
        raise SystemExit(f"Unknown server flavour {flavour!r}: use one of {', '.join(FLAVOURS)}.")
    install(server)
    for tool in TOOLS:
        server.tool(title=TITLES[tool.__name__])(tool)
    return server


def main(argv: list[str]) -> None:
    """Run the server of the flavour named in ARGV (default ``mcp``) on stdio.

    ``--http PORT`` after the flavour serves streamable HTTP on 127.0.0.1:PORT at ``/mcp``
    instead, for clients that speak only HTTP (the mcp-use Inspector).
    """
    flavour = argv[0] if argv else "mcp"
    serve(build(flavour), flavour, argv[1:])


def serve(server: Any, flavour: str, options: list[str]) -> None:
    """Run ``server`` of ``flavour`` on stdio, or on HTTP with ``options`` ``--http PORT``."""
    if options[:1] == ["--http"]:
        port = int(options[1])
        if flavour == "fastmcp":
            server.run("http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)
        else:
            server.run("streamable-http", host="127.0.0.1", port=port)
    elif flavour == "fastmcp":
        server.run("stdio", show_banner=False)  # the banner is noise in the clients' logs
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
