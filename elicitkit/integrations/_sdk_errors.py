"""The SDK's exceptions an elicitkit error becomes, so each reaches the client readably.

The SDK passes on the text of its own exceptions only: a tool's ``ToolError`` (its host's),
an ``MCPError`` elsewhere, and the spec's JSON-RPC errors (-32021, -32042) as ``MCPError``
subclasses. An elicitkit error keeps its own class too (``except InvalidContent`` still
works): the class swap is `_class_swap.become`, the one factory both the installed and the
uninstalled paths use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import mcp_types as types
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from elicitkit.errors import ElicitationUnsupported, InvalidContent, TasksUnsupported
from elicitkit.integrations._class_swap import become
from elicitkit.integrations._quiet_log import withhold_answer_values

if TYPE_CHECKING:
    from elicitkit.integrations._host import Host


class UrlRequired(UrlElicitationRequiredError):
    """The -32042 error of `require_url`, marked as elicitkit's own for the integrations."""


class MissingTasks(TasksUnsupported, MCPError):
    """`TasksUnsupported` that the SDK sends as the extension's -32021 JSON-RPC error."""

    def __str__(self) -> str:
        return self.error.message


class MissingCapability(ElicitationUnsupported, MCPError):
    """`ElicitationUnsupported` that the SDK sends as a -32021 JSON-RPC error."""

    def __str__(self) -> str:
        return self.error.message


def become_request_error(error: Exception) -> None:
    """Make ``error`` an instance of its own class and of ``MCPError`` (-32603) at once."""
    message = str(error)
    if become(error, (MCPError,), {}):
        cast("MCPError", error).error = types.ErrorData(code=types.INTERNAL_ERROR, message=message)


def become_tool_error(error: Exception, host: Host) -> None:
    """Make ``error`` an instance of its own class and of the host's tool error at once.

    The text of an `InvalidContent` quotes what the user sent, for the model to read; the
    server SDK's log must not keep it, so the filter of `_quiet_log` is put in place first.
    """
    become(error, (host.tool_error,), host.tool_error_fields)
    if isinstance(error, InvalidContent):
        withhold_answer_values()
