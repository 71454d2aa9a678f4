"""`RedisTaskStore`: task records in Redis, shared by every process that serves the clients.

Needs the ``redis`` extra (``pip install "redis>=5"``)::

    from redis.asyncio import Redis
    from elicitkit.stores import RedisTaskStore

    elicitkit.install(server, tasks=RedisTaskStore(Redis.from_url("redis://localhost:6379/0")))

Any worker answers ``tasks/get``, ``tasks/update`` and ``tasks/cancel``: each reads or
changes the record in Redis, and a change is published on the task's channel, which wakes
the worker running the body wherever it is (an answer for its question, a cancellation).
No sticky routing is needed. It is the one task store
(`elicitkit._replay.tasks.RecordTaskStore`) over the Redis record backend
(`elicitkit._replay.redis_records`): leases and expiry are timed by Redis, never by a
worker's clock (workers' clocks disagree), and every call has a timeout (``timeout``): a
Redis that does not answer fails the request, never hangs it.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

from elicitkit._replay.redis_records import RedisRecords
from elicitkit._replay.tasks import DEFAULT_MAX_PER_CALLER, RecordTaskStore, check_limits


class RedisTaskStore(RecordTaskStore):
    """An `elicitkit.stores.TaskStore` in Redis, for servers that run in several processes.

    Attributes:
        ttl: Seconds a task's record lives from its creation (``None``: unlimited).
        lease: Seconds a worker holds a running task without renewing it: how soon a dead
            worker's leg is started again (timed by Redis, not by the workers).
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
        self.backend = RedisRecords(client, prefix, max_per_caller=max_per_caller, timeout=timeout)
        self.timeout = timeout
        super().__init__(
            self.backend,
            name="RedisTaskStore",
            ttl=ttl,
            lease=lease,
            poll=poll,
        )

    @property
    def client(self) -> Any:
        """The Redis client (a Docket for the tasks' legs connects beside it)."""
        return self.backend.client
