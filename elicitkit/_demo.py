"""The demo: one form, its wire schema on every protocol version, two answers decoded.

Run with ``python -m elicitkit demo``.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
from dataclasses import dataclass
from typing import Annotated, Literal

from annotated_types import Ge, Le, MaxLen, MinLen

from elicitkit._errors import InvalidContent
from elicitkit._forms import default_message, form, parse_content, requested_schema
from elicitkit._metadata import Email, FormField
from elicitkit._protocol import PROTOCOL_VERSIONS


class Speed(enum.Enum):
    """Shipping speeds, with the labels a client shows."""

    STANDARD = "standard"
    EXPRESS = "express"
    __labels__ = {"STANDARD": "Standard (3-5 days)", "EXPRESS": "Express (next day)"}  # noqa: RUF012  (an Enum's plain dict, read once)


@form(message="Where should we ship your order?")
@dataclass
class ShippingForm:
    """The demo form: a shipping address, a speed and a delivery date."""

    name: Annotated[str, MinLen(1), MaxLen(80), FormField(description="Who receives the parcel")]
    street: str
    city: str
    zip_code: Annotated[str, MinLen(4), MaxLen(10)]
    email: Annotated[str, Email]
    speed: Speed = Speed.STANDARD
    floor: Annotated[int, Ge(0), Le(200)] | None = None
    deliver_on: dt.date | None = None
    gift_wrap: bool = False
    packaging: Literal["box", "envelope"] = "box"


GOOD_ANSWER = {
    "name": "Ada Lovelace",
    "street": "12 St James's Square",
    "city": "London",
    "zip_code": "SW1Y 4JH",
    "email": "ada@example.org",
    "speed": "express",
    "deliver_on": "2026-12-24",
    "gift_wrap": True,
}
BAD_ANSWER = {
    "name": "",
    "city": 42,
    "zip_code": "1",
    "email": "ada at example",
    "speed": "teleport",
    "floor": 2.5,
    "deliver_on": "Christmas",
    "gift_wrap": "yes",
}


def run_demo() -> int:
    """Print the demo; return the process exit status."""
    print("elicitkit demo: one form type, three protocol versions, two answers.\n")
    print("The form (a plain dataclass): ShippingForm")
    print(f'Its default message, from @form: "{default_message(ShippingForm)}"\n')
    for protocol in PROTOCOL_VERSIONS:
        print(f"requestedSchema on {protocol}:")
        print(json.dumps(requested_schema(ShippingForm, protocol=protocol), indent=2))
        print()
    print("A client accepts with:")
    print(json.dumps(GOOD_ANSWER, indent=2))
    value = parse_content(ShippingForm, GOOD_ANSWER)
    print("parse_content(ShippingForm, content) returns:")
    print(f"  {value!r}\n")
    print("A client accepts with a bad answer:")
    print(json.dumps(BAD_ANSWER, indent=2))
    try:
        parse_content(ShippingForm, BAD_ANSWER)
    except InvalidContent as exc:
        print(f"parse_content raises InvalidContent with {len(exc.errors)} field errors:")
        for error in exc.errors:
            print(f"  {error.field}: {error.message}")
    else:  # pragma: no cover  (the bad answer is bad by construction)
        print("error: the bad answer was accepted")
        return 1
    return 0
