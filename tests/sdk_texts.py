"""What each server SDK shows the model when an elicitkit error escapes a tool.

The wording around elicitkit's text is the server's own: the official ``MCPServer`` prefixes
a ``ToolError``'s text with "Error executing tool NAME: ", fastmcp shows it bare.
"""

from __future__ import annotations


def tool_error(sdk: str, tool: str, text: str) -> str:
    """The tool error ``sdk`` shows for an elicitkit error with ``text`` escaping ``tool``."""
    if sdk == "mcp":
        return f"Error executing tool {tool}: {text}"
    if sdk == "fastmcp":
        return text
    raise ValueError(f"unknown SDK {sdk!r}")
