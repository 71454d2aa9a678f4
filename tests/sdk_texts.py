"""What each server SDK shows the model when a tool fails, for tests run on both SDKs.

The wording is the server's own, not elicitkit's: the official ``MCPServer`` prefixes the
text of a ``ToolError`` with "Error executing tool NAME: ", while fastmcp shows a
``ToolError``'s text bare and reports a crash as "Error calling tool 'NAME'".
"""

from __future__ import annotations


def tool_error(sdk: str, tool: str, text: str) -> str:
    """The tool error ``sdk`` shows for an elicitkit error with ``text`` escaping ``tool``."""
    if sdk == "mcp":
        return f"Error executing tool {tool}: {text}"
    if sdk == "fastmcp":
        return text
    raise ValueError(f"unknown SDK {sdk!r}")


def crash(sdk: str, tool: str) -> str:
    """The tool error ``sdk`` shows for an unexpected exception escaping ``tool``."""
    if sdk == "mcp":
        return f"Error executing tool {tool}"
    if sdk == "fastmcp":
        return f"Error calling tool {tool!r}"
    raise ValueError(f"unknown SDK {sdk!r}")
