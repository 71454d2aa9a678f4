"""One worker of a multi-process server: streamable HTTP, stateless, configured by environment.

    MCP_REQUEST_STATE_KEY=... ELICITKIT_REDIS_URL=redis://... python scaleout_worker.py PORT SDK

``SDK`` is ``mcp`` (the official ``MCPServer``) or ``fastmcp`` (a ``FastMCP``).
``install()`` reads both variables (the documented multi-worker setup). The tool asks three
questions, then performs its side effect: one ``INCR`` in Redis, so the tests can count it
across every worker. Each run of the tool (one per round: 2026-07-28 replays it) also
appends this process's id to a list, so the tests can see which worker served each round.

For the fault-injection tests (tests/test_scaleout_faults.py): ``EFFECTS_REDIS_URL`` counts
the side effects in another Redis than the store (one the test does not restart);
``TEST_LEASE`` and ``TEST_STORE_TIMEOUT`` shorten the lease and the store timeout (seconds);
an item named ``slow-...`` takes 30 s after its side effect (a worker to kill mid-round).

The ``trip`` tool (tests/test_scaleout_steps.py) asks, runs a durable step, asks, runs
another: each step's effect is one ``INCR`` in the effects Redis, so the tests count how
many times each step's function ran across both workers; a ``slow-...`` item's first
payment sleeps 30 s after its effect (a worker to kill mid-step; ``safe=true`` marks the
payment ``retry_safe``); a ``declined-...`` item's payment raises `CardDeclinedError`
after its effect, and the tool asks whether to try again later.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from redis.asyncio import Redis

from elicitkit import ask, install, step
from elicitkit.integrations import client_target

SDK = sys.argv[2] if len(sys.argv) > 2 else "mcp"
# Every worker has the same name: it is the audience sealed into requestState.
server: Any = MCPServer("scaleout")
if SDK == "fastmcp":
    from fastmcp import FastMCP  # only here: importing it takes a second

    server = FastMCP("scaleout")
install(server)
redis = Redis.from_url(os.environ.get("EFFECTS_REDIS_URL") or os.environ["ELICITKIT_REDIS_URL"])
if "TEST_LEASE" in os.environ:
    (middleware,) = (m for m in client_target(server).middleware if hasattr(m, "once"))
    middleware.once.lease = float(os.environ["TEST_LEASE"])
    middleware.once.timeout = float(os.environ["TEST_STORE_TIMEOUT"])


@dataclass
class Quantity:
    count: int


@dataclass
class Size:
    size: Literal["S", "M", "L"]


@dataclass
class Confirm:
    ok: bool


@server.tool()
async def order(item: str) -> str:
    """Ask how many, which size, and to confirm; then place the order (once)."""
    await redis.rpush(f"rounds:{item}", os.getpid())
    quantity = (await ask(Quantity, f"How many {item}?")).unwrap()
    size = (await ask(Size, "Which size?")).unwrap()
    confirmed = (await ask(Confirm, "Place the order?")).unwrap()
    if not confirmed.ok:
        return f"{item}: not ordered"
    placed = await redis.incr(f"effects:{item}")
    if item.startswith("slow-"):
        await anyio.sleep_forever()  # the test kills this worker meanwhile
    return f"{item}: {quantity.count} x {size.size}, order number {placed}"


async def reserve(item: str, count: int) -> int:
    """Reserve ``count`` seats: the reservation number (the step's side effect)."""
    del count  # the number of seats only has to reach the step's digest
    return int(await redis.incr(f"reserve:{item}"))


class CardDeclinedError(ValueError):
    """The payment provider refused the card (rebuilt as itself in any worker)."""


async def pay(item: str, reservation: int) -> int:
    """Pay for a reservation: the receipt number (the step's side effect)."""
    receipt = int(await redis.incr(f"pay:{item}"))
    if item.startswith("slow-") and receipt == 1:
        await anyio.sleep_forever()  # the test kills this worker meanwhile, inside the step
    if item.startswith("declined-"):
        raise CardDeclinedError(f"card declined for reservation {reservation}")
    return receipt


@server.tool()
async def trip(item: str, safe: bool = False) -> str:
    """Ask how many seats, reserve them, ask to confirm, then pay: each step once."""
    await redis.rpush(f"rounds:{item}", os.getpid())
    seats = (await ask(Quantity, f"How many seats for {item}?")).unwrap()
    reservation = await step("reserve", reserve, item, seats.count)
    confirmed = (await ask(Confirm, f"Pay for reservation {reservation}?")).unwrap()
    if not confirmed.ok:
        return f"{item}: not paid"
    try:
        receipt = await step("pay", pay, item, reservation, retry_safe=safe)
    except CardDeclinedError as error:
        later = (await ask(Confirm, f"{error}. Try again later?")).unwrap()
        return f"{item}: {type(error).__name__}: {error}; later: {later.ok}"
    return f"{item}: reservation {reservation}, receipt {receipt}"


if __name__ == "__main__":
    quiet = {"show_banner": False, "log_level": "WARNING"} if SDK == "fastmcp" else {}
    server.run(
        "streamable-http",
        host="127.0.0.1",
        port=int(sys.argv[1]),
        stateless_http=True,
        json_response=True,
        **quiet,
    )
