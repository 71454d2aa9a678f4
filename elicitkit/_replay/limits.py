"""The caps on a 2026-07-28 dialogue, and the errors raised when one is reached."""

from __future__ import annotations

from dataclasses import dataclass

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
