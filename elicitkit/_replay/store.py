"""Where a dialogue's outcome is recorded, so a replayed final round cannot run the body again.

On MCP 2026-07-28 the client may send a dialogue's final round more than once (a network
retry, a buggy client, an attacker replaying a sealed ``requestState`` within its
lifetime). The integration claims the dialogue before a round runs and records the round's
outcome when it completes the call; a later round of the same dialogue gets the record back.

**Fail closed when memory is lost.** A store that forgets (a restart, an eviction, a
failover to a replica that missed a write, two processes that each keep their own) must
not make a completed dialogue look new. So a dialogue has a store entry from the first
round that asks until the entry expires (a release leaves it "open", it is never deleted),
and the sealed state says that the store has seen the dialogue (``known``). A claim of a
known dialogue that finds no entry answers ``"forgotten"``, and nothing runs.

An entry is one of:

* open: the dialogue asked a question and no round of it is running;
* leased: a round holds it until a deadline, renewed while the round runs; a lease may
  say that its round is inside a durable step marked ``retry_safe`` right now (`hold`);
* recorded: the dialogue completed, with its outcome;
* interrupted: a lease lapsed without a record (its holder died, or could not record),
  so what the round did is unknown and the dialogue never runs again. A lease that lapses
  while it says its round is inside a ``retry_safe`` step does not interrupt the dialogue:
  everything that round did before the step is replayable, and the step may run twice,
  so the next claim takes the lease and the round runs again.

Every entry lives ``keep`` seconds from its last write. This module holds the protocol and
the in-memory store; ``elicitkit._replay.sqlite_store`` and ``redis_store`` hold the others.

**One caller cannot fill a store.** Each store counts, per caller (a principal; every
anonymous caller shares one count), the *open* dialogues: opened and not yet recorded,
interrupted or expired. A caller at ``max_per_caller`` is refused a new dialogue
(`CallerFull`) while every other caller goes on. A durable step's entry is not counted:
only a round that holds its dialogue's lease makes one, so a caller's steps come from its
open dialogues alone, as many a dialogue as the tool's code has (not the caller's choice);
the count of open dialogues bounds them too, and a step's claim or record costs nothing.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal, Protocol

import elicitkit._clock as clock
from elicitkit._replay.limits import check_counts
from elicitkit._replay.ticket import principal_digest


@dataclass(frozen=True)
class Claim:
    """A store's answer to "may this round of the dialogue run?".

    Attributes:
        status: ``"claimed"``: the caller holds the dialogue's lease and runs the round;
            ``"recorded"``: the dialogue is complete and ``outcome`` is its record;
            ``"busy"``: another round of the dialogue holds a live lease right now;
            ``"interrupted"``: a round held the lease and neither recorded nor released
            it, so the dialogue must not run again;
            ``"forgotten"``: the dialogue is known (the state says the store saw it) but
            the store has no trace of it, or only one it cannot trust (written before the
            store restarted or failed over), so the dialogue must not run again.
        outcome: The recorded outcome, only with ``"recorded"``.
    """

    status: Literal["claimed", "recorded", "busy", "interrupted", "forgotten"]
    outcome: str | None = None


class StoreFull(Exception):
    """A bounded store that is full refuses a new dialogue, rather than drop an older one.

    Its message says which bounds and how to raise them; the round that opened or claimed
    the new dialogue is refused with it. Updates of existing entries never raise it.
    """


class CallerFull(StoreFull):
    """A store refuses one caller's new task or dialogue: that caller holds as many as one may.

    Each task store counts, per principal (anonymous callers share one count), the tasks
    still running or waiting, and each outcome store the dialogues still open; past its
    ``max_per_caller``, that caller's next ``go_async()`` or new dialogue is refused, and
    every other caller's goes on. So one client cannot fill the store.
    """


DEFAULT_MAX_OPEN_PER_CALLER = 1_000
"""How many open dialogues one caller may hold in an outcome store, by default.

A person answers one form at a time; 1,000 leaves room for an agent's parallel calls, and
for every anonymous caller of a server without authentication, who share the one count.
"""


def caller_key(principal: str | None) -> str:
    """Whose count a dialogue is in: a digest of ``principal``, ``""`` for anonymous callers.

    A digest, as the task stores keep it: the identity itself is kept nowhere.
    """
    return principal_digest(principal) or ""


def dialogues_full(store: str, limit: int) -> CallerFull:
    """The refusal of a caller's new dialogue past ``limit`` (``store`` names the store)."""
    return CallerFull(
        f"The {store} holds {limit} open dialogues of this caller (a principal; every "
        "anonymous caller shares one count), its max_per_caller, so it opens no new dialogue "
        "of theirs until one completes or expires; other callers' calls go on. Raise "
        "max_per_caller."
    )


class OutcomeStore(Protocol):
    """Records the outcome of each dialogue, shared by every server process.

    Every method is atomic for one dialogue id. Ids are unguessable random strings minted
    by elicitkit and sealed in ``requestState``; outcomes are opaque strings (JSON, sealed
    by `AtMostOnce` with the server's key before they reach the store). Expiry
    is measured on one clock, the store's own, never a worker's.
    """

    async def open(self, dialogue: str, *, keep: float, caller: str = "") -> None:
        """Create the entry of a dialogue whose first round asked, for ``keep`` seconds.

        Args:
            dialogue: The new dialogue's id.
            keep: Seconds the entry lives from now.
            caller: Whose count the dialogue is in until it is recorded, interrupted or
                expired (`caller_key` of the principal; ``""`` for anonymous callers).

        Raises:
            CallerFull: ``caller`` holds ``max_per_caller`` open dialogues already.
            StoreFull: The store is full.
        """
        ...

    async def claim(
        self, dialogue: str, token: str, *, lease: float, keep: float, known: bool
    ) -> Claim:
        """Return the record, or say why the round may not run, or take the lease.

        Args:
            dialogue: The dialogue's id.
            token: An id for this one round, so only its holder can renew or release it.
            lease: Seconds after which the lease lapses unless renewed (a crashed holder).
            keep: Seconds the entry lives from now.
            known: The state says this store created the dialogue's entry, so a missing
                entry means the store lost it (``"forgotten"``), not a new dialogue.
        """
        ...

    async def renew(self, dialogue: str, token: str, *, lease: float, keep: float) -> bool:
        """Extend ``token``'s lease to ``lease`` seconds from now; False if it is not held."""
        ...

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """Record the dialogue's outcome for ``keep`` seconds, replacing whatever was there."""
        ...

    async def release(self, dialogue: str, token: str, *, keep: float) -> None:
        """Give up ``token``'s lease (the round asked again): the entry is open once more."""
        ...

    async def hold(
        self, dialogue: str, token: str, *, retry_safe: bool, lease: float, keep: float
    ) -> bool:
        """Renew ``token``'s lease, saying whether its round is inside a ``retry_safe`` step.

        While a lease says so, it lapses into a new claim rather than "interrupted": the
        next claim after its deadline takes the lease (``"claimed"``), as if it were open.
        `renew` and `release` only apply to a lease that does not say so: its holder says
        ``retry_safe=False`` first (and renews it with this method meanwhile).

        Returns:
            False if ``token`` does not hold the lease (nothing changed).
        """
        ...


# The kinds of entry, as the stores that judge claims in Python keep them.
OPEN, LEASE, RECORD, INTERRUPTED = "open", "lease", "record", "interrupted"
# A lease whose round is inside a retry_safe step (`OutcomeStore.hold`).
SAFE_LEASE = "safe lease"
# What an entry costs besides its two strings (counted with sys.getsizeof): the OrderedDict
# slot and node, the tuple and its two floats. tracemalloc measures about 160 bytes on
# CPython 3.11 (tests/test_stores.py); 250 leaves room for the dict's growth steps.
ENTRY_OVERHEAD_BYTES = 250


def judge_claim(
    entry: tuple[str, str, float] | None, *, now: float, known: bool, trusted: bool = True
) -> tuple[Claim, str | None]:
    """Judge a claim of ``entry`` (kind, value, lease deadline): the answer, and what to write.

    For the stores that judge claims in Python (memory, SQLite; Redis's Lua says the same).
    The kind returned is the entry the caller writes (``None``: none): ``"claimed"`` comes
    with the lease to write; a lease that lapsed, with the interrupted entry that replaces
    it. ``trusted=False`` (written before a reboot, whose crash may have lost the write after
    it) makes an open entry forgotten and any lease interrupted.
    """
    if entry is None:
        return (Claim("forgotten"), None) if known else (Claim("claimed"), LEASE)
    kind, value, deadline = entry
    if kind == RECORD:
        return Claim("recorded", value), None
    if kind == INTERRUPTED:
        return Claim("interrupted"), None
    if kind in (LEASE, SAFE_LEASE):
        if trusted and deadline > now:
            return Claim("busy"), None
        if kind == LEASE or not trusted:
            return Claim("interrupted"), INTERRUPTED
        # A safe lease lapsed: its round died inside a retry_safe step. The caller's now.
    elif not trusted:
        return Claim("forgotten"), None
    return Claim("claimed"), LEASE


def check_bounds(store: str, max_entries: int, max_bytes: int, max_per_caller: int) -> None:
    """Refuse bounds that could not hold one dialogue of the largest record kept whole."""
    check_counts(store, max_entries=max_entries, max_per_caller=max_per_caller)
    if max_bytes < 64 * 1024:
        raise ValueError(
            f"{store} needs max_bytes of at least 65536 (64 KiB), not {max_bytes}: "
            "less could not hold one outcome of the largest size kept whole."
        )


class MemoryStore:
    """The default store: outcomes in this process's memory, bounded and expiring.

    Right for one server process (stdio, one HTTP worker). Several processes serving the
    same clients need a shared store such as ``elicitkit._replay.redis_store.RedisStore``.
    A restarted process starts empty: the later rounds of dialogues begun before the
    restart are refused as forgotten, never run as new.

    It holds at most ``max_entries`` dialogues and ``max_bytes`` bytes (their strings'
    sizes plus `ENTRY_OVERHEAD_BYTES` each). A store that is full refuses *new* dialogues
    (`StoreFull`, logged, and the round is told the server is busy); it never drops an
    unfinished one to make room, and updates of its entries (a lease, a record) always go
    through, so the bytes may pass ``max_bytes`` by what the dialogues in flight record
    (each record is capped by `AtMostOnce`). Size both above what one ``requestState``
    lifetime (11 minutes by default) brings: the defaults hold 100,000 dialogues with
    average outcomes up to about 900 bytes, or 3,000 of the largest outcomes `AtMostOnce`
    keeps whole (32 KiB, sealed). One caller holds at most ``max_per_caller`` open
    dialogues (`CallerFull` past it).
    """

    def __init__(
        self,
        *,
        max_entries: int = 100_000,
        max_bytes: int = 128 * 1024 * 1024,
        max_per_caller: int = DEFAULT_MAX_OPEN_PER_CALLER,
    ) -> None:
        """Hold at most ``max_entries`` dialogues in ``max_bytes``, ``max_per_caller`` per caller.

        Raises:
            ValueError: A bound is not a whole number of at least 1, or ``max_bytes`` is
                under 64 KiB.
        """
        check_bounds("MemoryStore", max_entries, max_bytes, max_per_caller)
        self._max = max_entries
        self._max_bytes = max_bytes
        self._max_per_caller = max_per_caller
        self._bytes = 0
        # Each open dialogue's caller, and each caller's count of them: kept exact as entries
        # are recorded, interrupted or swept, in O(1) each (a count, not a set per caller:
        # one dict slot a dialogue, inside ENTRY_OVERHEAD_BYTES).
        self._caller_of: dict[str, str] = {}
        self._open_of: dict[str, int] = {}
        # dialogue -> (kind, token or outcome, lease deadline, expiry), both on the monotonic
        # clock. Every write moves the entry to the end and every entry lives `keep` from
        # its last write, so the first entries expire first.
        self._entries: OrderedDict[str, tuple[str, str, float, float]] = OrderedDict()

    def __len__(self) -> int:
        """Return how many dialogues the store holds (expired ones included until swept)."""
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """How many bytes the store counts against ``max_bytes`` right now."""
        return self._bytes

    async def open(self, dialogue: str, *, keep: float, caller: str = "") -> None:
        """See `OutcomeStore.open`."""
        now = clock.monotonic()
        self._sweep(now)
        new = dialogue not in self._entries
        if new and self._open_of.get(caller, 0) >= self._max_per_caller:
            raise dialogues_full("MemoryStore", self._max_per_caller)
        self._put(dialogue, (OPEN, "", 0.0, now + keep))
        if new:  # counted once the entry is in (a full store refused it above)
            self._caller_of[dialogue] = sys.intern(caller)  # one string a caller, not a call
            self._open_of[caller] = self._open_of.get(caller, 0) + 1

    async def claim(
        self, dialogue: str, token: str, *, lease: float, keep: float, known: bool
    ) -> Claim:
        """See `OutcomeStore.claim`."""
        now = clock.monotonic()
        self._sweep(now)
        entry = self._entries.get(dialogue)
        claim, write = judge_claim(None if entry is None else entry[:3], now=now, known=known)
        if write == LEASE:
            self._put(dialogue, (LEASE, token, now + lease, now + keep))
        elif write is not None:
            self._put(dialogue, (write, "", 0.0, now + keep))
        return claim

    async def renew(self, dialogue: str, token: str, *, lease: float, keep: float) -> bool:
        """See `OutcomeStore.renew`."""
        entry = self._entries.get(dialogue)
        if entry is None or entry[:2] != (LEASE, token):
            return False
        now = clock.monotonic()
        self._put(dialogue, (LEASE, token, now + lease, now + keep))
        return True

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """See `OutcomeStore.record`."""
        now = clock.monotonic()
        self._sweep(now)
        self._put(dialogue, (RECORD, outcome, 0.0, now + keep))

    async def release(self, dialogue: str, token: str, *, keep: float) -> None:
        """See `OutcomeStore.release`."""
        entry = self._entries.get(dialogue)
        if entry is not None and entry[:2] == (LEASE, token):
            self._put(dialogue, (OPEN, "", 0.0, clock.monotonic() + keep))

    async def hold(
        self, dialogue: str, token: str, *, retry_safe: bool, lease: float, keep: float
    ) -> bool:
        """See `OutcomeStore.hold`."""
        entry = self._entries.get(dialogue)
        if entry is None or entry[0] not in (LEASE, SAFE_LEASE) or entry[1] != token:
            return False
        now = clock.monotonic()
        self._put(dialogue, (SAFE_LEASE if retry_safe else LEASE, token, now + lease, now + keep))
        return True

    def _put(self, dialogue: str, entry: tuple[str, str, float, float]) -> None:
        size = _size(dialogue, entry)
        if dialogue not in self._entries and (
            len(self._entries) >= self._max or self._bytes + size > self._max_bytes
        ):
            raise StoreFull(
                f"elicitkit's MemoryStore is full ({len(self._entries)} dialogues, "
                f"{self._bytes} bytes; at most {self._max} and {self._max_bytes}), so it takes "
                "no new call until older ones expire. Raise max_entries or max_bytes."
            )
        self._drop(dialogue)
        self._entries[dialogue] = entry
        self._bytes += size
        if entry[0] in (RECORD, INTERRUPTED):  # the dialogue is over: its caller may open more
            self._uncount(dialogue)

    def _drop(self, dialogue: str) -> None:
        entry = self._entries.pop(dialogue, None)
        if entry is not None:
            self._bytes -= _size(dialogue, entry)

    def _sweep(self, now: float) -> None:
        # Amortised O(1): entries are in expiry order (each lives `keep` from its last
        # write, and one store serves one `keep`), so expired ones sit at the front.
        while self._entries:
            dialogue, entry = next(iter(self._entries.items()))
            if entry[3] > now:
                return
            self._drop(dialogue)
            self._uncount(dialogue)

    def _uncount(self, dialogue: str) -> None:
        caller = self._caller_of.pop(dialogue, None)
        if caller is not None:
            left = self._open_of[caller] - 1
            if left:
                self._open_of[caller] = left
            else:
                del self._open_of[caller]


def _size(dialogue: str, entry: tuple[str, str, float, float]) -> int:
    return sys.getsizeof(dialogue) + sys.getsizeof(entry[1]) + ENTRY_OVERHEAD_BYTES
