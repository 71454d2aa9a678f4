"""Tutorial stage 2 (Replay and side effects): confirm, then pay the refund once.

Adds to stage 1 a yes/no confirmation before the money moves, and the payment itself. On
MCP 2026-07-28 the tool runs again from the top for every question it asks, so the payment
goes after the last question: code there runs at most once per call (docs/replay.md).

    python examples/tutorial/stage2_confirm.py [--fastmcp]
"""

import sys
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from annotated_types import Ge

from elicitkit import FormField, ask, confirm, install

ORDERS = {"A-17": ("a teapot", 40), "B-22": ("two mugs", 18)}
# The payment provider's ledger: every refund it made. A refund made twice would show here.
REFUNDS: list[tuple[str, int]] = []


class Reason(Enum):
    DAMAGED = "damaged"
    WRONG_ITEM = "wrong item"
    NEVER_ARRIVED = "never arrived"


@dataclass
class RefundRequest:
    reason: Reason
    amount: Annotated[int, Ge(1), FormField(title="Amount (EUR)")]
    note: str | None = None


def pay_refund(order_id: str, amount: int) -> str:
    """Send the money back to the customer's card; return the provider's receipt number."""
    REFUNDS.append((order_id, amount))
    return f"R-{len(REFUNDS)}"


async def refund(order_id: str) -> str:
    """Refund an order, or part of it: ask why and how much, confirm, then pay."""
    if order_id not in ORDERS:
        return f"There is no order {order_id}."
    item, paid = ORDERS[order_id]
    answer = await ask(RefundRequest, f"Refund for {item} (paid {paid} EUR)")
    if not answer.is_accepted():
        return "No refund."
    request = answer.unwrap()
    if request.amount > paid:
        return f"At most {paid} EUR can be refunded for {item}."
    if not await confirm(f"Refund {request.amount} EUR for {item} to your card?"):
        return "No refund."
    receipt = pay_refund(order_id, request.amount)  # after the last question: once per call
    return f"Refunded {request.amount} EUR for {item} ({receipt})."


def build(server: Any) -> Any:
    """Install elicitkit on ``server`` (an ``MCPServer`` or a ``FastMCP``), add the tool."""
    install(server)
    server.tool()(refund)
    return server


if __name__ == "__main__":
    if "--fastmcp" in sys.argv:
        from fastmcp import FastMCP

        build(FastMCP("refunds")).run("stdio")
    else:
        from mcp.server.mcpserver import MCPServer

        build(MCPServer("refunds")).run("stdio")
