"""`SqliteRecords`: the record backend in one SQLite file, shared by every process on a machine.

One row a record, every kind in one table beside the dialogue entries of `SqliteStore`
(the same file by default, `elicitkit._replay.sqlite_file`)::

    records(kind, key, alias, value, version, open, caller, lease_until, boot, expires)
    record_counts(kind, entries, version)   kept by triggers and by each write

``version`` comes from the kind's counter in ``record_counts``, one more at every write and
never reused (a row deleted and made again does not get an old version back), so it is both
what compare-and-set compares and how a process sees another's changes: one poller per
process, while anything waits, asks every ``notice`` seconds (real seconds: it is I/O, not
the logic's time) for the rows of the kind past the version it last saw, one indexed query
however many records wait, and wakes their waiters. A write of this process wakes its own
waiters at once.

Leases are on the machine's clock (`elicitkit._clock.machine`, the time since boot, which
every process shares and a wall clock set by hours does not move), stamped with the boot
and clock they were read on (`elicitkit._clock.MACHINE_STAMP`): a lease written during
another boot, or by an earlier elicitkit on the wall clock, has lapsed. Expiry is on the
wall clock, which a reboot does not reset. Writes are one ``BEGIN IMMEDIATE`` transaction
each; reads are a WAL reader's, which waits for no writer.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any, Literal

import anyio

import elicitkit._clock as clock
from elicitkit._clock import MACHINE_STAMP as STAMP
from elicitkit._replay.records import Entry, Full
from elicitkit._replay.sqlite_file import SqliteFile


class SqliteRecords:
    """`elicitkit._replay.records.Records` of one kind, in an SQLite file."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        kind: str,
        *,
        max_entries: int,
        max_per_caller: int,
        notice: float = 0.05,
        busy_timeout: float = 2.0,
        synchronous: Literal["FULL", "NORMAL"] | None = None,
    ) -> None:
        """Keep the records of ``kind`` in the file at ``path``.

        Args:
            path: The database file; every process that shares the records passes it.
            kind: Which records these are (``"task"``): kinds share the file, not keys.
            max_entries: How many records of the kind the file holds at most.
            max_per_caller: How many open records of the kind one caller holds at most.
            notice: Seconds between two looks for another process's change (`wait`).
            busy_timeout: Seconds an operation waits for another process's write lock.
            synchronous: SQLite's ``synchronous`` (see `elicitkit._replay.sqlite_file`).
        """
        self.path = Path(path)
        self.kind = kind
        self._max = max_entries
        self._max_per_caller = max_per_caller
        self._notice = notice
        self._file = SqliteFile(self.path, busy_timeout=busy_timeout, synchronous=synchronous)
        self._changed: dict[str, anyio.Event] = {}
        self._poller: asyncio.Task[None] | None = None
        self._cursor = 0

    def __repr__(self) -> str:
        return f"SqliteRecords({str(self.path)!r}, {self.kind!r})"

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

        def create(db: sqlite3.Connection) -> Entry | None:
            now = clock.now()
            db.execute("DELETE FROM records WHERE kind = ? AND expires <= ?", (self.kind, now))
            if alias is not None:
                found = db.execute(
                    "SELECT value, version, open, lease_until, boot, expires FROM records "
                    "WHERE kind = ? AND alias = ?",
                    (self.kind, alias),
                ).fetchone()
                if found is not None:
                    return _entry(found)
            found = db.execute(
                "SELECT value, version, open, lease_until, boot, expires FROM records "
                "WHERE kind = ? AND key = ?",
                (self.kind, key),
            ).fetchone()
            if found is not None:
                return _entry(found)
            if unfinished:
                # Indexed on the open records of (kind, caller): linear in the limit.
                (held,) = db.execute(
                    "SELECT count(*) FROM records WHERE kind = ? AND caller = ? AND open = 1",
                    (self.kind, caller),
                ).fetchone()
                if held >= self._max_per_caller:
                    raise Full(self._max_per_caller, caller=True)
            self._make_room(db)
            db.execute(
                "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.kind,
                    key,
                    alias,
                    value,
                    _next_version(db, self.kind),
                    int(unfinished),
                    caller,
                    -1.0 if lease is None else clock.machine() + lease,
                    STAMP,
                    None if ttl is None else now + ttl,
                ),
            )
            return None

        return await self._file.run(create)

    async def read(self, key: str) -> Entry | None:
        """See `elicitkit._replay.records.Records.read`."""
        rows = await self._file.read(
            "SELECT value, version, open, lease_until, boot, expires FROM records "
            "WHERE kind = ? AND key = ? "
            "AND (expires IS NULL OR expires > ?)",
            (self.kind, key, clock.now()),
        )
        return _entry(rows[0]) if rows else None

    async def update(
        self, key: str, version: int, value: str, *, unfinished: bool, lease: float | None = None
    ) -> Entry | None:
        """See `elicitkit._replay.records.Records.update`."""

        def update(db: sqlite3.Connection) -> Entry | None:
            found = db.execute(
                "UPDATE records SET value = ?, version = ?, open = open AND ?, "
                "lease_until = coalesce(?, lease_until), "
                "boot = CASE WHEN ? IS NULL THEN boot ELSE ? END "
                "WHERE kind = ? AND key = ? AND version = ? "
                "AND (expires IS NULL OR expires > ?) "
                "RETURNING value, version, open, lease_until, boot, expires",
                (
                    value,
                    _next_version(db, self.kind),
                    int(unfinished),
                    None if lease is None else clock.machine() + lease,
                    lease,
                    STAMP,
                    self.kind,
                    key,
                    version,
                    clock.now(),
                ),
            ).fetchone()
            return None if found is None else _entry(found)

        entry = await self._file.run(update)
        if entry is not None:
            self._wake(key)
        return entry

    async def renew(self, key: str, seconds: float) -> Entry | None:
        """See `elicitkit._replay.records.Records.renew`."""

        def renew(db: sqlite3.Connection) -> Entry | None:
            machine = clock.machine()
            db.execute(
                "UPDATE records SET lease_until = ? "
                "WHERE kind = ? AND key = ? AND lease_until >= ? AND boot = ?",
                (machine + seconds, self.kind, key, machine, STAMP),
            )
            found = db.execute(
                "SELECT value, version, open, lease_until, boot, expires FROM records "
                "WHERE kind = ? AND key = ? "
                "AND (expires IS NULL OR expires > ?)",
                (self.kind, key, clock.now()),
            ).fetchone()
            return None if found is None else _entry(found)

        return await self._file.run(renew)

    async def wait(self, key: str, version: int, seconds: float) -> None:
        """See `elicitkit._replay.records.Records.wait`."""
        event = self._changed.get(key)
        if event is None:
            event = self._changed[key] = anyio.Event()
        # Registered first, then read: a change after the read is the poller's to see.
        ((now_version, top),) = await self._file.read(
            "SELECT (SELECT version FROM records WHERE kind = ? AND key = ?), "
            "(SELECT version FROM record_counts WHERE kind = ?)",
            (self.kind, key, self.kind),
        )
        if now_version != version:
            self._wake(key)
            return
        if self._poller is None or self._poller.done():
            self._cursor = max(self._cursor, int(top or 0))
            self._poller = asyncio.get_running_loop().create_task(self._poll())
        with clock.move_on_after(seconds):
            await event.wait()

    def close(self) -> None:
        """Close this process's connection (the next operation opens it again)."""
        self._file.close()

    async def _poll(self) -> None:
        """Wake the waiters of rows another process changed, while anything waits."""
        while self._changed:
            await anyio.sleep(self._notice)
            try:
                changed = await self._file.read(
                    "SELECT key, version FROM records WHERE kind = ? AND version > ?",
                    (self.kind, self._cursor),
                )
            except sqlite3.Error:
                continue  # a busy or replaced file: the waits end by their own timeout
            for key, version in changed:
                self._cursor = max(self._cursor, int(version))
                self._wake(key)

    def _make_room(self, db: sqlite3.Connection) -> None:
        # Counted by triggers: a count(*) would read the kind's whole index at each create.
        found = db.execute(
            "SELECT entries FROM record_counts WHERE kind = ?", (self.kind,)
        ).fetchone()
        if found is None or found[0] < self._max:
            return
        closed = db.execute(
            "SELECT key FROM records WHERE kind = ? AND open = 0 ORDER BY version LIMIT 1",
            (self.kind,),
        ).fetchone()
        if closed is None:
            raise Full(self._max, caller=False)
        db.execute("DELETE FROM records WHERE kind = ? AND key = ?", (self.kind, closed[0]))

    def _wake(self, key: str) -> None:
        event = self._changed.pop(key, None)
        if event is not None:
            event.set()


def _next_version(db: sqlite3.Connection, kind: str) -> int:
    db.execute("INSERT OR IGNORE INTO record_counts VALUES (?, 0, 0)", (kind,))
    (version,) = db.execute(
        "UPDATE record_counts SET version = version + 1 WHERE kind = ? RETURNING version", (kind,)
    ).fetchone()
    return int(version)


def _entry(row: Any) -> Entry:
    value, version, open_, lease_until, boot, _ = row
    held = boot == STAMP and lease_until >= clock.machine()
    return Entry(value, int(version), held, bool(open_))
