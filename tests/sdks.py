"""The two server SDKs elicitkit installs on, for tests parametrised over both.

Tests take the ``sdk`` fixture (``"mcp"`` or ``"fastmcp"``, from tests/conftest.py) and build
their server with `new_server`; both servers take ``@server.tool()``, ``@server.prompt()`` and
``@server.resource(uri)`` alike. The official ``mcp.Client`` connects to either in memory
through `in_memory` (fastmcp's own client validates answers before sending them, so tests of
invalid answers use this one).
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer

from elicitkit import install
from elicitkit.integrations import client_target

SDKS = [pytest.param("mcp", id="mcp"), pytest.param("fastmcp", id="fastmcp")]


def new_server(sdk: str, name: str = "test", **options: Any) -> Any:
    """A new server of ``sdk`` with elicitkit installed (``options`` go to the server)."""
    if sdk == "mcp":
        return install(MCPServer(name, **options))
    if sdk == "fastmcp":
        return install(FastMCP(name, **options))
    raise ValueError(f"unknown SDK {sdk!r}")


def in_memory(server: Any) -> Any:
    """What ``mcp.Client(...)`` takes to connect to ``server`` in memory."""
    return client_target(server)


def escaped_error_text(sdk: str, tool: str, text: str) -> str:
    """What a client reads when an elicitkit error with ``text`` escapes ``tool`` on ``sdk``.

    The official SDK prefixes its tool errors; fastmcp shows a ``ToolError``'s bare text.
    """
    return f"Error executing tool {tool}: {text}" if sdk == "mcp" else text
