"""The caps on a 2026-07-28 dialogue, and the one check of every store's and router's counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

DEFAULT_MAX_ROUNDS = 100
DEFAULT_MAX_STATE_BYTES = 16 * 1024


@dataclass(frozen=True)
class ReplayLimits:
    """How far one dialogue (one logical call across its rounds) may grow on 2026-07-28.

    Attributes:
        max_rounds: The most questions rounds (``InputRequiredResult``s) one call may
            return. A tool asking in a loop without end fails instead of asking forever.
        max_state_bytes: The largest ``requestState`` elicitkit writes, before the SDK seals
            it (sealing adds about a third, plus ~130 bytes). Every answer travels in it on
            every round, so this caps the bytes a client re-sends.
    """

    max_rounds: int = DEFAULT_MAX_ROUNDS
    max_state_bytes: int = DEFAULT_MAX_STATE_BYTES

    def __post_init__(self) -> None:
        """Refuse limits that would stop every dialogue."""
        if self.max_rounds < 1 or self.max_state_bytes < 256:
            raise ValueError(
                f"ReplayLimits(max_rounds={self.max_rounds}, "
                f"max_state_bytes={self.max_state_bytes}) would stop every dialogue: "
                "max_rounds must be at least 1 and max_state_bytes at least 256."
            )


def check_counts(owner: str, **limits: int) -> None:
    """Refuse count limits (``max_...=value``) that are not whole numbers of at least 1.

    Every bounded store and router counts with it, so each says the same thing of a bad
    limit: ``MemoryStore needs max_per_caller of at least 1 (a whole number), not 0.``

    Args:
        owner: Who is given the limits, as the message names it (``"MemoryStore"``).
        limits: Each limit by its parameter's name.

    Raises:
        ValueError: A limit is a bool, not an int, or less than 1.
    """
    for name, value in limits.items():
        given = cast("object", value)  # checked at run time: callers may pass anything
        if isinstance(given, bool) or not isinstance(given, int) or given < 1:
            raise ValueError(f"{owner} needs {name} of at least 1 (a whole number), not {value!r}.")


def check_limits(max_tasks: int, max_per_caller: int, store: str) -> None:
    """Refuse a task store's limits that are not whole numbers of at least 1."""
    check_counts(store, max_tasks=max_tasks, max_per_caller=max_per_caller)
