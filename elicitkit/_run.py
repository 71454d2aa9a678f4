"""The tool run an ``ask()`` belongs to, and what an SDK integration provides for it."""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from elicitkit._errors import ElicitError, FormDefinitionError
from elicitkit._replay import Replay


class Channel(Protocol):
    """What an SDK integration provides to ``ask()`` for one tool call."""

    @property
    def protocol(self) -> str:
        """The protocol version this call speaks."""
        ...

    def why_no_forms(self) -> str | None:
        """Say why this call cannot show the user a form, or return ``None`` if it can.

        The reason completes "This client cannot show forms (...)", e.g. "it did not
        declare the elicitation capability".
        """
        ...

    async def send(self, params: dict[str, Any]) -> Mapping[str, Any]:
        """Send ``elicitation/create`` mid-call (handshake eras) and return the raw result.

        Raises:
            ElicitationFailed: The client answered with an error.
        """
        ...

    def surface(self, error: ElicitError | FormDefinitionError) -> BaseException:
        """Return the exception to raise for ``error``.

        Uncaught by the tool, it must reach the client with its message: SDKs hide the text
        of exceptions they do not expect.
        """
        ...


@dataclass
class ToolRun:
    """One run of one tool body.

    Attributes:
        channel: The integration's channel for this call.
        replay: The answers carried into this run (2026-07-28), or ``None`` on handshake
            eras, where questions are sent mid-call.
        keys: The question keys used so far in this run (a key used twice is an error).
        defaults: How many questions without an explicit key each form has asked so far
            in this run: the next default key's number.
        refusal: Why ``ask()`` cannot be used in this call at all (e.g. the tool also uses
            the SDK's own ``Resolve``), or ``None``.
    """

    channel: Channel
    replay: Replay | None
    keys: set[str] = field(default_factory=set[str])
    defaults: dict[str, int] = field(default_factory=dict[str, int])
    refusal: str | None = None


current_run: contextvars.ContextVar[ToolRun] = contextvars.ContextVar("elicitkit_tool_run")
