"""The record backend: one small interface every kind of shared record is kept through.

A *record* is a text value under a key, with what several processes need to share it
safely: a version that changes with every write (compare-and-set), a lease judged by the
backend's own clock (who runs it, and whether they are still alive), an expiry, a caller it
counts against, and whether it is *open* (unfinished work: counted against its caller and
never evicted). What a record means (a task's lifecycle, say) is written once, above this
interface, by the kind that keeps it (`elicitkit._replay.tasks.RecordTaskStore`); each
backend only keeps records:

* `MemoryRecords` (here): one process, on the injected clock (`elicitkit._clock`);
* ``SqliteRecords`` (`elicitkit._replay.sqlite_records`): every process on one machine, in
  one file; leases on the time since boot, which every process shares;
* ``RedisRecords`` (`elicitkit._replay.redis_records`): every process on every machine;
  leases and expiry on Redis's clock.

The contract, which ``tests/test_records_contract.py`` holds every backend to:

* `Records.create` stores a record only if neither its key nor its alias names one (a
  dialogue has one task): otherwise it returns the one there, unchanged.
* `Records.update` writes only over the version it read (compare-and-set): ``None`` when
  another write landed first (or the record is gone), so the caller reads again and redoes
  its edit on the fresh value. Every successful update wakes `Records.wait`.
* A lease, granted by `create` or `update` (``lease=``), is *held* until its seconds pass on
  the backend's clock; `Records.renew` extends a held lease and never revives a lapsed one,
  so a lapsed lease stays lapsed until an update (which changes the version) grants a new
  one: a reader that judged it lapsed and writes over the version it read cannot race a
  renewal.
* Bounds: at most ``max_entries`` records (memory and SQLite; Redis is bounded by its own
  ``maxmemory``) and ``max_per_caller`` open ones per caller. Past ``max_entries`` the
  oldest closed record is dropped to make room; when every one is open, `create` raises
  `Full` rather than drop unfinished work, and a caller at its limit gets `Full` with
  ``caller=True`` while the others go on.
* Expiry: a record is gone ``ttl`` seconds after its creation (memory and SQLite on the
  wall clock, Redis on its own); updates keep the expiry.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

import anyio

import elicitkit._clock as clock


@dataclass(frozen=True, slots=True)
class Entry:
    """One record as a backend read it.

    Attributes:
        value: The record's text (its kind's JSON).
        version: Changes with every write: what `Records.update` compares.
        held: Whether the record's lease was live when it was read, by the backend's clock.
        unfinished: Whether the record is open: unfinished work, counted against its
            caller and never dropped to make room.
    """

    value: str
    version: int
    held: bool
    unfinished: bool


class Full(Exception):
    """A backend refuses a new record: every one it holds is open, or the caller's are.

    The kind above says it in its own words (`elicitkit._replay.store.StoreFull`).

    Attributes:
        limit: The bound that was reached.
        caller: Whether it is the caller's own bound (``max_per_caller``).
    """

    def __init__(self, limit: int, *, caller: bool) -> None:
        """A refusal at ``limit``, the caller's own bound if ``caller``."""
        super().__init__(f"{'caller ' if caller else ''}limit {limit} reached")
        self.limit = limit
        self.caller = caller


class Records(Protocol):
    """The records of one kind in one backend (see the module's contract).

    Every method is atomic for one key, and ends, returning or raising, within a bounded
    time of its own (`wait`: ``seconds`` at most; Redis calls their ``timeout``).
    """

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
        """Store a new record, unless ``key`` or ``alias`` names one already.

        Args:
            key: The record's key.
            value: Its text.
            caller: Whose count it is in while open (``""``: every anonymous caller).
            unfinished: Whether it is open (unfinished work).
            ttl: Seconds it lives from now (``None``: until dropped to make room).
            lease: Seconds of a first lease, if any.
            alias: A second unique name that finds the same record (`create` only).

        Returns:
            ``None`` when stored; else the record ``alias`` (or ``key``) already names.

        Raises:
            Full: The backend, or this caller, holds as many open records as it may.
        """
        ...

    async def read(self, key: str) -> Entry | None:
        """The record, or ``None`` if there is none (never created, dropped, or expired)."""
        ...

    async def update(
        self, key: str, version: int, value: str, *, unfinished: bool, lease: float | None = None
    ) -> Entry | None:
        """Write ``value`` over ``version``; the new entry, or ``None`` if that is not current.

        ``unfinished`` is whether it stays open (a closed record no longer counts against its
        caller); ``lease`` grants a fresh lease of that many seconds, else the lease is
        kept as it is. Wakes every `wait` on the key.
        """
        ...

    async def renew(self, key: str, seconds: float) -> Entry | None:
        """Extend the record's lease to ``seconds`` from now if it is held.

        Returns the entry (``held`` false: it had lapsed, and stays so), or ``None``.
        """
        ...

    async def wait(self, key: str, version: int, seconds: float) -> None:
        """Return once the record is no longer at ``version`` (or gone), or after ``seconds``."""
        ...


@dataclass(slots=True)
class _Row:
    value: str
    version: int
    unfinished: bool
    caller: str
    lease_until: float
    expires: float | None
    alias: str | None


class MemoryRecords:
    """`Records` in this process's memory, on the injected clock: for one process.

    Leases on `elicitkit._clock.machine`, expiry on `elicitkit._clock.now`, as the SQLite
    backend's, so a test's fake clock moves both.
    """

    def __init__(self, *, max_entries: int, max_per_caller: int) -> None:
        """Hold at most ``max_entries`` records, ``max_per_caller`` open ones per caller."""
        self._max = max_entries
        self._max_per_caller = max_per_caller
        # In creation order: the front is the oldest, which expires first for one kind.
        self._rows: OrderedDict[str, _Row] = OrderedDict()
        self._aliases: dict[str, str] = {}
        self._by_caller: dict[str, set[str]] = {}
        self._changed: dict[str, anyio.Event] = {}
        self._version = 0

    def __len__(self) -> int:
        """How many records are held (expired ones included until swept)."""
        return len(self._rows)

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
        """See `Records.create`."""
        self._sweep()
        for name in (None if alias is None else self._aliases.get(alias), key):
            found = None if name is None else self._live(name)
            if found is not None:
                return self._entry(found)
        own = self._by_caller.get(caller, set())
        if unfinished and len(own) >= self._max_per_caller:
            raise Full(self._max_per_caller, caller=True)
        self._make_room()
        self._version += 1
        self._rows[key] = _Row(
            value=value,
            version=self._version,
            unfinished=unfinished,
            caller=caller,
            lease_until=-1.0 if lease is None else clock.machine() + lease,
            expires=None if ttl is None else clock.now() + ttl,
            alias=alias,
        )
        if alias is not None:
            self._aliases[alias] = key
        if unfinished:
            self._by_caller.setdefault(caller, own).add(key)
        return None

    async def read(self, key: str) -> Entry | None:
        """See `Records.read`."""
        row = self._live(key)
        return None if row is None else self._entry(row)

    async def update(
        self, key: str, version: int, value: str, *, unfinished: bool, lease: float | None = None
    ) -> Entry | None:
        """See `Records.update`."""
        row = self._live(key)
        if row is None or row.version != version:
            return None
        self._version += 1
        row.value, row.version = value, self._version
        if row.unfinished and not unfinished:
            self._uncount(key, row)
        row.unfinished = row.unfinished and unfinished  # a closed record does not open again
        if lease is not None:
            row.lease_until = clock.machine() + lease
        self._wake(key)
        return self._entry(row)

    async def renew(self, key: str, seconds: float) -> Entry | None:
        """See `Records.renew`."""
        row = self._live(key)
        if row is None:
            return None
        if row.lease_until >= clock.machine():
            row.lease_until = clock.machine() + seconds
        return self._entry(row)

    async def wait(self, key: str, version: int, seconds: float) -> None:
        """See `Records.wait`."""
        row = self._live(key)
        if row is None or row.version != version:
            return
        event = self._changed.get(key)
        if event is None:
            event = self._changed[key] = anyio.Event()
        with clock.move_on_after(seconds):
            await event.wait()

    def _entry(self, row: _Row) -> Entry:
        return Entry(row.value, row.version, row.lease_until >= clock.machine(), row.unfinished)

    def _live(self, key: str) -> _Row | None:
        row = self._rows.get(key)
        if row is not None and row.expires is not None and row.expires <= clock.now():
            self._forget(key)
            return None
        return row

    def _sweep(self) -> None:
        # A scan is linear in the store, so it runs only when the front record (the
        # oldest) has expired; a record read after its expiry is dropped then (`_live`).
        if not self._rows:
            return
        front = next(iter(self._rows.values()))
        now = clock.now()
        if front.expires is None or front.expires > now:
            return
        for key in [
            k for k, row in self._rows.items() if row.expires is not None and row.expires <= now
        ]:
            self._forget(key)

    def _make_room(self) -> None:
        if len(self._rows) < self._max:
            return
        # Linear, but only when full: the oldest closed record goes first.
        closed = next((key for key, row in self._rows.items() if not row.unfinished), None)
        if closed is None:
            raise Full(self._max, caller=False)
        self._forget(closed)

    def _forget(self, key: str) -> None:
        row = self._rows.pop(key, None)
        if row is None:
            return
        if row.unfinished:
            self._uncount(key, row)
        if row.alias is not None and self._aliases.get(row.alias) == key:
            del self._aliases[row.alias]
        self._wake(key)

    def _uncount(self, key: str, row: _Row) -> None:
        own = self._by_caller.get(row.caller)
        if own is not None:
            own.discard(key)
            if not own:
                del self._by_caller[row.caller]

    def _wake(self, key: str) -> None:
        event = self._changed.pop(key, None)
        if event is not None:
            event.set()
