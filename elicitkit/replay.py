"""Replay on 2026-07-28: how far one dialogue may grow, and whether this round is a replay.

On MCP 2026-07-28 a tool that asks returns its questions and is called again with the
answers, so every round runs the tool from the top. `ReplayLimits` caps one dialogue (pass
it as ``install(server, limits=...)``); `replaying` says whether the current round is one
of those later rounds (for logs and metrics only: ``step()`` makes it unnecessary for
correctness). Where a dialogue's outcome is recorded, so it completes at most once, is
`elicitkit.stores`.
"""

from __future__ import annotations

from elicitkit._replay.limits import ReplayLimits
from elicitkit._runtime.steps import replaying

__all__ = ["ReplayLimits", "replaying"]
