"""The error of an ``ask()`` in a server elicitkit was never installed on, made readable.

With no ``install(server)`` no elicitkit code runs around the call, so the only moment to
act is when ``ask()`` (or ``step()``, ``ask_url()``, a one-liner) finds no call and raises.
Each server SDK passes on the text of its own tool error only: the official ``MCPServer``
shows the model "Error executing tool NAME" for anything else, and fastmcp with
``mask_error_details=True`` "Error calling tool 'NAME'". So that error becomes, besides an
``ElicitError``, the tool error of every server SDK this process has imported: the one
serving the call is among them, and either SDK reports it as an error result whose text
is elicitkit's sentence (and logs it in one line, without the 60-line traceback).

Only the SDKs' public exception classes are used, found in ``sys.modules``: an SDK not
imported serves no call, and importing one here would cost a process that does not ask.
"""

from __future__ import annotations

import logging
import sys

from elicitkit.errors import ElicitError
from elicitkit.integrations._class_swap import become

# (module, class) of each server SDK's public "tool failed, show this text" exception.
_TOOL_ERRORS = (
    ("mcp.server.mcpserver.exceptions", "ToolError"),
    ("fastmcp.exceptions", "ToolError"),
)
# fastmcp's ToolError.__init__ sets this (it never runs for an error made elsewhere): the
# level fastmcp logs the failure at. A missing install() is the author's to fix: an error.
_FIELDS = {"log_level": logging.ERROR}


def readable_anywhere(error: ElicitError) -> ElicitError:
    """Make ``error`` also an instance of every imported server SDK's tool error."""
    bases = tuple(
        found
        for module, name in _TOOL_ERRORS
        if isinstance(found := getattr(sys.modules.get(module), name, None), type)
        and issubclass(found, Exception)
        and not isinstance(error, found)
    )
    become(error, bases, _FIELDS, module=ElicitError.__module__)
    return error
