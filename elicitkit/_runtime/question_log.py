"""One structured log record per question, on the standard ``logging`` logger ``elicitkit``.

Each ``ask()`` logs once, when its outcome is known (on 2026-07-28: in the round the
answer arrives, not in the rounds that replay it). The record's message is one readable
line, and the same facts are attached as ``record.elicitkit``, a dict with the keys of
`QuestionRecord`, for log handlers that ship structured data. Answer values never appear:
only the names of the fields that were invalid.

The record is at DEBUG (`QUESTION_LEVEL`), a likely automatic decline at WARNING. Not INFO:
``MCPServer()`` configures the root logger at INFO with a rich handler, which spends about
2.3 ms of CPU per record, more than the whole rest of an ``ask()`` round trip (about
0.6 ms); a library should not charge that to every question by default. Turn the records
on with ``logging.getLogger("elicitkit").setLevel(logging.DEBUG)``. Nothing is built
unless the logger will emit it (a check of about 0.1 µs).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Final

logger = logging.getLogger("elicitkit")

QUESTION_LEVEL: Final = logging.DEBUG
"""The level of the per-question record (see the module's docstring for why not INFO)."""

AUTOMATIC_DECLINE_SECONDS: Final = 1.0
"""A decline faster than this is flagged ``likely_automatic``: nobody reads a form that fast.

Several clients advertise elicitation and decline every form unseen (Claude Code in print
mode, Claude Desktop); a flood of flagged declines in the log points at one of them.
"""


@dataclass(frozen=True)
class QuestionRecord:
    """What the log says about one question.

    Attributes:
        tool: The tool, prompt or resource that asked.
        protocol: The protocol version of the call.
        mode: ``"form"``, or ``"url"`` for `ask_url` (whose key is ``"url"`` mid-call: the
            elicitation id is never logged, as it completes the page); ``"model"`` for a
            question the model answered through ``answer_form`` (``on_unsupported=
            "ask_model"``), ``"defaults"`` for one answered with the form's defaults.
        key: The question's key (its wire key on 2026-07-28).
        outcome: ``accept``, ``decline``, ``cancel``, ``invalid``, ``timeout``,
            ``disconnected`` or ``failed``.
        seconds: Seconds from the (last) request to its answer, or ``None`` if unknown.
        retries: How many times the form was asked again after an invalid answer.
        invalid_fields: The wire keys of the fields that were invalid in any answer.
        likely_automatic: A decline that came faster than `AUTOMATIC_DECLINE_SECONDS`.
    """

    tool: str
    protocol: str
    mode: str
    key: str
    outcome: str
    seconds: float | None
    retries: int
    invalid_fields: tuple[str, ...]
    likely_automatic: bool


def log_question(
    *,
    tool: str,
    protocol: str,
    key: str,
    outcome: str,
    seconds: float | None,
    retries: int,
    invalid_fields: Sequence[str],
    mode: str = "form",
) -> None:
    """Log one question's outcome (at DEBUG; a likely automatic decline at WARNING)."""
    automatic = outcome == "decline" and seconds is not None and seconds < AUTOMATIC_DECLINE_SECONDS
    level = logging.WARNING if automatic else QUESTION_LEVEL
    if not logger.isEnabledFor(level):
        return  # before building anything: the record is for handlers that will emit it
    record = QuestionRecord(
        tool=tool,
        protocol=protocol,
        mode=mode,
        key=key,
        outcome=outcome,
        seconds=None if seconds is None else round(seconds, 3),
        retries=retries,
        invalid_fields=tuple(dict.fromkeys(invalid_fields)),
        likely_automatic=automatic,
    )
    took = "?" if record.seconds is None else f"{record.seconds:g}s"
    logger.log(
        level,
        "question %s in %s: %s after %s, %d retries%s%s",
        key,
        tool,
        outcome,
        took,
        retries,
        f", invalid: {', '.join(record.invalid_fields)}" if record.invalid_fields else "",
        " (likely an automatic decline)" if automatic else "",
        extra={"elicitkit": asdict(record)},
    )
