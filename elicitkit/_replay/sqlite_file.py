"""One SQLite file that several processes on one machine share, and how to run on it.

`SqliteFile` holds this process's connection to it (reopened when the file was deleted or
replaced under the process: its inode changed), makes the schema every elicitkit record
kind uses, and runs each operation as one ``BEGIN IMMEDIATE`` transaction: the write lock
is taken before anything is read, so two processes that change one record at once are
serialised and the second sees the first's write.

**Where it runs.** An operation takes about 100 µs, less than handing it to a worker thread
and back (250 to 500 µs measured on a 2-core VM, `benchmarks/bench_redis.py`), so it runs
on the event loop when the write lock is free at once. When another process holds it, the
operation goes to a worker thread and waits there (up to ``busy_timeout``), so a busy file
never stalls the loop.

**Durability.** WAL mode. A commit survives the process that made it being killed. With
``synchronous=NORMAL`` a power cut or a kernel crash may lose the last commits, so the
stores stamp what they must not trust after a reboot with the machine's boot id
(`elicitkit._clock.BOOT`, with the clock their leases are read on: `MACHINE_STAMP`).
Where no boot id can be read, every commit is synced to disk first (``synchronous=FULL``).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio.to_thread

from elicitkit._clock import BOOT

T = TypeVar("T")

# Tables are only ever added (each IF NOT EXISTS, made by every connection): a file of an
# earlier version gains them, and an earlier version ignores them. A change to an existing
# table's meaning takes a new version.
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    deadline REAL NOT NULL,
    boot TEXT NOT NULL,
    expires REAL NOT NULL,
    size INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entries_by_expiry ON entries (expires);
CREATE TABLE IF NOT EXISTS totals (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    entries INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
INSERT OR IGNORE INTO totals VALUES (1, 0, 0);
CREATE TRIGGER IF NOT EXISTS entry_added AFTER INSERT ON entries BEGIN
    UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.size;
END;
CREATE TRIGGER IF NOT EXISTS entry_removed AFTER DELETE ON entries BEGIN
    UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.size;
END;
CREATE TRIGGER IF NOT EXISTS entry_changed AFTER UPDATE OF size ON entries BEGIN
    UPDATE totals SET bytes = bytes - OLD.size + NEW.size;
END;
CREATE TABLE IF NOT EXISTS entry_callers (
    id TEXT PRIMARY KEY,
    caller TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entry_callers_by_caller ON entry_callers (caller);
-- Each open dialogue's caller (SqliteStore's max_per_caller), dropped when its entry is
-- recorded, interrupted or deleted. A row costs its two strings twice (the row and the
-- index) and about 20 bytes of cells, counted in totals so that max_bytes bounds the file.
CREATE TRIGGER IF NOT EXISTS entry_caller_added AFTER INSERT ON entry_callers BEGIN
    UPDATE totals SET bytes = bytes + 2 * (length(NEW.id) + length(NEW.caller)) + 20;
END;
CREATE TRIGGER IF NOT EXISTS entry_caller_removed AFTER DELETE ON entry_callers BEGIN
    UPDATE totals SET bytes = bytes - 2 * (length(OLD.id) + length(OLD.caller)) - 20;
END;
CREATE TRIGGER IF NOT EXISTS entry_gone AFTER DELETE ON entries BEGIN
    DELETE FROM entry_callers WHERE id = OLD.id;
END;
CREATE TRIGGER IF NOT EXISTS entry_ended AFTER UPDATE OF kind ON entries
WHEN NEW.kind IN ('record', 'interrupted') BEGIN
    DELETE FROM entry_callers WHERE id = NEW.id;
END;
-- Every kind of record of elicitkit._replay.records (tasks, ...): see sqlite_records.
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    alias TEXT,
    value TEXT NOT NULL,
    version INTEGER NOT NULL,
    open INTEGER NOT NULL,
    caller TEXT NOT NULL,
    lease_until REAL NOT NULL,
    boot TEXT NOT NULL,
    expires REAL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS records_by_alias ON records (kind, alias)
WHERE alias IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_by_version ON records (kind, version);
CREATE INDEX IF NOT EXISTS records_by_expiry ON records (kind, expires)
WHERE expires IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_open_by_caller ON records (kind, caller) WHERE open = 1;
CREATE INDEX IF NOT EXISTS records_closed ON records (kind, version) WHERE open = 0;
CREATE TABLE IF NOT EXISTS record_counts (
    kind TEXT PRIMARY KEY,
    entries INTEGER NOT NULL,
    version INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS record_added AFTER INSERT ON records BEGIN
    UPDATE record_counts SET entries = entries + 1 WHERE kind = NEW.kind;
END;
CREATE TRIGGER IF NOT EXISTS record_removed AFTER DELETE ON records BEGIN
    UPDATE record_counts SET entries = entries - 1 WHERE kind = OLD.kind;
END;
CREATE TABLE IF NOT EXISTS url_routes (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS url_routes_by_until ON url_routes (until);
CREATE TABLE IF NOT EXISTS url_done (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    owner TEXT NOT NULL,
    id TEXT NOT NULL,
    until REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS url_done_by_owner ON url_done (owner, seq);
CREATE INDEX IF NOT EXISTS url_done_by_until ON url_done (until);
"""


class SqliteFile:
    """This process's connection to one shared SQLite file, and its transactions."""

    def __init__(
        self, path: Path, *, busy_timeout: float, synchronous: Literal["FULL", "NORMAL"] | None
    ) -> None:
        """Open ``path`` on first use (made with its folder if missing).

        Args:
            path: The database file.
            busy_timeout: Seconds an operation waits for another process's write lock.
            synchronous: SQLite's ``synchronous``; default ``"NORMAL"`` where `BOOT` can be
                read, else ``"FULL"``.
        """
        if synchronous not in (None, "FULL", "NORMAL"):
            raise ValueError(
                f'An SQLite store takes synchronous="FULL" or "NORMAL", not {synchronous!r}.'
            )
        self.path = path
        self.busy = max(0.0, busy_timeout)
        self.synchronous = synchronous or ("NORMAL" if BOOT else "FULL")
        # One connection, used by one thread at a time: sqlite3 objects are not safe to
        # share between threads at once, and SQLite serialises writers anyway.
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._inode: tuple[int, int] | None = None

    async def read(self, query: str, parameters: tuple[object, ...] = ()) -> list[Any]:
        """The rows of ``query``, outside a transaction (a WAL reader waits for no writer)."""
        if self._connection is None:
            await anyio.to_thread.run_sync(self._connect)
        db = self._connect()
        if self._lock.acquire(blocking=False):  # else a waiting operation holds it
            try:
                return db.execute(query, parameters).fetchall()
            finally:
                self._lock.release()

        def read() -> list[Any]:
            with self._lock:
                return db.execute(query, parameters).fetchall()

        return await anyio.to_thread.run_sync(read)

    def close(self) -> None:
        """Close this process's connection (the next operation opens it again)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    async def run(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``operation`` in one transaction (rolled back if it raises); its result."""
        if self._connection is None:  # the first: its schema may wait for another process's
            await anyio.to_thread.run_sync(self._connect)
        db = self._connect()
        # On the loop when the connection and the file's write lock are free at once;
        # else in a worker thread, which may wait for them.
        if self._lock.acquire(blocking=False):
            try:
                if _begin(db):
                    return _finish(db, operation)
            finally:
                self._lock.release()
        return await anyio.to_thread.run_sync(self._waiting, operation)

    def _waiting(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        db = self._connect()
        deadline = time.monotonic() + self.busy  # real seconds: it bounds real I/O
        pause = 0.001
        with self._lock:
            while not _begin(db):
                if time.monotonic() >= deadline:
                    raise sqlite3.OperationalError(
                        f"database is locked: another process held {self.path}'s write lock "
                        f"for {self.busy:g} seconds"
                    )
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
            return _finish(db, operation)

    def _connect(self) -> sqlite3.Connection:
        with self._lock:
            inode = _inode(self.path)
            if self._connection is not None and inode == self._inode:
                return self._connection
            if self._connection is not None:
                # The file was deleted or replaced under this process: the records in the
                # old one are gone for every other process, so this one lets go of them too.
                self._connection.close()
                self._connection = None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One first connection at a time in this process: none may take a lock on the
            # file between _create_private's open and close (see _CREATING).
            with _CREATING:
                _create_private(self.path)
                # isolation_level=None: transactions are ours (BEGIN IMMEDIATE), not
                # sqlite3's. timeout: the first connection's schema may wait for another
                # process's.
                db = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, timeout=self.busy
                )
                try:
                    _prepare(db, self.path, self.synchronous)
                except BaseException:
                    db.close()
                    raise
            self._connection = db
            self._inode = _inode(self.path)
            return db


# A descriptor of the database file opened and closed outside SQLite drops every POSIX lock
# this process holds on the file (they belong to the process, and any close of the file
# releases them), among them the shared lock by which this process's other connections (the
# records', the tasks', the URL routes') say the file is in use. Another process whose last
# connection closed then took itself for the last user: it checkpointed and deleted the
# -wal and -shm under them, and the next write here read "database disk image is
# malformed" (tests/test_sqlite_file.py). So the file is only ever opened outside SQLite to
# create it, exclusively, under this lock, which every first connection of the process takes.
_CREATING = threading.Lock()


def _create_private(path: Path) -> None:
    """Create ``path`` empty and owner-only if it does not exist; never open an existing one.

    Owner-only from the start (SQLite gives its -wal and -shm files the same mode): sealed or
    not, records are nobody else's to read. An existing file keeps its own mode.
    """
    if path.exists():
        return
    with contextlib.suppress(FileExistsError):  # another process made it first
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600))


def _prepare(db: sqlite3.Connection, path: Path, synchronous: str) -> None:
    db.execute("PRAGMA journal_mode = WAL")
    db.execute(f"PRAGMA synchronous = {synchronous}")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version not in (0, SCHEMA_VERSION):
        raise sqlite3.DatabaseError(
            f"{path} holds elicitkit records of schema {version}, which this version "
            f"(schema {SCHEMA_VERSION}) cannot read. Point the store at another file, or "
            "delete this one (its calls are then refused as forgotten)."
        )
    db.executescript(SCHEMA)  # idempotent, so processes that start at once agree
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    # From here on, a busy write lock is answered at once: `SqliteFile._waiting` waits.
    db.execute("PRAGMA busy_timeout = 0")


def _begin(db: sqlite3.Connection) -> bool:
    """Take the file's write lock: False if another process holds it right now."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        # SQLITE_BUSY's message (its error code is an attribute from Python 3.11 only).
        if str(error).startswith("database is locked"):
            return False
        raise
    return True


def _finish(db: sqlite3.Connection, operation: Callable[[sqlite3.Connection], T]) -> T:
    try:
        result = operation(db)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return result


def _inode(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino
