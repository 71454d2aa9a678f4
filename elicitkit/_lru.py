"""`Lru`: a bounded mapping that drops the least recently used entry, never everything.

Every cache in elicitkit that a caller's values can grow (per-call form types, per-call
overrides, messages that are f-strings) is one of these, owned by what it caches for
(a compiled form, a prepared form), so it dies with its owner and holds at most ``size``
entries meanwhile.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most ``size`` entries; a lookup makes its entry the most recently used."""

    __slots__ = ("_entries", "size")

    def __init__(self, size: int) -> None:
        """Keep at most ``size`` entries (at least 1)."""
        if size < 1:
            raise ValueError(f"An Lru of size {size} could keep nothing: give a size of 1 or more.")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """Return the entry for ``key`` (now the most recently used), or ``None``.

        Raises:
            TypeError: ``key`` is unhashable.
        """
        entries = self._entries
        value = entries.get(key)
        if value is not None:
            entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        """Store ``value`` under ``key``, dropping the least recently used past ``size``."""
        entries = self._entries
        entries[key] = value
        entries.move_to_end(key)
        if len(entries) > self.size:
            entries.popitem(last=False)
        return value

    def pop(self, key: K) -> V | None:
        """Remove and return the entry for ``key``, or ``None``."""
        return self._entries.pop(key, None)

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()

    def __len__(self) -> int:
        """Return how many entries are kept."""
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        """Tell whether ``key`` has an entry (without making it recently used)."""
        return key in self._entries
