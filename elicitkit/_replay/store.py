"""Where a dialogue's outcome is recorded, so a replayed final round cannot run the body again.

On MCP 2026-07-28 the client may send a dialogue's final round more than once (a network
retry, a buggy client, an attacker replaying a sealed ``requestState`` within its
lifetime). The integration claims the dialogue before a round runs and records the round's
outcome when it completes the call; a later round of the same dialogue gets the record back.

A store needs three atomic operations on one key, and nothing else: this module holds the
protocol and the in-memory default. ``elicitkit._replay.redis_store`` holds the Redis one.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal, Protocol

logger = logging.getLogger("elicitkit")


@dataclass(frozen=True)
class Claim:
    """A store's answer to "may this round of the dialogue run?".

    Attributes:
        status: ``"claimed"``: the caller holds the dialogue's lease and runs the round;
            ``"recorded"``: the dialogue is complete and ``outcome`` is its record;
            ``"busy"``: another round of the dialogue holds the lease right now.
        outcome: The recorded outcome, only with ``"recorded"``.
    """

    status: Literal["claimed", "recorded", "busy"]
    outcome: str | None = None


class OutcomeStore(Protocol):
    """Records the outcome of each completed dialogue, shared by every server process.

    Every method is atomic for one dialogue id. Ids are unguessable random strings minted
    by elicitkit and sealed in ``requestState``; outcomes are opaque JSON strings.
    """

    async def claim(self, dialogue: str, token: str, *, lease: float) -> Claim:
        """Return the recorded outcome, or say the lease is taken, or take it for ``token``.

        Args:
            dialogue: The dialogue's id.
            token: An id for this one round, so only its holder can release the lease.
            lease: Seconds after which an unreleased lease lapses (a crashed process).
        """
        ...

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """Record the dialogue's outcome for ``keep`` seconds, replacing the lease."""
        ...

    async def release(self, dialogue: str, token: str) -> None:
        """Give up ``token``'s lease (the round asked another question); keep any record."""
        ...


_LEASE, _RECORD = "lease", "record"


class MemoryStore:
    """The default store: outcomes in this process's memory, bounded and expiring.

    Right for one server process (stdio, one HTTP worker). Several processes serving the
    same clients need a shared store such as ``elicitkit._replay.redis_store.RedisStore``.

    When ``max_entries`` dialogues are held, the oldest entry is dropped early (and a
    warning logged): size it above the number of dialogues completed within one
    ``requestState`` lifetime (10 minutes by default).
    """

    def __init__(self, *, max_entries: int = 100_000) -> None:
        """Hold at most ``max_entries`` dialogues."""
        if max_entries < 1:
            raise ValueError(f"MemoryStore needs max_entries of at least 1, not {max_entries}.")
        self._max = max_entries
        # dialogue -> (kind, token or outcome, expiry on the monotonic clock); insertion
        # order is expiry order for entries of one kind, so the first entries expire first.
        self._entries: OrderedDict[str, tuple[str, str, float]] = OrderedDict()

    def __len__(self) -> int:
        """Return how many dialogues the store holds (expired ones included until swept)."""
        return len(self._entries)

    async def claim(self, dialogue: str, token: str, *, lease: float) -> Claim:
        """See `OutcomeStore.claim`."""
        now = time.monotonic()
        self._sweep(now)
        entry = self._entries.get(dialogue)
        if entry is not None and entry[2] > now:
            kind, value, _ = entry
            return Claim("recorded", value) if kind == _RECORD else Claim("busy")
        self._put(dialogue, (_LEASE, token, now + lease))
        return Claim("claimed")

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """See `OutcomeStore.record`."""
        self._put(dialogue, (_RECORD, outcome, time.monotonic() + keep))

    async def release(self, dialogue: str, token: str) -> None:
        """See `OutcomeStore.release`."""
        entry = self._entries.get(dialogue)
        if entry is not None and entry[:2] == (_LEASE, token):
            del self._entries[dialogue]

    def _put(self, dialogue: str, entry: tuple[str, str, float]) -> None:
        self._entries.pop(dialogue, None)
        self._entries[dialogue] = entry
        while len(self._entries) > self._max:
            dropped, _ = self._entries.popitem(last=False)
            logger.warning(
                "elicitkit's MemoryStore is full (%d dialogues): dropped dialogue %s before "
                "it expired, so a replay of it could run its tool again. Raise max_entries.",
                self._max,
                dropped,
            )

    def _sweep(self, now: float) -> None:
        # Amortised O(1): expired entries sit at the front (leases are shorter than records,
        # so the order is only nearly sorted; an entry behind a live one waits its turn).
        while self._entries:
            dialogue, (_, _, expiry) = next(iter(self._entries.items()))
            if expiry > now:
                return
            del self._entries[dialogue]
