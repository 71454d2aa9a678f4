"""A choice among records fetched at run time, with choose() (docs/gallery.md)."""

import asyncio

from mcp.server.mcpserver import MCPServer

from elicitkit import choose, install
from elicitkit.testing import ScriptedUser, accept, connect

server = install(MCPServer("support"))


def open_tickets(customer: str) -> list[dict[str, str]]:  # a database query, in real life
    return [
        {"id": "T-101", "title": "Invoice missing"},
        {"id": "T-107", "title": "Cannot sign in"},
    ]


@server.tool()
async def close_ticket(customer: str) -> str:
    tickets = open_tickets(customer)  # a read: harmless to repeat on 2026-07-28
    labels = {ticket["id"]: f"{ticket['id']}: {ticket['title']}" for ticket in tickets}
    picked = await choose("Which ticket should I close?", labels, title="Ticket")
    if picked is None:
        return "Nothing closed."
    return f"Closed {labels[picked]}."


async def main() -> None:
    user = ScriptedUser(accept(value="T-107"))
    async with connect(server, user=user) as client:
        result = await client.call_tool("close_ticket", {"customer": "ada"})
    print(result.content[0].text)
    options = user.requests[0].schema["properties"]["value"]["oneOf"]
    print([option["title"] for option in options])


if __name__ == "__main__":
    asyncio.run(main())
