"""`SqliteStore`: dialogue outcomes in an SQLite file, shared by every process on one machine.

The default store: the standard library's ``sqlite3``, nothing to install or run. Several
processes of one server on one machine (``uvicorn --workers 4``, a client that starts a
new stdio server for every call, a server restarted between two rounds) open the same file
and see the same records; each operation is one transaction of the file
(`elicitkit._replay.sqlite_file`, which also says where it runs and how durable it is).
For several machines, use `elicitkit.stores.RedisStore`.

One table, one row a dialogue (or a durable step, under ``dialogue/key``)::

    entries(id, kind, value, deadline, boot, expires, size)  WITHOUT ROWID, by expires
    entry_callers(id, caller)    the open dialogues of each caller (triggers drop ended ones)

``kind`` is open, lease, safe lease, record or interrupted, as in `elicitkit._replay.store`;
``value`` holds a lease's token or a record's outcome.

**Time.** Leases are judged on the machine's clock (``elicitkit._clock.machine``: the time
since boot, which every process on the machine shares and nobody sets), so a wall clock set
back or forward by hours neither keeps a dead round's lease alive nor lapses a live one.
Expiry, which must outlive a reboot, is judged on the wall clock (``elicitkit._clock.now``);
a test replaces both (`elicitkit.testing.FakeClock`).

**Reboots.** A power cut may lose the last commits, so open and leased entries carry the
machine's boot id, as `RedisStore`'s carry Redis's run id: after a reboot, a call that was
open or running is refused (forgotten, or interrupted), never run again on the strength of
an entry whose later write may be what the crash lost; recorded calls still replay. The
stamp also names the clock of the lease (`elicitkit._clock.MACHINE_STAMP`): an entry that an
earlier elicitkit wrote with a wall-clock deadline is judged as one of another boot.

**Bounded, never evicting.** At most ``max_entries`` entries and ``max_bytes`` bytes (the
id and value sizes plus `ROW_OVERHEAD_BYTES` each), counted by triggers in one row of
``totals``. A store that is full refuses *new* dialogues (`StoreFull`); it never drops an
unfinished one to make room, and updates of existing entries (a lease renewed, an outcome
recorded) always go through, so the bytes may pass ``max_bytes`` by what the dialogues in
flight record (each record is capped by `AtMostOnce`). Expired entries are deleted as
operations pass (the index on ``expires`` makes that one probe when nothing has expired).
One caller (a principal; anonymous callers share one) holds at most ``max_per_caller`` open
dialogues, counted on ``entry_callers``'s index by caller when a dialogue opens (linear in
the caller's open dialogues, so at most in ``max_per_caller``): past that, that caller is
refused (`CallerFull`) and the others go on. A dialogue open or leased during another boot
stops counting when the caller is at the cap: it is refused as forgotten, never run again.

**Faults fail closed.** A file that is locked past ``busy_timeout``, corrupt or unreadable
makes the operation raise, and the round is refused (`elicitkit._replay.once.AtMostOnce`
says the store could not be reached). A file deleted or replaced under a running process is
noticed (its inode changed) and the new file opened: the dialogues recorded in the old one
are then unknown, so their later rounds are refused as forgotten, never run again.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Literal

import elicitkit._clock as clock
from elicitkit._clock import MACHINE_STAMP as STAMP
from elicitkit._replay.sqlite_file import SqliteFile
from elicitkit._replay.store import (
    DEFAULT_MAX_OPEN_PER_CALLER,
    LEASE,
    OPEN,
    RECORD,
    SAFE_LEASE,
    Claim,
    StoreFull,
    check_bounds,
    dialogues_full,
    judge_claim,
)

# What a row costs besides its id and value: the B-tree cell with its numbers, kind and boot
# id, and its entry in the expiry index; rounded up so that ``max_bytes`` bounds the file.
ROW_OVERHEAD_BYTES = 100
_Row = tuple[str, str, float, str]  # kind, value, deadline (on clock.machine), boot stamp


class SqliteStore:
    """An `elicitkit.stores.OutcomeStore` in one SQLite file, for every process on a machine."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_entries: int = 1_000_000,
        max_bytes: int = 1024 * 1024 * 1024,
        max_per_caller: int = DEFAULT_MAX_OPEN_PER_CALLER,
        busy_timeout: float = 2.0,
        synchronous: Literal["FULL", "NORMAL"] | None = None,
    ) -> None:
        """Keep dialogues in the file at ``path`` (created with its folder if missing).

        Args:
            path: The database file. Every process that serves the same clients on this
                machine passes the same path.
            max_entries: The most dialogues and steps held; past it, new ones are refused.
            max_bytes: The most bytes held (ids, values and `ROW_OVERHEAD_BYTES` each).
            max_per_caller: The most open dialogues of one caller (a principal; anonymous
                callers share one count); past it, that caller's new ones are refused.
            busy_timeout: Seconds an operation waits for another process's write lock
                before it fails (under `AtMostOnce`'s own 3-second timeout, so the
                failure is SQLite's, with its reason, and the thread is free again).
            synchronous: SQLite's ``synchronous`` setting. Default: ``"NORMAL"`` where the
                machine's boot id can be read (a reboot then ends the calls in progress,
                see the module's docs), else ``"FULL"``.

        Raises:
            ValueError: A bound is not a whole number of at least 1, or ``max_bytes`` is
                under 64 KiB.
        """
        check_bounds("SqliteStore", max_entries, max_bytes, max_per_caller)
        self.path = Path(path)
        self._max = max_entries
        self._max_bytes = max_bytes
        self._max_per_caller = max_per_caller
        self._file = SqliteFile(self.path, busy_timeout=busy_timeout, synchronous=synchronous)
        self._run = self._file.run

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"

    async def open(self, dialogue: str, *, keep: float, caller: str = "") -> None:
        """See `elicitkit.stores.OutcomeStore.open`."""
        await self._run(lambda db: self._open(db, dialogue, keep, caller))

    async def claim(
        self, dialogue: str, token: str, *, lease: float, keep: float, known: bool
    ) -> Claim:
        """See `elicitkit.stores.OutcomeStore.claim`."""
        return await self._run(
            lambda db: self._claim(db, dialogue, token, lease=lease, keep=keep, known=known)
        )

    async def renew(self, dialogue: str, token: str, *, lease: float, keep: float) -> bool:
        """See `elicitkit.stores.OutcomeStore.renew`."""
        return await self._run(
            lambda db: self._renew(db, dialogue, token, lease=lease, keep=keep, kind=LEASE)
        )

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """See `elicitkit.stores.OutcomeStore.record`."""
        await self._run(lambda db: self._record(db, dialogue, outcome, keep))

    async def release(self, dialogue: str, token: str, *, keep: float) -> None:
        """See `elicitkit.stores.OutcomeStore.release`."""

        def release(db: sqlite3.Connection) -> None:
            row = _row(db, dialogue)
            if row is not None and row[0] == LEASE and row[1] == token:
                self._put(db, dialogue, OPEN, "", keep=keep)

        await self._run(release)

    async def hold(
        self, dialogue: str, token: str, *, retry_safe: bool, lease: float, keep: float
    ) -> bool:
        """See `elicitkit.stores.OutcomeStore.hold`."""
        kind = SAFE_LEASE if retry_safe else LEASE
        return await self._run(
            lambda db: self._renew(
                db, dialogue, token, lease=lease, keep=keep, kind=kind, marked_too=True
            )
        )

    async def totals(self) -> tuple[int, int]:
        """Return ``(entries, bytes)`` as the store counts them against its bounds."""
        ((entries, size),) = await self._file.read("SELECT entries, bytes FROM totals")
        return int(entries), int(size)

    def close(self) -> None:
        """Close this process's connection (the next operation opens it again)."""
        self._file.close()

    # Each of these runs in one transaction, under the lock.

    def _open(self, db: sqlite3.Connection, dialogue: str, keep: float, caller: str) -> None:
        db.execute("DELETE FROM entries WHERE expires <= ?", (clock.now(),))
        new = _row(db, dialogue) is None
        if new:
            self._refuse_when_caller_full(db, caller)
            self._refuse_when_full(db)
        self._put(db, dialogue, OPEN, "", keep=keep)
        if new:
            db.execute("INSERT INTO entry_callers VALUES (?, ?)", (dialogue, caller))

    def _record(self, db: sqlite3.Connection, dialogue: str, outcome: str, keep: float) -> None:
        if _row(db, dialogue) is None:  # a record of an unknown call is a new entry too
            self._refuse_when_full(db)
        self._put(db, dialogue, RECORD, outcome, keep=keep)

    def _claim(
        self,
        db: sqlite3.Connection,
        dialogue: str,
        token: str,
        *,
        lease: float,
        keep: float,
        known: bool,
    ) -> Claim:
        db.execute("DELETE FROM entries WHERE expires <= ?", (clock.now(),))
        row = _row(db, dialogue)
        # An entry of another boot is not trusted, as RedisStore's of another Redis run.
        entry, trusted = (None, True) if row is None else (row[:3], row[3] == STAMP)
        now = clock.machine()
        claim, write = judge_claim(entry, now=now, known=known, trusted=trusted)
        if write == LEASE:
            if row is None:
                self._refuse_when_full(db)
            self._put(db, dialogue, LEASE, token, deadline=now + lease, keep=keep)
        elif write is not None:
            self._put(db, dialogue, write, "", keep=keep)
        return claim

    def _renew(
        self,
        db: sqlite3.Connection,
        dialogue: str,
        token: str,
        *,
        lease: float,
        keep: float,
        kind: str,
        marked_too: bool = False,
    ) -> bool:
        row = _row(db, dialogue)
        held = (LEASE, SAFE_LEASE) if marked_too else (LEASE,)
        if row is None or row[0] not in held or row[1] != token or row[3] != STAMP:
            return False
        self._put(db, dialogue, kind, token, deadline=clock.machine() + lease, keep=keep)
        return True

    def _put(
        self,
        db: sqlite3.Connection,
        dialogue: str,
        kind: str,
        value: str,
        *,
        deadline: float = 0.0,
        keep: float,
    ) -> None:
        size = len(dialogue.encode()) + len(value.encode()) + ROW_OVERHEAD_BYTES
        db.execute(
            "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "kind = excluded.kind, value = excluded.value, deadline = excluded.deadline, "
            "boot = excluded.boot, expires = excluded.expires, size = excluded.size",
            (dialogue, kind, value, deadline, STAMP, clock.now() + keep, size),
        )

    def _refuse_when_caller_full(self, db: sqlite3.Connection, caller: str) -> None:
        # The index alone counts; only at the cap are the entries read, for their boot.
        query = "SELECT count(*) FROM entry_callers WHERE caller = ?"
        (held,) = db.execute(query, (caller,)).fetchone()
        if held < self._max_per_caller:
            return
        (held,) = db.execute(
            "SELECT count(*) FROM entry_callers c JOIN entries e ON e.id = c.id "
            "WHERE c.caller = ? AND e.boot = ?",
            (caller, STAMP),
        ).fetchone()
        if held >= self._max_per_caller:
            raise dialogues_full(f"SQLite store at {self.path}", self._max_per_caller)

    def _refuse_when_full(self, db: sqlite3.Connection) -> None:
        entries, size = db.execute("SELECT entries, bytes FROM totals").fetchone()
        if entries >= self._max or size >= self._max_bytes:
            raise StoreFull(
                f"The SQLite store at {self.path} is full ({entries} entries, {size} bytes; "
                f"at most {self._max} and {self._max_bytes}), so it takes no new call until "
                "older ones expire. Raise max_entries or max_bytes."
            )


def _row(db: sqlite3.Connection, dialogue: str) -> _Row | None:
    found = db.execute(
        "SELECT kind, value, deadline, boot FROM entries WHERE id = ?", (dialogue,)
    ).fetchone()
    return None if found is None else (found[0], found[1], found[2], found[3])
