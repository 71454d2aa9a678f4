"""Waiting on Redis's clock, the one that judges a Redis store's leases and entries."""

from __future__ import annotations

from typing import Any

import anyio


async def redis_time(client: Any) -> float:
    """Redis's ``TIME``, in seconds (``client``: a ``redis.asyncio.Redis``)."""
    seconds, micros = await client.time()
    return float(seconds) + float(micros) / 1e6


async def elapse_on_redis(client: Any, seconds: float, *, within: float = 30.0) -> None:
    """Return once Redis's clock has moved ``seconds`` on (bounded by ``within`` real seconds).

    A lease or an entry granted before the call has then lapsed by the only clock that
    counts, however slow this machine is: a wait for Redis, never a delay raced against it.
    """
    until = await redis_time(client) + seconds
    with anyio.fail_after(within):
        while True:
            left = until - await redis_time(client)
            if left <= 0:
                return
            await anyio.sleep(left)
