"""A table-booking tool that asks for the details with a pydantic model form.

Run it as a stdio MCP server:

    python examples/booking.py

The model's own validator runs on the answer: a party of more than 6 cannot book the
terrace, and the user sees that as a field error, not a crash.
"""

from __future__ import annotations

import datetime as dt
import sys
from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field, model_validator

from elicitkit import InvalidContent, ask, install


class Booking(BaseModel):
    name: str = Field(min_length=1, description="The name the table is under")
    day: dt.date = Field(description="The day of the booking")
    time: Literal["18:00", "19:30", "21:00"] = "19:30"
    guests: int = Field(ge=1, le=12, description="How many people, you included")
    area: Literal["inside", "terrace"] = "inside"
    note: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _terrace_fits_six(self) -> Booking:
        if self.area == "terrace" and self.guests > 6:
            raise ValueError("the terrace seats at most 6 guests")
        return self


server = install(MCPServer("booking"))


@server.tool()
async def book_table(restaurant: str) -> str:
    """Book a table; the user fills in the details."""
    try:
        answer = await ask(Booking, f"Book a table at {restaurant}")
    except InvalidContent as problem:
        details = "; ".join(str(error) for error in problem.errors)
        return f"The booking was not valid: {details}"
    if not answer.is_accepted():
        return "No booking made."
    booking = answer.unwrap()
    return (
        f"Booked {restaurant} for {booking.guests} on {booking.day:%A %d %B} at {booking.time}, "
        f"{booking.area}, under {booking.name}."
    )


if __name__ == "__main__":
    if sys.stdin.isatty():  # a person, not a client: say how to connect instead of waiting
        sys.exit(
            "This is an MCP server: it speaks JSON-RPC on stdin and stdout, to a client.\n"
            "Fill in its forms at this terminal with\n"
            "    elicitkit try examples/booking.py --tool book_table \\\n"
            '        --args \'{"restaurant": "Noma"}\'\n'
            "or add `python examples/booking.py` to your MCP client's stdio servers."
        )
    server.run("stdio")
