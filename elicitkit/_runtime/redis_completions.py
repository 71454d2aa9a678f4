"""`RedisCompletions`: URL-mode completions routed across the processes that serve clients.

Install with ``pip install "elicitkit[redis]"`` (redis-py 5+, its asyncio client; Redis 6.2+
for ``GETDEL``)::

    from redis.asyncio import Redis
    from elicitkit.url import RedisCompletions

    install(server, completions=RedisCompletions(Redis.from_url("redis://localhost:6379/0")))

(``install()`` does this itself when ``ELICITKIT_REDIS_URL`` is set and no router was
chosen; `elicitkit.url.use_completions` makes one the process default instead.) The session
that asked lives in one process; the page's callback may land on any. So the way to notify
a session (a callable bound to its stream) stays in the process that holds it, and Redis
only routes the id:

* ``register`` keeps the notifier here and sets the key ``<prefix><id>`` to this process's
  own pub/sub channel, with the route's expiry. The first ``register`` subscribes that
  channel and starts this process's one listener task.
* ``complete`` takes the key and deletes it in one atomic step (``GETDEL``), so of any
  number of calls, in any processes, at most one finds it: a completion is delivered at
  most once. That caller then publishes the id on the owner's channel (or, when the owner
  is this process, notifies directly). The owner's listener notifies the session.

``complete`` returns ``True`` when the id was open and its owning process is listening
(``PUBLISH`` reached it); sending the notification there is then best effort, as a client
may leave at any moment. It returns ``False`` for an unknown, expired or already completed
id, and when the owning process has gone (its route is lost with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import secrets
from typing import Any

from redis.asyncio import Redis

from elicitkit._runtime.context import Notify
from elicitkit._runtime.url_mode import LocalCompletions


class RedisCompletions:
    """A `elicitkit.url.CompletionRouter` in Redis, for servers that run in several processes.

    Call `aclose` when the process shuts down: it stops the listener and unsubscribes.
    """

    def __init__(
        self, client: Redis, *, prefix: str = "elicitkit:url:", max_routes: int = 10_000
    ) -> None:
        """Route completions through ``client``, with keys and channels under ``prefix``.

        Args:
            client: A ``redis.asyncio.Redis`` client (the caller owns and closes it).
            prefix: Where in the key space the open ids and the channels live.
            max_routes: How many open URL elicitations this process holds (the oldest go
                first).
        """
        self._redis: Any = client  # redis-py's command methods are only partly typed
        self._prefix = prefix
        # This process's own channel: a completion is published to the one process that
        # holds the session, not broadcast to all.
        self._channel = f"{prefix}process:{secrets.token_hex(8)}"
        # This process's own notifiers: the same bounded, expiring table as one process uses.
        self._local = LocalCompletions(max_routes)
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()

    async def register(self, elicitation_id: str, notify: Notify, *, keep: float) -> None:
        """Keep ``notify`` here; record in Redis that this process holds the id."""
        await self._listen()
        await self._local.register(elicitation_id, notify, keep=keep)
        await self._redis.set(
            self._prefix + elicitation_id, self._channel, px=max(1, round(keep * 1000))
        )

    async def complete(self, elicitation_id: str) -> bool:
        """Route the completion to the process that asked, at most once (see the module)."""
        owner: object = await self._redis.getdel(self._prefix + elicitation_id)
        if owner is None:
            return False  # unknown, expired, or another call completed it first
        channel = owner.decode() if isinstance(owner, bytes) else str(owner)
        if channel == self._channel:
            return await self._notify(elicitation_id)
        receivers: int = await self._redis.publish(channel, elicitation_id)
        return receivers > 0

    async def aclose(self) -> None:
        """Stop this process's listener and unsubscribe (the routes it held are dropped)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            await pubsub.aclose()
        self._local = LocalCompletions(self._local.max_routes)

    async def _notify(self, elicitation_id: str) -> bool:
        return await self._local.complete(elicitation_id)

    async def _listen(self) -> None:
        """Subscribe and start the listener once (again if the connection was lost)."""
        if self._listener is not None and not self._listener.done():
            return
        async with self._starting:
            if self._listener is not None and not self._listener.done():
                return
            if self._pubsub is not None:
                await self._pubsub.aclose()
            self._pubsub = self._redis.pubsub()
            # Subscribed before register() returns, so no completion can be published
            # to a channel nobody listens on yet.
            await self._pubsub.subscribe(self._channel)
            # The listener outlives the tool call that started it: run it in an empty
            # context, not holding the call's context variables.
            self._listener = contextvars.Context().run(
                asyncio.create_task, self._receive(self._pubsub)
            )

    async def _receive(self, pubsub: Any) -> None:
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                data = message.get("data")
                elicitation_id = data.decode() if isinstance(data, bytes) else str(data)
                await self._notify(elicitation_id)
        except Exception:  # noqa: BLE001  (connection lost: the next register() listens again)
            return
