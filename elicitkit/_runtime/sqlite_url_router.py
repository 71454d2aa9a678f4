"""`SqliteUrlRouter`: URL-mode completions routed between the processes of one machine.

With several workers on one machine (``uvicorn --workers 4``), a 2025-era session lives in
one worker and the page's callback may land on any. As with `RedisUrlRouter`, the way to
notify a session (a callable bound to its stream) stays in the process that holds it, and
the shared SQLite file (the records' file by default) only routes the id::

    url_routes(id, owner, until)      one row an open page: which process holds its session
    url_done(seq, owner, id, until)   completions on their way to the process that holds them

* ``register`` keeps the notifier here, in the same bounded `RouteTable` one process uses
  (the caps are counted where the sessions live, which is exact), and writes the row with
  the route's expiry. ``drop``, ``extend`` and a session's end change the row with it.
* ``complete`` reads and deletes the row in one transaction of the file, so of any number
  of calls, in any processes, at most one finds it: a completion is delivered at most
  once. When the owner is this process it notifies the session at once; else it queues
  the id for the owner in ``url_done``.
* Each process that holds routes runs one poller: every ``notice`` seconds (real seconds:
  it is I/O) it takes the ids queued for it and notifies their sessions, so a callback on
  another worker reaches the client within about ``notice`` seconds.

``owner`` is the machine's boot id, the process id and a random token, so ``complete`` can
tell a process that has gone (its routes went with it) and return ``False``, as
`RedisUrlRouter` does when nobody listens (a completion queued for it is swept unread).
Expiry is judged on the machine's wall clock (``elicitkit._clock.now``), which every process
reads alike; rows of expired routes, and queued completions nobody took, are swept as routes
are added.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import secrets
import sqlite3
from pathlib import Path
from typing import Literal

import anyio

import elicitkit._clock as clock
from elicitkit._clock import BOOT
from elicitkit._replay.sqlite_file import SqliteFile
from elicitkit._runtime.url_routes import AskingSession, HoldsRoutes, Notify, RouteTable


class SqliteUrlRouter(HoldsRoutes):
    """A `elicitkit.url.UrlRouter` in an SQLite file, for the processes of one machine.

    ``install()`` makes one in the records' file when the store is a `SqliteStore` (the
    default) and no router was chosen. Call `aclose` when the process shuts down.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_routes: int = 10_000,
        max_per_session: int = 16,
        notice: float = 0.05,
        busy_timeout: float = 2.0,
        synchronous: Literal["FULL", "NORMAL"] | None = None,
    ) -> None:
        """Route completions through the SQLite file at ``path`` (`SqliteStore`'s, say).

        Args:
            path: The database file; every process that serves the same clients passes it.
            max_routes: How many open URL elicitations this process holds; when full, a
                new ``ask_url`` is refused (`elicitkit.errors.TooManyOpenUrls`) rather
                than another session's route dropped.
            max_per_session: How many one session holds (its own oldest goes first).
            notice: Seconds between two looks for completions another process routed here.
            busy_timeout: Seconds an operation waits for another process's write lock.
            synchronous: SQLite's ``synchronous`` (see `elicitkit._replay.sqlite_file`).

        Raises:
            ValueError: A limit is not a whole number of at least 1.
        """
        self.path = Path(path)
        self._file = SqliteFile(self.path, busy_timeout=busy_timeout, synchronous=synchronous)
        self._table = RouteTable(max_routes, max_per_session)
        self._notice = notice
        self._token = secrets.token_hex(8)
        self._poller: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"SqliteUrlRouter({str(self.path)!r})"

    @property
    def _owner(self) -> str:
        # Read at each use: a forked worker is another owner than its parent.
        return f"{BOOT}:{os.getpid()}:{self._token}"

    async def register(
        self, elicitation_id: str, notify: Notify, *, keep: float, session: AskingSession
    ) -> None:
        """Keep ``notify`` here; record in the file, expiring with it, that this process does.

        Raises:
            TooManyOpenUrls: This process holds ``max_routes`` routes already.
        """
        dropped, new = self._table.add(elicitation_id, notify, keep, session)
        if new:
            session.at_end(self, functools.partial(self._session_ended, session))
        owner, stale = self._owner, [gone for gone in dropped if gone != elicitation_id]

        def register(db: sqlite3.Connection) -> None:
            now = clock.now()
            db.execute("DELETE FROM url_routes WHERE until < ?", (now,))
            db.execute("DELETE FROM url_done WHERE until < ?", (now,))
            db.executemany("DELETE FROM url_routes WHERE id = ?", [(gone,) for gone in stale])
            db.execute(
                "INSERT OR REPLACE INTO url_routes VALUES (?, ?, ?)",
                (elicitation_id, owner, now + keep),
            )

        try:
            await self._file.run(register)
        except BaseException:
            self._table.drop(elicitation_id)  # not routable: hold nothing for it
            raise
        self._listen()

    async def extend(self, elicitation_id: str, *, keep: float) -> bool:
        """Keep the route ``keep`` seconds from now, here and its row in the file."""
        if not self._table.extend(elicitation_id, keep):
            return False

        def extend(db: sqlite3.Connection) -> bool:
            changed = db.execute(
                "UPDATE url_routes SET until = ? WHERE id = ?",
                (clock.now() + keep, elicitation_id),
            )
            return changed.rowcount > 0

        # No row: another process completed it, its id on the way here; taken on arrival.
        return await self._file.run(extend)

    async def drop(self, elicitation_id: str) -> None:
        """Forget the route, here and in the file."""
        if self._table.drop(elicitation_id):
            await self._file.run(
                lambda db: db.execute("DELETE FROM url_routes WHERE id = ?", (elicitation_id,))
            )

    async def complete(self, elicitation_id: str) -> bool:
        """Route the completion to the process that asked, at most once (see the module)."""
        me = self._owner

        def take(db: sqlite3.Connection) -> str | None:
            found = db.execute(
                "SELECT owner, until FROM url_routes WHERE id = ?", (elicitation_id,)
            ).fetchone()
            if found is None:
                return None
            db.execute("DELETE FROM url_routes WHERE id = ?", (elicitation_id,))
            owner, until = str(found[0]), float(found[1])
            if until < clock.now():
                return None  # expired: nobody is told
            if owner != me:  # queued even if it looks gone: another pid namespace, say
                db.execute(
                    "INSERT INTO url_done (owner, id, until) VALUES (?, ?, ?)",
                    (owner, elicitation_id, until),
                )
            return owner

        owner = await self._file.run(take)
        if owner == me:
            return await self._deliver(elicitation_id)
        return owner is not None and _running(owner)

    async def aclose(self) -> None:
        """Stop this process's poller, drop its routes (here and in the file), and close."""
        poller, self._poller = self._poller, None
        if poller is not None:
            poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poller
        self._table = RouteTable(self._table.max_routes, self._table.max_per_session)
        owner = self._owner
        # Best effort, as for a session's end: a process that dies instead leaves its rows,
        # which `complete` tells apart by the owner's process id, and which expire.
        with contextlib.suppress(sqlite3.Error):
            await self._file.run(
                lambda db: db.execute("DELETE FROM url_routes WHERE owner = ?", (owner,))
            )
        self._file.close()

    async def _session_ended(self, session: AskingSession) -> None:
        ids = self._table.drop_session(session)
        if not ids:
            return
        # Best effort: were the file unusable now, the rows still expire with their routes,
        # and a completion that finds one is queued for a route no longer held: not sent.
        with contextlib.suppress(sqlite3.Error):
            await self._file.run(
                lambda db: db.executemany(
                    "DELETE FROM url_routes WHERE id = ?", [(gone,) for gone in ids]
                )
            )

    def _listen(self) -> None:
        """Start this process's poller once (again after it stopped for want of routes)."""
        if self._poller is not None and not self._poller.done():
            return
        # The poller outlives the tool call that started it: run it in an empty context,
        # not holding the call's context variables.
        self._poller = contextvars.Context().run(asyncio.create_task, self._poll())

    async def _poll(self) -> None:
        """Deliver the completions other processes queued here, while routes are held."""
        while len(self._table):
            await anyio.sleep(self._notice)
            try:
                arrived = await self._file.run(functools.partial(_arrived, self._owner))
            except sqlite3.Error:
                continue  # a busy or replaced file: look again at the next turn
            for elicitation_id in arrived:
                await self._deliver(elicitation_id)


def _arrived(owner: str, db: sqlite3.Connection) -> list[str]:
    """Take the ids other processes queued for ``owner``, oldest first."""
    rows = db.execute(
        "SELECT seq, id FROM url_done WHERE owner = ? ORDER BY seq", (owner,)
    ).fetchall()
    if rows:
        db.execute("DELETE FROM url_done WHERE owner = ? AND seq <= ?", (owner, rows[-1][0]))
    return [str(row[1]) for row in rows]


def _running(owner: str) -> bool:
    """Whether the process ``owner`` names still runs (on this boot of the machine)."""
    boot, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if boot != BOOT or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True
