"""Tutorial stage 1 (Forms): a refund tool that asks the customer for the details.

Run it as a stdio MCP server, on the official SDK or on fastmcp:

    python examples/tutorial/stage1_form.py
    python examples/tutorial/stage1_form.py --fastmcp
    python -m elicitkit try examples/tutorial/stage1_form.py --tool refund

The guide's pages grow this app one stage at a time: each stage is this file with one thing
added (docs/forms.md shows this one).
"""

import sys
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from annotated_types import Ge

from elicitkit import FormField, ask, install

# The shop's orders: what was bought and what it cost, in euros.
ORDERS = {"A-17": ("a teapot", 40), "B-22": ("two mugs", 18)}


class Reason(Enum):
    DAMAGED = "damaged"
    WRONG_ITEM = "wrong item"
    NEVER_ARRIVED = "never arrived"


@dataclass
class RefundRequest:
    reason: Reason
    amount: Annotated[int, Ge(1), FormField(title="Amount (EUR)")]
    note: str | None = None


async def refund(order_id: str) -> str:
    """Refund an order, or part of it: ask the customer why, and how much."""
    if order_id not in ORDERS:
        return f"There is no order {order_id}."
    item, paid = ORDERS[order_id]
    answer = await ask(RefundRequest, f"Refund for {item} (paid {paid} EUR)")
    if not answer.is_accepted():
        return "No refund."
    request = answer.unwrap()  # a RefundRequest: reason is a Reason, amount an int
    if request.amount > paid:
        return f"At most {paid} EUR can be refunded for {item}."
    return f"Refund of {request.amount} EUR for {item} requested ({request.reason.value})."


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
