"""A stdio MCP server whose tool asks through the model (``on_unsupported="ask_model"``).

``python tests/servers/ask_model.py [mcp|fastmcp]``: the official ``MCPServer`` or fastmcp's
``FastMCP``. The tool ships once per completed call and says how many times it shipped.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, Any

from annotated_types import MinLen

from elicitkit import ask, install

SDK = sys.argv[1] if len(sys.argv) > 1 else "mcp"


@dataclasses.dataclass
class Address:
    street: str
    zip_code: Annotated[str, MinLen(4)]


def make() -> Any:
    if SDK == "fastmcp":
        from fastmcp import FastMCP  # noqa: PLC0415  (only for this flavour)

        return FastMCP("ask-model")
    from mcp.server.mcpserver import MCPServer  # noqa: PLC0415

    return MCPServer("ask-model")


server: Any = install(make(), on_unsupported="ask_model")
shipped: list[str] = []


@server.tool()
async def ship(item: str) -> str:
    answer = await ask(Address, f"Where should we ship the {item}?")
    address = answer.unwrap()
    shipped.append(item)
    return f"shipped {item} to {address.street} ({answer.answered_by}, shipment #{len(shipped)})"


if __name__ == "__main__":
    server.run("stdio")
