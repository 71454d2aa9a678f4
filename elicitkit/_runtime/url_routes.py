"""URL mode's completion routing: which client to tell that a page is done.

Completion is routed through a `UrlRouter`: ``ask_url`` registers, for its
elicitation id, how to notify the one session that asked; the author's web callback
calls `complete_url` with the id. `LocalUrlRouter` keeps the routes in this process;
servers run as several processes use `elicitkit.url.RedisUrlRouter`.

Each server has its router: ``install(server, url_router=...)``; without one, the server
uses a `RedisUrlRouter` at ``ELICITKIT_STORE`` when that is a Redis URL, else the process
default (`use_url_router`, itself a `LocalUrlRouter` unless chosen), looked up at each
call. ``ask_url`` registers with the router of the server whose call it runs in. The web
callback runs outside any call, so `complete_url` without a router tries the process
default and then every router a server was installed with, until one knows the id (ids are
unguessable and unique, so at most one does); ``complete_url(id, router=router)``
asks that one only.

Routes are bounded so that no client can push out another's (issue 18): a route is dropped
when its question is declined, cancelled or times out, when its session ends, and after its
page's time (the question's ``timeout`` again, from acceptance); one session holds at most
``max_per_session`` (its own oldest goes), and a full router refuses new questions rather
than drop another session's route.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import elicitkit._clock as clock
from elicitkit._replay.limits import check_counts
from elicitkit.errors import TooManyOpenUrls

logger = logging.getLogger("elicitkit")

Notify = Callable[[], Awaitable[None]]
"""Sends ``notifications/elicitation/complete`` to the session that asked."""


class AskingSession(Protocol):
    """The client session a URL question was asked in, as a URL router sees it.

    Compared by identity: one object per session, the same for every call in it.
    """

    def at_end(self, key: object, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` once when the session ends (its client leaves or is closed).

        Only the first callback for a given ``key`` is kept: a router passes itself, so a
        session that asks 10,000 times holds one callback per router, not 10,000.
        """
        ...


class UrlRouter(Protocol):
    """Where a URL elicitation's completion is routed to the client that started it.

    A route is held from ``register`` until ``complete`` or ``drop`` takes it, its session
    ends, or it expires; ``ask_url`` drops it itself when the question is declined,
    cancelled, timed out or fails, and shortens it to the page's time when accepted.
    """

    async def register(
        self, elicitation_id: str, notify: Notify, *, keep: float, session: AskingSession
    ) -> None:
        """Remember, for ``keep`` seconds, how to tell the asking client it is complete.

        Drop the route when ``session`` ends. Bounded per session and in all: a session
        over its own bound loses its own oldest route; a router that is full refuses
        rather than drop another session's route.

        Raises:
            TooManyOpenUrls: The router holds as many routes as it may.
        """
        ...

    async def extend(self, elicitation_id: str, *, keep: float) -> bool:
        """Keep the route ``keep`` seconds from now; ``False`` if it is no longer held."""
        ...

    async def drop(self, elicitation_id: str) -> None:
        """Forget the route (no notification is sent); nothing happens if it is not held."""
        ...

    async def complete(self, elicitation_id: str) -> bool:
        """Tell the asking client; return ``False`` if the id is unknown or expired."""
        ...


class UrlChannel(Protocol):
    """What an SDK integration provides to URL mode for one tool call (beside `Channel`)."""

    def why_no_url(self) -> str | None:
        """Say why this call cannot send the user to a URL, or ``None`` if it can."""
        ...

    def completion_notifier(self, elicitation_id: str) -> Callable[[], Awaitable[None]]:
        """Return how to send ``notifications/elicitation/complete`` to this client only."""
        ...

    @property
    def session(self) -> AskingSession:
        """The client session this call belongs to (the one object for all its calls)."""
        ...

    def url_required(self, message: str, url: str, elicitation_id: str) -> BaseException:
        """Return the URL-elicitation-required error (-32042) for this URL."""
        ...


_SWEEP_EVERY = 60.0
"""Seconds between sweeps of expired routes as routes are added (and whenever full)."""


@dataclass
class _Route:
    until: float  # clock.monotonic() deadline
    notify: Notify
    session: AskingSession


class RouteTable:
    """The routes one process holds: expiring, bounded per session and in all.

    Shared by `LocalUrlRouter` and `RedisUrlRouter` (whose notifiers live in the process
    that holds the session). A session over ``max_per_session`` loses its own oldest route;
    a full table refuses a new one (`TooManyOpenUrls`) instead of dropping another
    session's: that eviction let one client's flood of questions silently break another
    user's open page.
    """

    def __init__(self, max_routes: int, max_per_session: int) -> None:
        """Hold up to ``max_routes``, at most ``max_per_session`` of them for one session."""
        check_counts("A URL router", max_routes=max_routes, max_per_session=max_per_session)
        self.max_routes = max_routes
        self.max_per_session = max_per_session
        self._routes: dict[str, _Route] = {}
        # Each session's ids, oldest first (a dict as an ordered set).
        self._sessions: dict[AskingSession, dict[str, None]] = {}
        self._next_sweep = clock.monotonic() + _SWEEP_EVERY

    def __len__(self) -> int:
        """How many routes are held, counting expired ones not swept yet."""
        return len(self._routes)

    def add(
        self, elicitation_id: str, notify: Notify, keep: float, session: AskingSession
    ) -> tuple[list[str], bool]:
        """Hold a route; return the ids dropped to make room, and whether the session is new.

        Raises:
            TooManyOpenUrls: The table is full (nothing was dropped).
        """
        now = clock.monotonic()
        dropped = self.sweep(now) if now >= self._next_sweep else []
        if elicitation_id in self._routes:  # the author reused an id: the new route wins
            self._remove(elicitation_id)
            dropped.append(elicitation_id)
        # The session's own oldest route makes room: never another session's.
        own = self._sessions.get(session, {})
        while len(own) >= self.max_per_session:
            oldest = next(iter(own))
            self._remove(oldest)
            dropped.append(oldest)
        if len(self._routes) >= self.max_routes:
            dropped.extend(self.sweep(now))
            if len(self._routes) >= self.max_routes:
                raise TooManyOpenUrls(
                    f"The server already holds {self.max_routes:,} open URL elicitations, the "
                    "limit of its URL router (max_routes), so it cannot send the user "
                    "to this page: the open ones are kept rather than dropped for this one. "
                    "Try again once some are done, or give the router a larger max_routes."
                )
        self._routes[elicitation_id] = _Route(now + keep, notify, session)
        found = self._sessions.get(session)  # looked up again: the sweeps may have emptied it
        if found is None:
            found = self._sessions[session] = {}
        found[elicitation_id] = None
        return dropped, len(found) == 1

    def take(self, elicitation_id: str) -> Notify | None:
        """Remove the route and return its notifier, or ``None`` if absent or expired."""
        route = self._routes.get(elicitation_id)
        if route is None:
            return None
        self._remove(elicitation_id)
        return route.notify if route.until >= clock.monotonic() else None

    def extend(self, elicitation_id: str, keep: float) -> bool:
        """Keep the route ``keep`` seconds from now; ``False`` if absent or expired."""
        route = self._routes.get(elicitation_id)
        now = clock.monotonic()
        if route is None or route.until < now:
            return False
        route.until = now + keep
        return True

    def drop(self, elicitation_id: str) -> bool:
        """Remove the route; whether it was held."""
        if elicitation_id not in self._routes:
            return False
        self._remove(elicitation_id)
        return True

    def drop_session(self, session: AskingSession) -> list[str]:
        """Remove every route of ``session``; return their ids."""
        ids = list(self._sessions.pop(session, ()))
        for elicitation_id in ids:
            del self._routes[elicitation_id]
        return ids

    def sweep(self, now: float) -> list[str]:
        """Remove the expired routes; return their ids."""
        self._next_sweep = now + _SWEEP_EVERY
        expired = [key for key, route in self._routes.items() if route.until < now]
        for elicitation_id in expired:
            self._remove(elicitation_id)
        return expired

    def _remove(self, elicitation_id: str) -> None:
        route = self._routes.pop(elicitation_id)
        own = self._sessions[route.session]
        del own[elicitation_id]
        if not own:  # a session with no routes holds nothing here
            del self._sessions[route.session]


class HoldsRoutes:
    """A router whose routes (in this process) live in a bounded `RouteTable`."""

    _table: RouteTable

    @property
    def max_routes(self) -> int:
        """How many open URL elicitations it holds at most (in this process)."""
        return self._table.max_routes

    @property
    def max_per_session(self) -> int:
        """How many open URL elicitations one session holds at most."""
        return self._table.max_per_session

    def __len__(self) -> int:
        """How many routes it holds now (expired ones are not counted)."""
        self._table.sweep(clock.monotonic())
        return len(self._table)

    async def _deliver(self, elicitation_id: str) -> bool:
        """Take the route held here and notify its session: whether the session was told."""
        notify = self._table.take(elicitation_id)
        if notify is None:
            return False
        try:
            await notify()
        except Exception:  # noqa: BLE001  (the client left: nobody to tell)
            return False
        return True


class LocalUrlRouter(HoldsRoutes):
    """A `UrlRouter` for a server that runs as one process (the default).

    Bounded: a route lasts as long as its question needs it (see `ask_url`) and is dropped
    when its session ends; one session holds at most ``max_per_session`` routes (its own
    oldest goes first), and all sessions together at most ``max_routes`` (then a new
    ``ask_url`` is refused with `elicitkit.errors.TooManyOpenUrls`, and no other session's
    route is dropped for it).
    """

    def __init__(self, max_routes: int = 10_000, *, max_per_session: int = 16) -> None:
        """Hold up to ``max_routes`` open URL elicitations, ``max_per_session`` per session.

        Raises:
            ValueError: A limit is not a whole number of at least 1.
        """
        self._table = RouteTable(max_routes, max_per_session)

    async def register(
        self, elicitation_id: str, notify: Notify, *, keep: float, session: AskingSession
    ) -> None:
        """Remember the route (see `UrlRouter.register`).

        Raises:
            TooManyOpenUrls: It holds ``max_routes`` routes already.
        """
        _, new = self._table.add(elicitation_id, notify, keep, session)
        if new:
            session.at_end(self, functools.partial(self._session_ended, session))

    async def extend(self, elicitation_id: str, *, keep: float) -> bool:
        """Keep the route ``keep`` seconds from now (see `UrlRouter.extend`)."""
        return self._table.extend(elicitation_id, keep)

    async def drop(self, elicitation_id: str) -> None:
        """Forget the route (see `UrlRouter.drop`)."""
        self._table.drop(elicitation_id)

    async def complete(self, elicitation_id: str) -> bool:
        """Notify the asking session once (see `UrlRouter.complete`)."""
        return await self._deliver(elicitation_id)

    async def _session_ended(self, session: AskingSession) -> None:
        self._table.drop_session(session)


_DEFAULT_ROUTER = LocalUrlRouter()
_router: list[UrlRouter] = [_DEFAULT_ROUTER]
# The routers servers were installed with (weakly: a router lives as long as its server).
_installed: weakref.WeakSet[Any] = weakref.WeakSet()
# Those install() placed beside the server's store, not passed by the author: a process
# default chosen later (`use_url_router`) still wins over them, as it did over none.
_placed: weakref.WeakSet[Any] = weakref.WeakSet()


def url_router_chosen() -> bool:
    """Whether the author installed a router (`use_url_router`) instead of the default."""
    return _router[0] is not _DEFAULT_ROUTER


def use_url_router(router: UrlRouter) -> None:
    """Make ``router`` the process default (initially a `LocalUrlRouter`).

    A server installed without ``url_router=`` (and without a Redis URL in
    ``ELICITKIT_STORE``) routes through the process default of the moment its tool asks, so
    this may be called before or after ``install()``. `complete_url` always tries it.
    """
    _router[0] = router


def installed_with(router: UrlRouter, *, placed: bool) -> None:
    """Note that a server routes through ``router``, so `complete_url` tries it too.

    ``placed``: install() chose it beside the server's store; a process default chosen
    afterwards (`use_url_router`) then routes the server's calls instead.
    """
    _installed.add(router)
    if placed:
        _placed.add(router)


def router_for(server_router: UrlRouter | None) -> UrlRouter:
    """The router a call of a server installed with ``server_router`` routes through now."""
    if server_router is None or (server_router in _placed and url_router_chosen()):
        return _router[0]
    return server_router


async def complete_url(elicitation_id: str, *, router: UrlRouter | None = None) -> bool:
    """Tell the client that started URL elicitation ``elicitation_id`` that it is done.

    Call it from your web callback (the OAuth redirect, the payment webhook) once the
    user has finished on the page. Only the session that asked is notified.

    Args:
        elicitation_id: The id the page was opened with.
        router: The router to ask (the one passed to ``install(server,
            url_router=...)``). Default: the process default (`use_url_router`), then
            every router a server in this process was installed with, until one knows
            the id.

    Returns:
        ``True`` if the client was notified; ``False`` if the id is unknown, expired, or
        already completed, or its client has gone.
    """
    if router is not None:
        return await router.complete(elicitation_id)
    routers: list[UrlRouter] = [_router[0]]
    routers.extend(each for each in list(_installed) if each is not _router[0])
    for each in routers:
        if await _completed_by(each, elicitation_id):
            return True
    return False


async def _completed_by(router: UrlRouter, elicitation_id: str) -> bool:
    """``router.complete``; a router that fails (its store down) is only logged.

    It must not keep `complete_url` from the router that holds the id.
    """
    try:
        return await router.complete(elicitation_id)
    except Exception as error:  # noqa: BLE001  (one server's store down: try the others)
        logger.error(  # noqa: TRY400  (one line: a store that is down fails many calls)
            "elicitkit could not ask %r whether it holds URL elicitation %s: %s",
            router,
            elicitation_id,
            error,
        )
        return False
