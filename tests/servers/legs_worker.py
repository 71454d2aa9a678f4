"""One worker of a fleet serving tasks in legs, configured by environment variables alone.

    MCP_REQUEST_STATE_KEY=... ELICITKIT_STORE=redis://... ELICITKIT_TASK_RESUME_AFTER=1 \\
        SERVER_NAME=... EFFECTS_REDIS_URL=redis://... python legs_worker.py PORT SDK

As docs/long-work.md sets up a fleet: no store, task store or Docket in the code, so the
records, the tasks and the queue of legs all follow ``ELICITKIT_STORE``.

The ``ship`` tool asks who signs, goes on as a task, then runs three durable steps around an
in-task question: ``label`` (plain), ``upload`` (``retry_safe``), the question "Ship it?",
and ``dispatch`` (plain). Every step counts its runs in Redis (``effects:<order>:<step>``)
and notes the worker that ran it (``effects:<order>:<step>:pid``). A step named in the
order's ``hang`` argument waits, on its first run only, until its worker is killed: the
test kills that worker mid-step.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from redis.asyncio import Redis

from elicitkit import ask, go_async, install, step

SDK = sys.argv[2] if len(sys.argv) > 2 else "mcp"
NAME = os.environ["SERVER_NAME"]  # the audience sealed into requestState: the fleet's
server: Any = MCPServer(NAME)
if SDK == "fastmcp":
    from fastmcp import FastMCP  # only here: importing it takes a second

    server = FastMCP(NAME)
install(server)
EFFECTS = os.environ["EFFECTS_REDIS_URL"]


@dataclass
class Signer:
    name: str


async def _effect(order: str, name: str, hang: str) -> str:
    """One run of step ``name``: counted, its worker noted; on its first run maybe a hang."""
    effects = Redis.from_url(EFFECTS)
    try:
        runs = await effects.incr(f"effects:{order}:{name}")
        await effects.set(f"effects:{order}:{name}:pid", os.getpid())
    finally:
        await effects.aclose()
    if name == hang and runs == 1:
        await anyio.sleep_forever()  # until the test kills this worker
    return f"{name}#{runs}"


@server.tool()
async def ship(order: str, hang: str = "") -> str:
    """Ask who signs, go async, label, upload, ask to ship, dispatch."""
    who = await ask(Signer, f"Who signs for {order}?", key="who")
    await go_async(f"Shipping {order}")
    label = await step("label", _effect, order, "label", hang)
    upload = await step("upload", _effect, order, "upload", hang, retry_safe=True)
    sure = await ask(bool, f"Ship {order} ({label}, {upload})?", key="ship")
    if not sure.content:
        return f"{order} kept."
    dispatched = await step("dispatch", _effect, order, "dispatch", hang)
    name = who.content.name if who.content else "nobody"
    return f"{order} signed by {name}: {label}, {upload}, {dispatched}, by worker {os.getpid()}."


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
