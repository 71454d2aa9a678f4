"""A postal address: bounded text, an optional floor, a labelled choice (docs/gallery.md)."""

import asyncio
from dataclasses import dataclass
from typing import Annotated, Literal

from annotated_types import MaxLen, MinLen
from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, ask, install
from elicitkit.testing import ScriptedUser, accept, connect

Country = Literal["NO", "SE", "DK"]


@dataclass
class Address:
    name: Annotated[str, MinLen(1), MaxLen(80)]
    street: Annotated[str, MinLen(1), MaxLen(80)]
    postcode: Annotated[str, MinLen(4), MaxLen(10)]
    city: Annotated[str, MinLen(1), MaxLen(60)]
    country: Annotated[
        Country, FormField(labels={"NO": "Norway", "SE": "Sweden", "DK": "Denmark"})
    ]
    floor: int | None = None


server = install(MCPServer("shop"))


@server.tool()
async def ship(item: str) -> str:
    answer = await ask(Address, f"Where should we send {item}?")
    if not answer.is_accepted():
        return "Not shipped."
    to = answer.unwrap()
    return f"Shipping {item} to {to.name}, {to.street}, {to.postcode} {to.city}, {to.country}."


async def main() -> None:
    reply = accept(name="Ada", street="1 Main St", postcode="0150", city="Oslo", country="NO")
    async with connect(server, user=ScriptedUser(reply)) as client:
        result = await client.call_tool("ship", {"item": "a teapot"})
    print(result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
