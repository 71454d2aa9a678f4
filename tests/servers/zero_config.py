"""A server that configures nothing: no key, no store, no variable. What a new user writes.

    python zero_config.py stdio                          one stdio server (a client's child)
    SERVER_SDK=fastmcp uvicorn tests.servers.zero_config:app --workers 2 --port PORT

``SERVER_SDK`` is ``mcp`` (the official ``MCPServer``, the default) or ``fastmcp``.
``install()`` is called bare, with ``on_unsupported="ask_model"``: the records go to the
default SQLite file of the server and the key to the file beside it, in the user's state
folder (the test run's own, ``XDG_STATE_HOME``, set by tests/conftest.py).

The ``render`` tool (as tests/servers/tasks_worker.py's) asks a name, goes async, works
``seconds``, asks how many copies inside the task, and says which worker ran the task.

The ``trip`` tool asks how many seats, reserves them in a durable step, asks to confirm,
then pays in another (an item named ``slow-...`` blocks inside the payment after its effect:
a worker to kill mid-step; ``TEST_LEASE`` shortens the dialogue's lease, in seconds). Each
step's effect, and each round (with the process id that served it), is one row in the
test's ledger, an SQLite file at ``$LEDGER``: the tests count them across every process,
however many served the call.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from dataclasses import dataclass
from typing import Any

import anyio

from elicitkit import ask, go_async, install, step
from elicitkit.integrations import client_target

SDK = os.environ.get("SERVER_SDK", "mcp")
if SDK == "fastmcp":
    from fastmcp import FastMCP  # only here: importing it takes a second

    server: Any = FastMCP("zero-config")
else:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("zero-config")
install(server, on_unsupported="ask_model")
if "TEST_LEASE" in os.environ:  # a killed worker's dialogue reads as interrupted sooner
    (middleware,) = (m for m in client_target(server).middleware if hasattr(m, "once"))
    middleware.once.lease = float(os.environ["TEST_LEASE"])


def ledger(item: str, what: str) -> int:
    """Write one row (``item``, ``what``, this process); return how many such rows there are."""
    with sqlite3.connect(os.environ["LEDGER"], timeout=30) as db:
        db.execute("CREATE TABLE IF NOT EXISTS rows (item TEXT, what TEXT, pid INTEGER)")
        db.execute("INSERT INTO rows VALUES (?, ?, ?)", (item, what, os.getpid()))
        (count,) = db.execute(
            "SELECT count(*) FROM rows WHERE item = ? AND what = ?", (item, what)
        ).fetchone()
    return int(count)


@dataclass
class Seats:
    count: int


@dataclass
class Confirm:
    ok: bool


def reserve(item: str, count: int) -> int:
    del count  # the number of seats only has to reach the step's digest
    return ledger(item, "reserve")


def pay(item: str, reservation: int) -> int:
    del reservation
    receipt = ledger(item, "pay")
    if item.startswith("slow-"):
        threading.Event().wait()  # never set: the test kills this worker inside the step
    return receipt


@server.tool()
async def trip(item: str) -> str:
    """Ask how many seats, reserve them, ask to confirm, then pay: each step once."""
    ledger(item, "round")
    seats = (await ask(Seats, f"How many seats for {item}?")).unwrap()
    reservation = await step("reserve", reserve, item, seats.count)
    confirmed = (await ask(Confirm, f"Pay for reservation {reservation}?")).unwrap()
    if not confirmed.ok:
        return f"{item}: not paid"
    receipt = await step("pay", pay, item, reservation)
    return f"{item}: {seats.count} seats, reservation {reservation}, receipt {receipt}"


@dataclass
class Name:
    name: str


@dataclass
class Copies:
    copies: int


@server.tool()
async def render(title: str, seconds: float) -> str:
    """Ask, go async, work, ask again, and say which worker ran the task."""
    who = (await ask(Name, "Who is the report for?", key="who")).unwrap()
    await go_async("Rendering")
    await anyio.sleep(seconds)
    copies = (await ask(Copies, "How many copies?", key="copies")).unwrap()
    return f"{title} for {who.name}: {copies.copies} copies, by worker {os.getpid()}."


if SDK == "fastmcp":
    app: Any = server.http_app(stateless_http=True, json_response=True)
else:
    app = server.streamable_http_app(stateless_http=True, json_response=True)

if __name__ == "__main__" and sys.argv[1:] == ["stdio"]:
    if SDK == "fastmcp":
        server.run("stdio", show_banner=False)
    else:
        server.run("stdio")
