"""A shipping tool that asks for the address with a dataclass form.

Run it as a stdio MCP server:

    python examples/shipping.py

and connect any MCP client that can show forms (elicitation). The tool works on every
protocol era: mid-call on 2025-06-18 and 2025-11-25, by replay on 2026-07-28.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from annotated_types import MaxLen, MinLen
from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, ask, form, install
from elicitkit.errors import ElicitationUnsupported


class Speed(Enum):
    STANDARD = "standard"
    EXPRESS = "express"
    __labels__ = {"STANDARD": "Standard (3-5 days)", "EXPRESS": "Express (next day)"}


@form(message="Where should we ship your order?")
@dataclass
class ShippingAddress:
    name: Annotated[str, MinLen(1), MaxLen(80), FormField(description="Who receives the parcel")]
    street: str
    city: str
    zip_code: Annotated[str, MinLen(4), MaxLen(10)]
    speed: Speed = Speed.STANDARD
    floor: int | None = None


server = install(MCPServer("shipping"))


@server.tool()
async def ship(item: str) -> str:
    """Ship an item to an address the user types in."""
    # On 2026-07-28 this body runs once per question: nothing before the last ask() may
    # have side effects. The order is placed after every answer is in.
    try:
        answer = await ask(ShippingAddress)
    except ElicitationUnsupported:
        return "This client cannot show forms; ask the user for the address and call again."
    if not answer.is_accepted():
        return f"Shipping cancelled: the user chose to {answer.action}."
    address = answer.unwrap()
    confirm = await ask(
        bool, f"Ship {item} to {address.street}, {address.city} by {address.speed.value}?"
    )
    if not confirm.content:
        return "Shipping cancelled: the user did not confirm."
    return (
        f"Shipping {item} to {address.name}, {address.street}, {address.zip_code} "
        f"{address.city} ({address.speed.value})."
    )


if __name__ == "__main__":
    if sys.stdin.isatty():  # a person, not a client: say how to connect instead of waiting
        sys.exit(
            "This is an MCP server: it speaks JSON-RPC on stdin and stdout, to a client.\n"
            "Fill in its forms at this terminal with\n"
            "    elicitkit try examples/shipping.py --tool ship \\\n"
            '        --args \'{"item": "a teapot"}\'\n'
            "or add `python examples/shipping.py` to your MCP client's stdio servers."
        )
    server.run("stdio")
