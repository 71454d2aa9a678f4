"""`RedisRecords`: the record backend in Redis, shared by every process on every machine.

Keys, under the kind's ``prefix``:

* ``r:<key>``: the record, a hash of its value (``v``), version (``n``), openness (``o``)
  and caller (``c``), expiring ``ttl`` after its creation (a relative ``PX``: Redis's
  clock, no worker's);
* ``a:<alias>``: the key an alias names, expiring with the record;
* ``l:<key>``: the lease, a key of its own with a ``PX`` time to live, renewed with
  ``SET XX PX`` (which cannot revive a lapsed one);
* ``p:<caller>``: a sorted set of a caller's open records, scored by when each expires;
  a record leaves it when it closes or expires, or (looked at only when the caller is at
  ``max_per_caller``) when its hash is gone;
* ``n``: the kind's version counter (``INCR``), so a version is never reused;
* ``c:<key>``: the channel each update publishes on, which wakes `RedisRecords.wait`.

Every operation is one Lua script, sent by its digest (`elicitkit._replay.redis_scripts`):
one round trip, atomic on the server. Every call has a timeout (``timeout``): a Redis that
does not answer fails the operation, never hangs it. Redis bounds the records by its own
``maxmemory`` (its eviction policy must be ``noeviction`` or ``volatile-*``, see
``docs/records.md``); ``max_per_caller`` is this backend's.
"""

from __future__ import annotations

from typing import Any, cast

import anyio
from redis.asyncio import Redis

from elicitkit._replay.records import Entry, Full
from elicitkit._replay.redis_scripts import run_script

# The entry of a record: {value, version, lease held (1/0), open ('1'/'0')}.
_ENTRY = """
local function entry(key, lease)
  local r = redis.call('HMGET', key, 'v', 'n', 'o')
  if not r[1] then return nil end
  return {r[1], r[2], redis.call('EXISTS', lease), r[3]}
end
"""
# KEYS: record, alias key (or the record again when there is none), lease, caller's set,
# version counter. ARGV: value, key, time to live (ms, or 0: none), prefix, lease (ms, or
# 0: none), the most open records of one caller, open ('1'/'0'), caller. Returns the entry
# already there, {'caller-full'}, or false when this one was stored.
_CREATE = (
    _ENTRY
    + """
if KEYS[2] ~= KEYS[1] then
  local existing = redis.call('GET', KEYS[2])
  if existing then
    local found = entry(ARGV[4] .. 'r:' .. existing, ARGV[4] .. 'l:' .. existing)
    if found then return found end
  end
end
local found = entry(KEYS[1], KEYS[3])
if found then return found end
local ttl = tonumber(ARGV[3])
if ARGV[7] == '1' then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then
    -- At the limit only (linear in it): a record whose hash is gone expired or was lost.
    for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
      if redis.call('EXISTS', ARGV[4] .. 'r:' .. id) == 0 then redis.call('ZREM', KEYS[4], id) end
    end
    if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then return {'caller-full'} end
  end
  if ttl > 0 then
    redis.call('ZADD', KEYS[4], now + ttl, ARGV[2])
    if redis.call('PTTL', KEYS[4]) < ttl then redis.call('PEXPIRE', KEYS[4], ttl) end
  else
    redis.call('ZADD', KEYS[4], '+inf', ARGV[2])
    redis.call('PERSIST', KEYS[4])
  end
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'n', redis.call('INCR', KEYS[5]), 'o', ARGV[7],
  'c', ARGV[8])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
if KEYS[2] ~= KEYS[1] then
  if ttl > 0 then
    redis.call('SET', KEYS[2], ARGV[2], 'PX', ttl)
  else
    redis.call('SET', KEYS[2], ARGV[2])
  end
end
if tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[3], '1', 'PX', ARGV[5]) end
return false
"""
)
# KEYS: record, lease. ARGV: the lease to extend it to (ms) if held, or 0 to only read.
_READ = (
    _ENTRY
    + """
if tonumber(ARGV[1]) > 0 then redis.call('SET', KEYS[2], '1', 'XX', 'PX', ARGV[1]) end
return entry(KEYS[1], KEYS[2]) or false
"""
)
# KEYS: record, lease, channel, version counter. ARGV: the version read, value, open
# ('1'/'0'), lease (ms, or 0: keep), key, prefix. Returns {version, held, open}, or false
# when the record is gone or at another version.
_UPDATE = """
local r = redis.call('HMGET', KEYS[1], 'n', 'o', 'c')
if not r[1] or r[1] ~= ARGV[1] then return false end
local open = r[2]
if open == '1' and ARGV[3] == '0' then
  redis.call('ZREM', ARGV[6] .. 'p:' .. r[3], ARGV[5])
  open = '0'
end
local version = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'n', version, 'o', open)
if tonumber(ARGV[4]) > 0 then redis.call('SET', KEYS[2], '1', 'PX', ARGV[4]) end
redis.call('PUBLISH', KEYS[3], version)
return {version, redis.call('EXISTS', KEYS[2]), open}
"""


class RedisRecords:
    """`elicitkit._replay.records.Records` of one kind, in Redis.

    Attributes:
        timeout: Seconds one Redis call may take.
    """

    def __init__(
        self, client: Redis, prefix: str, *, max_per_caller: int, timeout: float = 3.0
    ) -> None:
        """Keep records through ``client`` under keys starting with ``prefix``.

        Args:
            client: A ``redis.asyncio.Redis`` client (the caller owns and closes it).
            prefix: Where in the key space the kind's records live.
            max_per_caller: How many open records one caller holds at most.
            timeout: Seconds one Redis call may take before the operation fails.
        """
        self._redis: Any = client  # redis-py's command methods are only partly typed
        self._prefix = prefix
        self._max_per_caller = max_per_caller
        self.timeout = timeout

    @property
    def client(self) -> Any:
        """The Redis client."""
        return self._redis

    async def create(
        self,
        key: str,
        value: str,
        *,
        caller: str,
        unfinished: bool,
        ttl: float | None,
        lease: float | None = None,
        alias: str | None = None,
    ) -> Entry | None:
        """See `elicitkit._replay.records.Records.create`."""
        record = self._key(key)
        with anyio.fail_after(self.timeout):
            found = await run_script(
                self._redis,
                _CREATE,
                [
                    record,
                    record if alias is None else self._prefix + "a:" + alias,
                    self._prefix + "l:" + key,
                    self._prefix + "p:" + caller,
                    self._prefix + "n",
                ],
                [
                    value,
                    key,
                    0 if ttl is None else _ms(ttl),
                    self._prefix,
                    0 if lease is None else _ms(lease),
                    self._max_per_caller,
                    "1" if unfinished else "0",
                    caller,
                ],
            )
        if found is None:
            return None
        parts = cast("list[Any]", found)
        if len(parts) == 1:
            raise Full(self._max_per_caller, caller=True)
        return _entry(parts)

    async def read(self, key: str) -> Entry | None:
        """See `elicitkit._replay.records.Records.read`."""
        return await self._read(key, 0)

    async def renew(self, key: str, seconds: float) -> Entry | None:
        """See `elicitkit._replay.records.Records.renew`."""
        return await self._read(key, _ms(seconds))

    async def update(
        self, key: str, version: int, value: str, *, unfinished: bool, lease: float | None = None
    ) -> Entry | None:
        """See `elicitkit._replay.records.Records.update`."""
        with anyio.fail_after(self.timeout):
            found = await run_script(
                self._redis,
                _UPDATE,
                [self._key(key), self._prefix + "l:" + key, self._channel(key), self._prefix + "n"],
                [
                    version,
                    value,
                    "1" if unfinished else "0",
                    0 if lease is None else _ms(lease),
                    key,
                    self._prefix,
                ],
            )
        if found is None:
            return None
        new_version, held, open_ = cast("list[Any]", found)
        return Entry(value, int(new_version), bool(held), _text(open_) == "1")

    async def wait(self, key: str, version: int, seconds: float) -> None:
        """See `elicitkit._replay.records.Records.wait` (a subscription to the key's channel)."""
        pubsub = self._redis.pubsub()
        try:
            with anyio.fail_after(self.timeout):
                await pubsub.subscribe(self._channel(key))
                now = await self._redis.hget(self._key(key), "n")
            if now is None or int(now) != version:
                return  # it changed (or went) before the subscription: no need to wait
            with anyio.move_on_after(seconds):
                while True:
                    message = await pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=seconds
                    )
                    if message is not None:
                        return
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(self.timeout):
                await pubsub.aclose()

    async def _read(self, key: str, lease_ms: int) -> Entry | None:
        with anyio.fail_after(self.timeout):
            found = await run_script(
                self._redis, _READ, [self._key(key), self._prefix + "l:" + key], [lease_ms]
            )
        return None if found is None else _entry(cast("list[Any]", found))

    def _key(self, key: str) -> str:
        return self._prefix + "r:" + key

    def _channel(self, key: str) -> str:
        return self._prefix + "c:" + key


def _entry(parts: list[Any]) -> Entry:
    value, version, held, open_ = parts
    return Entry(_text(value), int(version), bool(held), _text(open_) == "1")


def _text(raw: bytes | str | int) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
