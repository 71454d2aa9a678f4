"""The MCP protocol versions elicitkit renders schemas for."""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = ["LATEST_PROTOCOL", "MAX_CHECKBOXES", "PROTOCOL_VERSIONS", "ProtocolVersion"]

ProtocolVersion = Literal["2025-06-18", "2025-11-25", "2026-07-28"]
"""A protocol version that has elicitation; the grammar of a form depends on it."""

PROTOCOL_VERSIONS: Final[tuple[ProtocolVersion, ...]] = get_args(ProtocolVersion)
"""Every supported version, oldest first."""

LATEST_PROTOCOL: Final[ProtocolVersion] = PROTOCOL_VERSIONS[-1]
"""The newest version: the default everywhere a version can be given."""

FIRST_PROTOCOL: Final[ProtocolVersion] = PROTOCOL_VERSIONS[0]
"""2025-06-18: no ``mode`` key, defaults on booleans only, labels as ``enumNames``, no arrays."""


MAX_CHECKBOXES: Final = 12
"""The most choices a multi-select may have to be asked on 2025-06-18, as one checkbox each.

2025-06-18 has no multi-select; a boolean per choice is the nearest its grammar allows.
Past a dozen, a column of checkboxes stops being a question a person reads; a form with
more raises `elicitkit.errors.TooManyCheckboxes` there (narrow the choices per call with
``Overrides(choices=...)``, or ask clients on a newer version).
"""


def known_protocol(protocol: str) -> ProtocolVersion | None:
    """Return ``protocol`` if elicitkit knows its grammar, else ``None``."""
    for known in PROTOCOL_VERSIONS:
        if protocol == known:
            return known
    return None


def check_protocol(protocol: str) -> ProtocolVersion:
    """Return ``protocol`` if elicitkit knows its grammar.

    Raises:
        ValueError: ``protocol`` is not one of `PROTOCOL_VERSIONS`.
    """
    known = known_protocol(protocol)
    if known is not None:
        return known
    supported = ", ".join(PROTOCOL_VERSIONS)
    raise ValueError(
        f"Unknown MCP protocol version {protocol!r}: elicitation exists only in {supported}. "
        "Pass one of those."
    )
