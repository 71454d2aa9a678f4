"""An order tool whose form nests an address twice: shipping, and an optional billing one.

Run it as a stdio MCP server:

    python examples/nested_order.py

The client sees one flat form (``shipping_street``, "Shipping › Street", ...); the tool gets an
`Order` with `Address` instances back. Billing left empty is ``None``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

from mcp.server.mcpserver import MCPServer

from elicitkit import InvalidContent, ask, install


@dataclass
class Address:
    street: str
    city: str
    country: Literal["NO", "SE", "DK"] = "NO"


@dataclass
class Order:
    quantity: int
    shipping: Address
    billing: Address | None = None


server = install(MCPServer("nested-order"))


@server.tool()
async def order(item: str) -> str:
    """Order an item; the user fills in the quantity and the addresses."""
    try:
        answer = await ask(Order, f"Order {item}")
    except InvalidContent as problem:
        return "Not ordered: " + "; ".join(str(error) for error in problem.errors)
    if not answer.is_accepted():
        return "Not ordered."
    placed = answer.unwrap()
    bill = placed.billing or placed.shipping
    return (
        f"{placed.quantity} x {item} to {placed.shipping.street}, {placed.shipping.city} "
        f"({placed.shipping.country}); invoice to {bill.city}."
    )


if __name__ == "__main__":
    if sys.stdin.isatty():  # started by hand: stdio is for a client, so say how to connect one
        print(
            "This MCP server talks over stdin/stdout. Let a client start it: in an MCP client "
            f"that can show forms, add the command: {sys.executable} {' '.join(sys.argv)}",
            file=sys.stderr,
        )
    server.run("stdio")
