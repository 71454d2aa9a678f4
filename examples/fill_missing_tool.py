"""A booking tool that asks the user only for what the model left out.

Run it as a stdio MCP server:

    python examples/fill_missing_tool.py

The model sees the tool's own input schema: only `restaurant` is required. Called without
`day` or `guests`, the tool asks the user for exactly the missing ones, in one form, then runs.
"""

from __future__ import annotations

import datetime as dt
import sys
from typing import Annotated

from annotated_types import Ge, Le
from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, fill_missing, install

server = install(MCPServer("fill-missing"))


@server.tool()
@fill_missing(message="A few details for the booking")
async def book_table(
    restaurant: str,
    day: Annotated[dt.date | None, FormField(description="The day of the booking")] = None,
    guests: Annotated[int | None, Ge(1), Le(12)] = None,
) -> str:
    """Book a table; ask the user for the day and the party size if they are not known."""
    return f"Booked {restaurant} on {day:%A %d %B} for {guests}."


if __name__ == "__main__":
    if sys.stdin.isatty():  # started by hand: stdio is for a client, so say how to connect one
        print(
            "This MCP server talks over stdin/stdout. Let a client start it: in an MCP client "
            f"that can show forms, add the command: {sys.executable} {' '.join(sys.argv)}",
            file=sys.stderr,
        )
    server.run("stdio")
