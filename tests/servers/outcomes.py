"""A stdio MCP server whose tools write how their ask() ended to a file (argv[1]).

The tests use it where the outcome happens on the server after the client is gone (a
disconnect), or where only raw JSON-RPC reaches the era (2025-06-18).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Literal

from mcp.server.mcpserver import MCPServer

from elicitkit import ElicitError, ask, install

OUTCOME = Path(sys.argv[1]) if len(sys.argv) > 1 else None

server = install(MCPServer("outcomes"))


@dataclasses.dataclass
class Name:
    name: str


@dataclasses.dataclass
class Toppings:
    toppings: list[Literal["cheese", "olives", "basil"]]


@server.tool()
async def greet() -> str:
    """Ask for a name; record what ask() raised, if anything."""
    try:
        answer = await ask(Name, "Who are you?")
    except BaseException as error:
        if OUTCOME is not None:
            kind = "ElicitError" if isinstance(error, ElicitError) else "not an ElicitError"
            OUTCOME.write_text(f"{type(error).__name__} ({kind}): {error}", encoding="utf-8")
        raise
    return f"Hello {answer.unwrap().name}"


@server.tool()
async def pizza() -> str:
    """Ask for a multi-select (checkboxes on 2025-06-18)."""
    answer = await ask(Toppings, "Toppings?")
    return ", ".join(answer.unwrap().toppings)


if __name__ == "__main__":
    server.run("stdio")
