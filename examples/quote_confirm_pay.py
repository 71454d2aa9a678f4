"""A checkout tool that looks up a quote, asks to confirm it, pays, then asks where to ship.

Run it as a stdio MCP server:

    python examples/quote_confirm_pay.py

The quote and the payment happen between questions, so each is a durable step: on MCP
2026-07-28, where the tool runs again from the top in every round, each runs once per call
and later rounds get its recorded result; on 2025-11-25 the tool runs once anyway. The fake
pricing service and payment provider number what they do, process-wide, so a quote or a
payment made twice would show as a skipped number in the result.
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install, step

server = install(MCPServer("checkout"))
_quotes = itertools.count(1)
_payments = itertools.count(1)


@dataclass
class Quote:
    number: int
    item: str
    price: int


async def look_up_quote(item: str, quantity: int) -> Quote:
    """Ask the pricing service for a quote (slow, and each quote is its own offer)."""
    return Quote(next(_quotes), item, 42 * quantity)


def charge(quote_number: int, amount: int) -> str:
    """Charge the card: a payment that must never happen twice for one checkout."""
    del amount  # a real provider would charge it
    return f"payment {next(_payments)} for quote {quote_number}"


@server.tool()
async def checkout(item: str, quantity: int = 1) -> str:
    """Quote the item, ask to confirm the price, pay, then ask for the shipping city."""
    quote = await step("quote", look_up_quote, item, quantity)
    sure = await ask(bool, f"Pay {quote.price} EUR for {quantity} x {item}?")
    if not sure.content:
        return f"Nothing paid for quote {quote.number}."
    receipt = await step("pay", charge, quote.number, quote.price)
    city = await ask(str, "Which city should we ship to?")
    return f"Paid {quote.price} EUR ({receipt}); shipping to {city.unwrap()}."


if __name__ == "__main__":
    if sys.stdin.isatty():  # started by hand: stdio is for a client, so say how to connect one
        print(
            "This MCP server talks over stdin/stdout. Let a client start it: in an MCP client "
            f"that can show forms, add the command: {sys.executable} {' '.join(sys.argv)}",
            file=sys.stderr,
        )
    server.run("stdio")
