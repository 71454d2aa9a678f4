"""A stdio server whose tools go on as tasks, for ``elicitkit try`` to follow.

For tests/test_cli_try_tasks.py (in memory, `build`), tests/test_cli_try_tasks_stdio.py and
tests/interop/test_try_tasks.py (over stdio, run as a script)::

    python tests/servers/try_tasks.py [POLL_SECONDS]

``render`` asks who a report is for (a question of the call), goes on as a task, waits for
``gate`` (in memory: an event the test sets; over stdio: nothing), asks how many copies (a
question of the task) and reports where it ran. ``job`` goes on as a task and fails with a
JSON-RPC error. ``work`` goes on as a task and works until it is cancelled. The task store
suggests polling every ``poll`` seconds (its ``pollIntervalMs``).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

import anyio
from annotated_types import Ge
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from elicitkit import ask, go_async, install
from elicitkit.stores import MemoryTaskStore

BACKEND_DOWN = "The job's backend is unavailable."


@dataclass
class Recipient:
    name: str


@dataclass
class Copies:
    copies: Annotated[int, Ge(1)]


async def _open() -> None:
    """Over stdio the long work takes no time: the test waits for what try shows."""


def build(*, poll: float = 1.0, gate: Callable[[], Awaitable[None]] = _open) -> MCPServer:
    """The server; ``gate`` is the long work of ``render``."""
    server = install(MCPServer("try-tasks"), tasks=MemoryTaskStore(poll=poll))

    @server.tool()
    async def render(title: str) -> str:
        """Ask who the report is for, go on as a task, ask how many copies in it."""
        who = await ask(Recipient, "Who is the report for?")
        as_task = await go_async(f"Rendering {title}")
        await gate()
        copies = await ask(Copies, f"{title} is rendered. How many copies?")
        name = who.content.name if who.content else "nobody"
        number = copies.content.copies if copies.content else 0
        where = "as a task" if as_task else "in the call"
        return f"REPORT {title} for {name}: {number} copies, {where}."

    @server.tool()
    async def job() -> str:
        """Go on as a task, then fail with a JSON-RPC error."""
        await go_async("Running the job")
        raise MCPError(code=-32001, message=BACKEND_DOWN)

    @server.tool()
    async def work() -> str:
        """Go on as a task and work until cancelled."""
        await go_async("Working")
        await anyio.sleep_forever()
        return "never"  # pragma: no cover

    return server


if __name__ == "__main__":
    build(poll=float(sys.argv[1]) if len(sys.argv) > 1 else 1.0).run("stdio")
