"""A shop's tool that asks where to ship, on every MCP protocol version (docs/index.md)."""

import asyncio
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install
from elicitkit.testing import ScriptedUser, accept, connect


@dataclass
class Address:
    city: str
    zip_code: str
    floor: int | None = None


server = install(MCPServer("shop"))


@server.tool()
async def ship(item: str) -> str:
    """Ship an item to the address the user gives."""
    answer = await ask(Address, f"Where should we ship {item}?")
    if not answer.is_accepted():
        return "Not shipped."
    return f"Shipping {item} to {answer.unwrap().city}."  # an Address, typed as one


async def main() -> None:
    """A scripted user answers, on each protocol version."""
    for protocol in ("2025-06-18", "2025-11-25", "2026-07-28"):
        user = ScriptedUser(accept(city="Oslo", zip_code="0150"))
        async with connect(server, protocol=protocol, user=user) as client:
            result = await client.call_tool("ship", {"item": "a teapot"})
        print(protocol, result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
