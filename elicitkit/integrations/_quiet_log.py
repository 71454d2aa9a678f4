"""Keep the user's answer values out of the server SDK's log.

An `InvalidContent` that a tool does not catch reaches the model as a tool error, and its
text quotes what the user typed (``got 'not-an-email-555-12-3456'``), so the model can
say what was wrong. The official ``MCPServer`` also logs that text at INFO ("Tool 'x'
failed: ..."; mcp/server/mcpserver/server.py, ``_handle_call_tool``), into the server's log
files. (fastmcp logs only "Error calling tool 'x'".) It builds both from the one string, so
elicitkit cannot give the two different texts; instead a filter on that logger rewrites a
record logged while such an error is being handled: the error's text becomes a summary
that names the form and the fields, never a value.
"""

from __future__ import annotations

import logging
import sys
from typing import Final

from elicitkit.errors import InvalidContent

SDK_LOGGERS: Final = ("mcp.server.mcpserver.server",)
"""The loggers that log an uncaught tool error's text (only MCPServer's, today)."""


def withheld(error: InvalidContent) -> str:
    """The log's version of ``error``: the form and the fields, no value."""
    fields = list(dict.fromkeys(e.field or "the answer as a whole" for e in error.errors))
    noun = "problem" if len(error.errors) == 1 else "problems"
    return (
        f"The answer to {error.form_name} has {len(error.errors)} {noun}, in "
        f"{', '.join(fields)} (the values the user sent are left out of the log)."
    )


class WithholdAnswerValues(logging.Filter):
    """Rewrite a record logged while an `InvalidContent` is handled: its text, withheld."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Replace the text of the error being handled in the record's message and args."""
        # The SDK logs inside its `except` block, so the error in hand is the one it
        # reports (its ToolError, whose cause chain holds ours); a record that carries
        # exc_info names it directly.
        handled = record.exc_info[1] if record.exc_info else sys.exc_info()[1]
        error = _answer_error(handled)
        if error is None:
            return True
        text, quiet = str(error), withheld(error)
        if isinstance(record.msg, str):
            record.msg = record.msg.replace(text, quiet)
        if isinstance(record.args, tuple):
            record.args = tuple(
                arg.replace(text, quiet) if isinstance(arg, str) else arg for arg in record.args
            )
        return True


def _answer_error(error: BaseException | None) -> InvalidContent | None:
    """The `InvalidContent` in ``error``'s chain of causes, if any (10 links at most)."""
    for _ in range(10):  # a chain is two or three links; the bound guards against a cycle
        if error is None or isinstance(error, InvalidContent):
            return error
        error = error.__cause__ or error.__context__
    return None


_FILTER: Final = WithholdAnswerValues()


def withhold_answer_values() -> None:
    """Put the filter on each SDK logger that logs tool errors (once; idempotent)."""
    for name in SDK_LOGGERS:
        sdk_logger = logging.getLogger(name)
        if _FILTER not in sdk_logger.filters:
            sdk_logger.addFilter(_FILTER)
