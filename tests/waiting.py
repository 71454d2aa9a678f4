"""Waiting for what a test cannot be told of by an event: a condition, polled, with a bound.

For state another process or the network owns (a Redis key, a worker's counter, a task's
status seen through ``tasks/get``): the wait ends as soon as the condition holds, and a
generous bound turns a hang into a failure. Never a fixed delay raced against the work.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


async def eventually(
    check: Callable[[], Awaitable[T | None]], *, within: float, every: float, what: str
) -> T:
    """Return ``check()``'s first result that is not ``None`` or ``False``, polled ``every`` s.

    Raises:
        TimeoutError: Nothing came within ``within`` seconds (``what`` says what was awaited).
    """
    try:
        with anyio.fail_after(within):
            while True:
                found = await check()
                if found is not None and found is not False:
                    return found
                await anyio.sleep(every)
    except TimeoutError:
        raise TimeoutError(f"{what}: not within {within} seconds") from None


def wait_until(check: Callable[[], bool], *, within: float, every: float, what: str) -> None:
    """`eventually` for a test without an event loop: return once ``check()`` is true.

    Raises:
        AssertionError: It was not within ``within`` seconds (``what`` says what was awaited).
    """
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {within} seconds"
        time.sleep(every)
