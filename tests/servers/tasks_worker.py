"""One worker of a multi-process server with tasks: streamable HTTP, Redis task store.

    MCP_REQUEST_STATE_KEY=... ELICITKIT_REDIS_URL=redis://... TASKS_PREFIX=... \\
        python tasks_worker.py PORT SDK

``SDK`` is ``mcp`` (the official ``MCPServer``) or ``fastmcp`` (a ``FastMCP``).

Both workers share the sealing key, the dialogue store (``ELICITKIT_REDIS_URL``, read by
``install()``) and a `RedisTaskStore` under ``TASKS_PREFIX`` with a one-second lease, so a
killed worker's task is found within about a second. The ``render`` tool asks a name, goes
async, works ``seconds``, asks how many copies, and reports which worker ran the task.

For the fault tests (tests/test_tasks_faults.py): ``TEST_CLOCK_OFFSET`` (seconds) sets this
worker's clock off by that much (``time.time``, which every wall-clock reading goes
through); ``TEST_STORE_TIMEOUT`` shortens the task store's timeout; with
``EFFECTS_REDIS_URL`` the body counts its starts (after ``go_async()``: once per leg of the
task) and its ends (any way it leaves: finished, cancelled, stopped) under
``effects:<title>:started`` / ``:stopped``, and lists the pid of the worker running each
leg under ``effects:<title>:workers`` (a leg runs on whichever worker Docket gives it to).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from redis.asyncio import Redis

from elicitkit import ask, go_async, install
from elicitkit.stores import RedisTaskStore

if "TEST_CLOCK_OFFSET" in os.environ:
    _offset = float(os.environ["TEST_CLOCK_OFFSET"])
    _true_time = time.time
    time.time = lambda: _true_time() + _offset

SDK = sys.argv[2] if len(sys.argv) > 2 else "mcp"
# Every worker has the same name: it is the audience sealed into requestState.
server: Any = MCPServer("tasks-scaleout")
if SDK == "fastmcp":
    from fastmcp import FastMCP  # only here: importing it takes a second

    server = FastMCP("tasks-scaleout")
if os.environ.get("TASKS_FROM_ENVIRONMENT"):
    # As docs/http.md configures a fleet: the variables alone, no tasks= in code.
    install(server)
else:
    install(
        server,
        tasks=RedisTaskStore(
            Redis.from_url(os.environ["ELICITKIT_REDIS_URL"]),
            prefix=os.environ["TASKS_PREFIX"],
            lease=1.0,
            poll=0.05,
            timeout=float(os.environ.get("TEST_STORE_TIMEOUT", "3")),
        ),
    )
EFFECTS = os.environ.get("EFFECTS_REDIS_URL")


@dataclass
class Name:
    name: str


@dataclass
class Copies:
    copies: int


@server.tool()
async def render(title: str, seconds: float) -> str:
    """Ask, go async, work, ask again, and say which worker ran the task."""
    who = await ask(Name, "Who is the report for?", key="who")
    await go_async("Rendering")
    effects = None if EFFECTS is None else Redis.from_url(EFFECTS)
    try:
        if effects is not None:
            # The pid first: a test that saw the count finds the leg's worker listed.
            await effects.rpush(f"effects:{title}:workers", os.getpid())
            await effects.incr(f"effects:{title}:started")
        await anyio.sleep(seconds)
    finally:
        if effects is not None:
            with anyio.CancelScope(shield=True):
                await effects.incr(f"effects:{title}:stopped")
                await effects.aclose()
    copies = await ask(Copies, "How many copies?", key="copies")
    name = who.content.name if who.content else "nobody"
    number = copies.content.copies if copies.content else 0
    return f"{title} for {name}: {number} copies, by worker {os.getpid()}."


if __name__ == "__main__":
    if SDK == "fastmcp":
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[1]),
            path="/mcp",
            show_banner=False,
            log_level="WARNING",
        )
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
