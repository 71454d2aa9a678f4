"""The demo's MCP server: one shipping tool that asks twice. Runs over stdio.

Started by ``python -m elicitkit demo`` as a subprocess (``python -m elicitkit.cli.demo_server``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated

from annotated_types import MaxLen, MinLen
from mcp.server.mcpserver import MCPServer

from elicitkit import form
from elicitkit._compiler.markers import FormField
from elicitkit._runtime.asking import ask
from elicitkit.integrations import install


class Speed(enum.Enum):
    """Shipping speeds, with the labels a client shows."""

    STANDARD = "standard"
    EXPRESS = "express"
    __labels__ = {"STANDARD": "Standard (3-5 days)", "EXPRESS": "Express (next day)"}  # noqa: RUF012  (read once, at compile time)


@form(message="Where should we ship your order?")
@dataclass
class ShippingAddress:
    """The address form: plain fields, bounds, a labelled choice, an optional number."""

    name: Annotated[str, MinLen(1), MaxLen(80), FormField(description="Who receives the parcel")]
    street: str
    city: str
    zip_code: Annotated[str, MinLen(4), MaxLen(10)]
    speed: Speed = Speed.STANDARD
    floor: int | None = None


server = install(MCPServer("elicitkit-demo", log_level="WARNING"))


@server.tool()
async def ship(item: str) -> str:
    """Ship an item: ask where to, then ask to confirm."""
    answer = await ask(ShippingAddress)
    if not answer.is_accepted():
        return f"Not shipped: the user chose to {answer.action}."
    address = answer.unwrap()
    confirmed = await ask(bool, f"Ship {item} to {address.city} ({address.speed.value})?")
    # Side effects belong here, after the last ask(): on 2026-07-28 everything above runs
    # once per round.
    outcome = f"Shipped {item}." if confirmed.content else f"Not shipped: {item} was not confirmed."
    return f"{outcome} The tool saw {address!r} and confirmed={confirmed.content!r}."


if __name__ == "__main__":
    server.run("stdio")
