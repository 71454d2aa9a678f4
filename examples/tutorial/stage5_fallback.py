"""Tutorial stage 5 (When the client cannot ask): the model asks, a person confirms.

Adds to stage 4 a fallback for clients that cannot show forms: with
``on_unsupported="ask_model"`` the tool hands its questions to the model, which asks the
user in the chat and answers through the ``answer_form`` tool. The confirmation before the
money moves insists on a form (``on_unsupported="raise"``): a "yes" the model typed is not
one the customer clicked, so without forms the refund waits for the shop's staff
(docs/when-the-client-cannot-ask.md).

    python examples/tutorial/stage5_fallback.py [--fastmcp]
"""

import sys
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from annotated_types import Ge

from elicitkit import Email, FormField, ask, confirm, go_async, install, step
from elicitkit.errors import ElicitationUnsupported

ORDERS = {"A-17": ("a teapot", 40), "B-22": ("two mugs", 18)}
# The payment provider's ledger: every refund it made. A refund made twice would show here.
REFUNDS: list[tuple[str, int]] = []
# The shop's accounts: one line per refund posted.
BOOKS: list[str] = []
# Refunds a person at the shop must confirm, because the customer could not be asked.
HELD: list[tuple[str, int]] = []


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


def post_to_books(order_id: str, amount: int, receipt: str) -> None:
    """Post the refund to the accounts: slow, blocking work (minutes, in a real shop)."""
    BOOKS.append(f"{order_id}: -{amount} EUR ({receipt})")


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
    try:
        sure = await confirm(
            f"Refund {request.amount} EUR for {item} to your card?", on_unsupported="raise"
        )
    except ElicitationUnsupported:  # this client shows no forms: leave it to a person
        HELD.append((order_id, request.amount))
        return f"The refund of {request.amount} EUR for {item} waits for our staff to confirm it."
    if not sure:
        return "No refund."
    receipt = await step("pay", pay_refund, order_id, request.amount)  # once per call
    await go_async("Posting the refund to the books")  # the rest may run as a task
    # In a task the tool runs again from the top for each part (the receipt question ends
    # one), so the posting is a step too: it runs once, in a worker thread (sync fn).
    await step("post", post_to_books, order_id, request.amount, receipt)
    refunded = f"Refunded {request.amount} EUR for {item} ({receipt})"
    to = await ask(ReceiptTo, "Where should we email the receipt?")
    if not to.is_accepted():
        return f"{refunded}."
    return f"{refunded}; receipt sent to {to.unwrap().email}."


def build(server: Any) -> Any:
    """Install elicitkit on ``server`` (an ``MCPServer`` or a ``FastMCP``), add the tool."""
    install(server, on_unsupported="ask_model")
    server.tool()(refund)
    return server


if __name__ == "__main__":
    if "--fastmcp" in sys.argv:
        from fastmcp import FastMCP

        build(FastMCP("refunds")).run("stdio")
    else:
        from mcp.server.mcpserver import MCPServer

        build(MCPServer("refunds")).run("stdio")
