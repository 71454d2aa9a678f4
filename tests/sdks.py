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
# The two eras as (client mode, protocol it negotiates): mcp.Client(..., mode=mode).
ERAS = [
    pytest.param("legacy", "2025-11-25", id="2025-11-25"),
    pytest.param("auto", "2026-07-28", id="2026-07-28"),
]


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


def tool_error(sdk: str, tool: str, text: str) -> str:
    """The tool error ``sdk`` shows for an elicitkit error with ``text`` escaping ``tool``.

    The wording around elicitkit's text is the server's own: the official ``MCPServer``
    prefixes a ``ToolError``'s text with "Error executing tool NAME: ", fastmcp shows it bare.
    """
    if sdk == "mcp":
        return f"Error executing tool {tool}: {text}"
    if sdk == "fastmcp":
        return text
    raise ValueError(f"unknown SDK {sdk!r}")
