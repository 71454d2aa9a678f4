"""`RedisUrlRouter`: URL-mode completions routed across the processes that serve clients.

Needs the ``redis`` extra, redis-py 5+ for its asyncio client (``pip install "redis>=5"``);
Redis 6.2+ for ``GETDEL``::

    from redis.asyncio import Redis
    from elicitkit.url import RedisUrlRouter

    install(server, url_router=RedisUrlRouter(Redis.from_url("redis://localhost:6379/0")))

(``install()`` does this itself when ``ELICITKIT_STORE`` is a Redis URL and no router was
chosen; `elicitkit.url.use_url_router` makes one the process default instead.) The session
that asked lives in one process; the page's callback may land on any. So the way to notify
a session (a callable bound to its stream) stays in the process that holds it, and Redis
only routes the id:

* ``register`` keeps the notifier here and sets the key ``<prefix><id>`` to this process's
  own pub/sub channel, with the route's expiry. The first ``register`` subscribes that
  channel and starts this process's one listener task. ``drop`` (a declined, cancelled or
  timed-out question), a session's end and ``extend`` (an accepted one) change the key
  with the route: a key lives no longer than its route.
* The caps (per session, and in all) are counted in the process that holds the sessions:
  a session's stream, and so its routes, live in one process, which therefore counts them
  exactly without a round trip. A full process refuses new questions; it never drops
  another session's route.
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
import functools
import secrets
from typing import Any

from redis.asyncio import Redis

from elicitkit._runtime.url_routes import AskingSession, HoldsRoutes, Notify, RouteTable


def _millis(seconds: float) -> int:
    return max(1, round(seconds * 1000))


class RedisUrlRouter(HoldsRoutes):
    """A `elicitkit.url.UrlRouter` in Redis, for servers that run in several processes.

    Call `aclose` when the process shuts down: it stops the listener and unsubscribes.
    """

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "elicitkit:url:",
        max_routes: int = 10_000,
        max_per_session: int = 16,
    ) -> None:
        """Route completions through ``client``, with keys and channels under ``prefix``.

        Args:
            client: A ``redis.asyncio.Redis`` client (the caller owns and closes it).
            prefix: Where in the key space the open ids and the channels live.
            max_routes: How many open URL elicitations this process holds; when full, a
                new ``ask_url`` is refused (`elicitkit.errors.TooManyOpenUrls`) rather
                than another session's route dropped.
            max_per_session: How many one session holds (its own oldest goes first).
                Counted in this process, which is exact: a session lives in one process.

        Raises:
            ValueError: A limit is not a whole number of at least 1.
        """
        self._redis: Any = client  # redis-py's command methods are only partly typed
        self._prefix = prefix
        # This process's own channel: a completion is published to the one process that
        # holds the session, not broadcast to all.
        self._channel = f"{prefix}process:{secrets.token_hex(8)}"
        # This process's own notifiers: the same bounded, expiring table as one process
        # uses. The notifier and the session live here, so the caps are kept here too.
        self._table = RouteTable(max_routes, max_per_session)
        self._pubsub: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._starting = asyncio.Lock()

    async def register(
        self, elicitation_id: str, notify: Notify, *, keep: float, session: AskingSession
    ) -> None:
        """Keep ``notify`` here; record in Redis, expiring with it, that this process holds it.

        Raises:
            TooManyOpenUrls: This process holds ``max_routes`` routes already.
        """
        await self._listen()
        dropped, new = self._table.add(elicitation_id, notify, keep, session)
        if new:
            session.at_end(self, functools.partial(self._session_ended, session))
        async with self._redis.pipeline(transaction=False) as pipe:
            stale = [self._prefix + gone for gone in dropped if gone != elicitation_id]
            if stale:
                pipe.delete(*stale)
            pipe.set(self._prefix + elicitation_id, self._channel, px=_millis(keep))
            await pipe.execute()

    async def extend(self, elicitation_id: str, *, keep: float) -> bool:
        """Keep the route ``keep`` seconds from now, here and its key in Redis."""
        if not self._table.extend(elicitation_id, keep):
            return False
        # PEXPIRE on a key GETDEL took (completed from another process, the message on its
        # way here) does nothing: the route is then taken when the message arrives.
        extended: int = await self._redis.pexpire(self._prefix + elicitation_id, _millis(keep))
        return bool(extended)

    async def drop(self, elicitation_id: str) -> None:
        """Forget the route, here and in Redis."""
        if self._table.drop(elicitation_id):
            await self._redis.delete(self._prefix + elicitation_id)

    async def complete(self, elicitation_id: str) -> bool:
        """Route the completion to the process that asked, at most once (see the module)."""
        owner: object = await self._redis.getdel(self._prefix + elicitation_id)
        if owner is None:
            return False  # unknown, expired, or another call completed it first
        channel = owner.decode() if isinstance(owner, bytes) else str(owner)
        if channel == self._channel:
            return await self._deliver(elicitation_id)
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
        self._table = RouteTable(self._table.max_routes, self._table.max_per_session)

    async def _session_ended(self, session: AskingSession) -> None:
        ids = self._table.drop_session(session)
        if not ids:
            return
        # Best effort: were Redis unreachable now, the keys still expire with their routes,
        # and a completion that finds one is published to a process that no longer holds
        # the route, so it is not delivered to anyone.
        with contextlib.suppress(Exception):
            await self._redis.delete(*(self._prefix + gone for gone in ids))

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
                await self._deliver(elicitation_id)
        except Exception:  # noqa: BLE001  (connection lost: the next register() listens again)
            return
