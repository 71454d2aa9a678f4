"""Tutorial stage 3 (Durable steps): pay in a step, then ask where to send the receipt.

Adds to stage 2 a question after the payment. The payment is no longer after the last
question, so it becomes a durable step: it runs in the first round that reaches it, and
every later round gets its recorded receipt instead of paying again (docs/steps.md).

    python examples/tutorial/stage3_step.py [--fastmcp]
"""

import sys
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from annotated_types import Ge

from elicitkit import Email, FormField, ask, confirm, install, step

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


@dataclass
class ReceiptTo:
    email: Annotated[str, Email]


def pay_refund(order_id: str, amount: int) -> str:
    """Send the money back to the customer's card; return the provider's receipt number."""
    REFUNDS.append((order_id, amount))
    return f"R-{len(REFUNDS)}"


async def refund(order_id: str) -> str:
    """Refund an order, or part of it: ask why and how much, confirm, pay, send a receipt."""
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
    receipt = await step("pay", pay_refund, order_id, request.amount)  # once per call
    refunded = f"Refunded {request.amount} EUR for {item} ({receipt})"
    to = await ask(ReceiptTo, "Where should we email the receipt?")
    if not to.is_accepted():
        return f"{refunded}."
    return f"{refunded}; receipt sent to {to.unwrap().email}."


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
