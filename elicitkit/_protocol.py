"""The MCP protocol versions elicitkit renders schemas for."""

from __future__ import annotations

from typing import Final, Literal, get_args

ProtocolVersion = Literal["2025-06-18", "2025-11-25", "2026-07-28"]
"""A protocol version that has elicitation; the grammar of a form depends on it."""

PROTOCOL_VERSIONS: Final[tuple[ProtocolVersion, ...]] = get_args(ProtocolVersion)
"""Every supported version, oldest first."""

LATEST_PROTOCOL: Final[ProtocolVersion] = PROTOCOL_VERSIONS[-1]
"""The newest version: the default everywhere a version can be given."""


def check_protocol(protocol: str) -> ProtocolVersion:
    """Return ``protocol`` if elicitkit knows its grammar.

    Raises:
        ValueError: ``protocol`` is not one of `PROTOCOL_VERSIONS`.
    """
    for known in PROTOCOL_VERSIONS:
        if protocol == known:
            return known
    supported = ", ".join(PROTOCOL_VERSIONS)
    raise ValueError(
        f"Unknown MCP protocol version {protocol!r}: elicitation exists only in {supported}. "
        "Pass one of those."
    )
