"""`RedisStore`: dialogue outcomes in Redis, shared by every process that serves the clients.

Install with ``pip install "elicitkit[redis]"`` (redis-py 5+, its asyncio client)::

    from redis.asyncio import Redis
    from elicitkit.stores import RedisStore

    elicitkit.install(server, store=RedisStore(Redis.from_url("redis://localhost:6379/0")))

Each dialogue is one key. Its value is ``L<token>`` while a round holds the lease (with
the lease's expiry) and ``R<outcome>`` once recorded (with the record's expiry). Claiming
and releasing are Lua scripts, so each is one atomic step on the server.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

from elicitkit._replay.store import Claim

# Return the key's value if it exists; otherwise take the lease. One atomic step.
_CLAIM = """
local value = redis.call('GET', KEYS[1])
if value then return value end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
"""
# Delete the key only if it still holds this round's lease (not a record, not another lease).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisStore:
    """An `elicitkit.stores.OutcomeStore` in Redis, for servers that run in several processes."""

    def __init__(self, client: Redis, *, prefix: str = "elicitkit:dialogue:") -> None:
        """Store outcomes through ``client`` under keys starting with ``prefix``.

        Args:
            client: A ``redis.asyncio.Redis`` client (the caller owns and closes it).
            prefix: Where in the key space the dialogues live.
        """
        self._redis: Any = client  # redis-py's command methods are only partly typed
        self._prefix = prefix

    async def claim(self, dialogue: str, token: str, *, lease: float) -> Claim:
        """See `elicitkit.stores.OutcomeStore.claim`."""
        value: object = await self._redis.eval(
            _CLAIM, 1, self._prefix + dialogue, "L" + token, _milliseconds(lease)
        )
        if value is None:
            return Claim("claimed")
        text = value.decode() if isinstance(value, bytes) else str(value)
        if text.startswith("R"):
            return Claim("recorded", text[1:])
        return Claim("busy")

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """See `elicitkit.stores.OutcomeStore.record`."""
        await self._redis.set(self._prefix + dialogue, "R" + outcome, px=_milliseconds(keep))

    async def release(self, dialogue: str, token: str) -> None:
        """See `elicitkit.stores.OutcomeStore.release`."""
        await self._redis.eval(_RELEASE, 1, self._prefix + dialogue, "L" + token)


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))
