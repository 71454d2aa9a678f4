"""A long tool that asks first, then goes on as a task: ``go_async()``.

Run it over stdio (``python examples/long_report.py``) or point a client at it. On MCP
2026-07-28 with a client that speaks the Tasks extension, ``render`` asks who the report is
for over replay rounds, answers the call with a task, works, and asks inside the task how
many copies to print. On every other client the same tool runs in the call.

The long work is a durable step: in a task the tool runs again from the top for each part
(the copies question ends one), and on a client without the extension each question is a
replay round, so only a step runs once however the tool is run.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Annotated

import anyio
from annotated_types import Ge
from mcp.server.mcpserver import MCPServer

from elicitkit import ask, go_async, install, step

server = install(MCPServer("long-report"))


@dataclass
class Recipient:
    name: str


@dataclass
class Copies:
    copies: Annotated[int, Ge(1)]


@server.tool()
async def render(title: str, seconds: float = 2.0) -> str:
    """Render a report (it takes a while), asking who it is for and how many copies."""
    who = await ask(Recipient, "Who is the report for?")
    as_task = await go_async(f"Rendering {title}")
    await step("render", anyio.sleep, seconds)  # the long work, once
    copies = await ask(Copies, f"{title} is rendered. How many copies?")
    name = who.content.name if who.content else "nobody"
    number = copies.content.copies if copies.content else 0
    where = "as a task" if as_task else "in the call"
    return f"REPORT {title} for {name}: {number} copies, {where}."


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
