"""`RedisTaskStore`: task records in Redis, shared by every process that serves the clients.

Needs the ``redis`` extra (``pip install "redis>=5"``)::

    from redis.asyncio import Redis
    from elicitkit.stores import RedisTaskStore

    elicitkit.install(server, tasks=RedisTaskStore(Redis.from_url("redis://localhost:6379/0")))

Any worker answers ``tasks/get``, ``tasks/update`` and ``tasks/cancel``: each reads or
changes the record in Redis, and a change is published on the task's channel, which wakes
the worker running the body wherever it is (an answer for its question, a cancellation).
No sticky routing is needed.

Leases are timed by Redis, never by a worker's clock (workers' clocks disagree): the lease
is a key of its own, ``l:<task id>``, set with a ``PX`` time to live when the task is
created and renewed by the body's worker (``SET XX PX``, which cannot revive a lapsed
one). A task whose lease key is gone while a leg runs lost that leg's worker: the first
worker to read it (``tasks/get`` anywhere, or the leg's worker renewing) marks the leg
orphaned (`elicitkit._replay.tasks.lose_worker`) in an optimistic transaction watching the
record and the lease, so the judgement and the leg's own end are ordered: whichever lands
first stands. A claim of a leg grants a fresh lease in the transaction of its change. The
leg's worker that finds its leg orphaned, or cannot renew its lease within the lease,
stops the leg.

Keys, under ``prefix``: ``t:<task id>`` holds the record (JSON), ``d:<dialogue>`` the id of
the task a dialogue went on as, ``l:<task id>`` the lease; the first two expire ``ttlMs``
after the task's creation (a relative ``PX``: no worker's clock). ``p:<caller>`` is a sorted
set of a caller's unfinished tasks (a principal's digest; anonymous callers share ``p:``),
scored by when each expires by Redis's clock: a task leaves it when it ends, expires, or
(looked at only when the caller is at ``max_per_caller``) its record is gone, and a caller
holding ``max_per_caller`` is refused a new task (`CallerFull`) while the others go on.
Changes are optimistic transactions (``WATCH``/``MULTI``): a change that raced another is
redone on the fresh record. Creating and reading are one Lua script each, sent by its digest
(`elicitkit._replay.redis_scripts.run_script`). Every call has a timeout (``timeout``): a
Redis that does not answer fails the request, never hangs it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

import anyio
from redis.asyncio import Redis
from redis.exceptions import WatchError

import elicitkit._clock as clock
from elicitkit._replay.redis_scripts import run_script
from elicitkit._replay.tasks import (
    DEFAULT_MAX_PER_CALLER,
    TaskRecord,
    caller_full,
    caller_of,
    check_limits,
    lose_worker,
)

# ARGV: record JSON, task id, time to live (ms, or 0: none), prefix, lease (ms), the most
# unfinished tasks of one caller. KEYS: record key, dialogue key (or the record key again
# when there is no dialogue), lease key, the caller's set. Returns the dialogue's existing
# record, {'caller-full'} when the caller holds its most, or false when this one was stored.
_CREATE = """
if KEYS[2] ~= KEYS[1] then
  local existing = redis.call('GET', KEYS[2])
  if existing then
    local found = redis.call('GET', ARGV[4] .. 't:' .. existing)
    if found then return found end
  end
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then
  -- At the limit only (linear in it): a task whose record is gone expired or was lost.
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    if redis.call('EXISTS', ARGV[4] .. 't:' .. id) == 0 then redis.call('ZREM', KEYS[4], id) end
  end
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then return {'caller-full'} end
end
if tonumber(ARGV[3]) > 0 then
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
else
  redis.call('ZADD', KEYS[4], '+inf', ARGV[2])
  redis.call('PERSIST', KEYS[4])
end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  if KEYS[2] ~= KEYS[1] then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
else
  redis.call('SET', KEYS[1], ARGV[1])
  if KEYS[2] ~= KEYS[1] then redis.call('SET', KEYS[2], ARGV[2]) end
end
redis.call('SET', KEYS[3], '1', 'PX', ARGV[5])
return false
"""
# KEYS: record key, lease key. ARGV: the lease to grant (ms), or 0 to only read. Returns
# {record, whether the lease is held} (false when there is no record): one round trip.
_READ = """
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local held
if tonumber(ARGV[1]) > 0 then
  held = redis.call('SET', KEYS[2], '1', 'XX', 'PX', ARGV[1])
else
  held = redis.call('EXISTS', KEYS[2]) == 1
end
if held then return {raw, 1} end
return {raw, 0}
"""
# A change that keeps losing its race this often is refused rather than retried for ever.
_MAX_ATTEMPTS = 50


class RedisTaskStore:
    """An `elicitkit.stores.TaskStore` in Redis, for servers that run in several processes.

    Attributes:
        ttl: Seconds a task's record lives from its creation (``None``: unlimited).
        lease: Seconds a worker holds a running task without renewing it: how soon a dead
            worker's task is reported ``failed`` (timed by Redis, not by the workers).
        poll: Seconds suggested to clients between two polls.
        timeout: Seconds one Redis call may take.
    """

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "elicitkit:task:",
        max_per_caller: int = DEFAULT_MAX_PER_CALLER,
        ttl: float | None = 3600.0,
        lease: float = 10.0,
        poll: float = 1.0,
        timeout: float = 3.0,
    ) -> None:
        """Keep task records through ``client`` under keys starting with ``prefix``.

        Args:
            client: A ``redis.asyncio.Redis`` client (the caller owns and closes it).
            prefix: Where in the key space the tasks live.
            max_per_caller: How many unfinished tasks one caller holds at most.
            ttl: Seconds a record lives from its task's creation (``None``: unlimited).
            lease: Seconds a worker holds a running task without renewing it.
            poll: Seconds suggested to clients between two polls.
            timeout: Seconds one Redis call may take before the request fails.
        """
        check_limits(1, max_per_caller, "RedisTaskStore")
        self._redis: Any = client  # redis-py's command methods are only partly typed
        self._prefix = prefix
        self._max_per_caller = max_per_caller
        self.ttl = ttl
        self.lease = lease
        self.poll = poll
        self.timeout = timeout
        # The last version of each task this process read, so `wait` can tell a change
        # that landed between that read and its subscription (bounded: one per task seen).
        self._seen: dict[str, float] = {}

    async def create(self, record: TaskRecord, *, dialogue: str | None) -> TaskRecord:
        """See `elicitkit.stores.TaskStore.create`."""
        key = self._key(record.task_id)
        with anyio.fail_after(self.timeout):
            found = await run_script(
                self._redis,
                _CREATE,
                [
                    key,
                    key if dialogue is None else self._prefix + "d:" + dialogue,
                    self._lease_key(record.task_id),
                    self._caller_key(record),
                ],
                [
                    _dumps(record),
                    record.task_id,
                    record.ttl_ms or 0,
                    self._prefix,
                    _ms(self.lease),
                    self._max_per_caller,
                ],
            )
        if isinstance(found, list):
            raise caller_full("RedisTaskStore", self._max_per_caller)
        return record if found is None else _loads(cast("bytes | str", found))

    async def get(self, task_id: str) -> TaskRecord | None:
        """See `elicitkit.stores.TaskStore.get`: a task whose lease lapsed is ``failed``."""
        return await self._read(task_id, 0)

    async def renew(self, task_id: str, seconds: float) -> TaskRecord | None:
        """See `elicitkit._replay.tasks.LeasingTaskStore.renew`."""
        return await self._read(task_id, _ms(seconds))

    async def _read(self, task_id: str, lease_ms: int) -> TaskRecord | None:
        with anyio.fail_after(self.timeout):
            found = cast(
                "list[Any] | None",  # _READ's {record, held}, or None when there is no record
                await run_script(
                    self._redis, _READ, [self._key(task_id), self._lease_key(task_id)], [lease_ms]
                ),
            )
            if not found:
                return None
            raw, held = found
            record = _loads(raw)
            if not held and not record.terminal:
                return await self._lost(task_id)
        self._saw(record)
        return record

    async def _lost(self, task_id: str) -> TaskRecord | None:
        """Mark the task ``failed``: its lease lapsed (checked again under ``WATCH``)."""
        key, lease = self._key(task_id), self._lease_key(task_id)
        async with self._redis.pipeline(transaction=True) as pipe:
            for _ in range(_MAX_ATTEMPTS):
                try:
                    # Watching the lease too: a renewal landing now aborts the judgement.
                    await pipe.watch(key, lease)
                    raw = await pipe.get(key)
                    if raw is None:
                        return None
                    record = _loads(raw)
                    if record.terminal or await pipe.exists(lease) or not lose_worker(record):
                        await pipe.reset()
                    else:
                        record.updated_at = clock.now()
                        pipe.multi()
                        # A task that ran as one body was failed: it no longer counts.
                        if record.call is None:
                            pipe.zrem(self._caller_key(record), task_id)
                        pipe.set(key, _dumps(record), keepttl=True)
                        pipe.publish(self._channel(task_id), "1")
                        await pipe.execute()
                except WatchError:
                    continue  # the body ended, or renewed, first: judge the fresh record
                self._saw(record)
                return record
        raise RuntimeError(
            f"Task {task_id} changed {_MAX_ATTEMPTS} times while elicitkit read its lease."
        )

    async def change(
        self,
        task_id: str,
        edit: Callable[[TaskRecord], bool],
        *,
        wake: bool = True,
        lease: float | None = None,
    ) -> TaskRecord | None:
        """See `elicitkit.stores.TaskStore.change`."""
        key = self._key(task_id)
        with anyio.fail_after(self.timeout):
            async with self._redis.pipeline(transaction=True) as pipe:
                for _ in range(_MAX_ATTEMPTS):
                    try:
                        await pipe.watch(key)
                        raw = await pipe.get(key)
                        if raw is None:
                            return None
                        record = _loads(raw)
                        if not edit(record):
                            await pipe.reset()
                            self._saw(record)
                            return record
                        pipe.multi()
                        if wake:
                            record.updated_at = clock.now()
                            pipe.publish(self._channel(task_id), "1")
                        if record.terminal:  # it no longer counts against its caller
                            pipe.zrem(self._caller_key(record), task_id)
                        pipe.set(key, _dumps(record), keepttl=True)
                        if lease is not None:
                            pipe.set(self._lease_key(task_id), "1", px=_ms(lease))
                        await pipe.execute()
                    except WatchError:
                        continue  # another worker changed it first: edit the fresh record
                    self._saw(record)
                    return record
        raise RuntimeError(
            f"Task {task_id} changed {_MAX_ATTEMPTS} times while elicitkit tried to change it."
        )

    async def wait(self, task_id: str, seconds: float) -> None:
        """See `elicitkit.stores.TaskStore.wait` (a subscription to the task's channel)."""
        seen = self._seen.pop(task_id, None)
        pubsub = self._redis.pubsub()
        try:
            with anyio.fail_after(self.timeout):
                await pubsub.subscribe(self._channel(task_id))
                raw = await self._redis.get(self._key(task_id))
            if raw is None or (seen is not None and _loads(raw).updated_at != seen):
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

    @property
    def client(self) -> Any:
        """The Redis client (a Docket for the tasks' legs connects beside it)."""
        return self._redis

    def _saw(self, record: TaskRecord) -> None:
        if len(self._seen) > 10_000:
            self._seen.clear()
        self._seen[record.task_id] = record.updated_at

    def _key(self, task_id: str) -> str:
        return self._prefix + "t:" + task_id

    def _caller_key(self, record: TaskRecord) -> str:
        return self._prefix + "p:" + caller_of(record)

    def _lease_key(self, task_id: str) -> str:
        return self._prefix + "l:" + task_id

    def _channel(self, task_id: str) -> str:
        return self._prefix + "c:" + task_id


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def _dumps(record: TaskRecord) -> str:
    return json.dumps(record.to_json(), separators=(",", ":"))


def _loads(raw: bytes | str) -> TaskRecord:
    return TaskRecord.from_json(json.loads(raw))
