"""Static typing contract of durable steps (issue 19): ``step`` returns ``fn``'s type.

Only type-checked (mypy and pyright, strict), never executed.
"""

from __future__ import annotations

import dataclasses

from typing_extensions import assert_type

from elicitkit import step
from elicitkit.replay import replaying


@dataclasses.dataclass
class Quote:
    price: int


async def quote(item: str) -> Quote:
    return Quote(len(item))


def charge(amount: int) -> str:
    return str(amount)


async def body() -> None:
    assert_type(await step("quote", quote, "lamp"), Quote)
    assert_type(await step("pay", charge, 3, retry_safe=True), str)
    assert_type(replaying(), bool)
