"""A date range, asked again until the dates make a stay (docs/gallery.md)."""

import asyncio
from dataclasses import dataclass
from datetime import date

from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install
from elicitkit.testing import ScriptedUser, accept, connect


@dataclass
class Stay:
    arrive: date
    leave: date


server = install(MCPServer("hotel"))


@server.tool()
async def book_room() -> str:
    message = "When will you stay?"
    for _ in range(3):
        answer = await ask(Stay, message)
        if not answer.is_accepted():
            return "No booking."
        stay = answer.unwrap()
        if stay.leave > stay.arrive:
            return f"Booked {(stay.leave - stay.arrive).days} nights from {stay.arrive}."
        message = "The day you leave must come after the day you arrive. When will you stay?"
    return "No booking: the dates never made a stay."


async def main() -> None:
    user = ScriptedUser(
        accept(arrive="2026-07-10", leave="2026-07-08"),
        accept(arrive="2026-07-08", leave="2026-07-10"),
    )
    async with connect(server, user=user) as client:
        result = await client.call_tool("book_room", {})
    print(result.content[0].text)
    print(len(user.requests), "forms:", user.requests[-1].message)


if __name__ == "__main__":
    asyncio.run(main())
