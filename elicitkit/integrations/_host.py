"""What differs between the servers that run on the SDK's server layer: `Host`.

``MCPServer`` (`integrations.mcp`) and fastmcp 4 (`integrations.fastmcp`) serve through the
same SDK layer, so elicitkit installs one middleware in both; a `Host` tells it how the
server around it reports errors and finds its tools.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext


@dataclass(frozen=True)
class Host:
    """What differs between the servers that run on the SDK's server layer.

    Attributes:
        name: What the server is called in messages ("MCPServer").
        tool_error: The exception whose text the server passes on to the client when a
            tool raises it (the text of any other exception may be hidden).
        crash_text: The tool error the server shows for a crashed tool, given its name.
        refusal: Why ``ask()`` cannot be used in this request at all, or ``None``. Called
            by the first ``ask()`` of a request only, never for a request that does not ask.
        tool_error_fields: Attributes the host's code reads on its ``tool_error`` that its
            ``__init__`` would have set (an elicitkit error becomes a ``tool_error`` after
            it is made, so that ``__init__`` never runs for it).
        masks_mcp_errors: The host reports an ``MCPError`` raised by a tool as a crashed
            tool (traceback in the log) rather than as that JSON-RPC error, so elicitkit's
            -32042 error is raised as its ``tool_error`` and the host's integration sends it
            on as -32042.
        output_schema: The output schema the server lists for a tool, or ``None``; read
            only when a question goes to the model.
        tool_function: The function a tool runs (``None``: unknown); read only in a
            process where a tool uses ``@fill_missing``, for the check of its arguments.
    """

    name: str
    tool_error: type[Exception]
    crash_text: Callable[[str], str]
    refusal: Callable[[ServerRequestContext[Any, Any]], str | None]
    tool_error_fields: Mapping[str, object] = field(default_factory=dict[str, object])
    masks_mcp_errors: bool = False
    output_schema: Callable[[str], Awaitable[Mapping[str, Any] | None]] | None = None
    tool_function: Callable[[str], Awaitable[object]] | None = None
