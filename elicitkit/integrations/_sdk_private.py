"""Every private detail of the SDKs that the integrations read, fenced in one place.

Neither SDK offers a public way to these facts. Each read is guarded (a missing or
renamed attribute gives a safe answer, never a failing server), none is on the path of a
call that does not ask, and each has a canary in ``tests/test_sdk_assumptions.py`` that
fails loudly, naming the attribute, when an SDK release changes it. docs/how-it-works.md
("What we rely on") lists them with the public API we would ask upstream for.

* `tool_uses_resolve`: official SDK, ``MCPServer._tool_manager.get_tool(name)
  .resolved_params``; read by the first ``ask()`` of a ``tools/call`` only.
* `tool_function`: official SDK, ``MCPServer._tool_manager.get_tool(name).fn``; read per
  ``tools/call`` only in a process where a tool uses ``@fill_missing``.
* `state_security`: official SDK, ``RequestStateBoundary._security``; read once by
  ``install()``, for the state's lifetime and, with ``MCP_REQUEST_STATE_KEY``, its policy.
* `fastmcp_sdk_server`: fastmcp, ``FastMCP._mcp_server``; read once by ``install()``
  (and by the testing kit, to connect in memory).
* `fastmcp_extensions`: fastmcp, ``FastMCP._extensions``; read by ``install()`` and by
  each ``tools/call`` of a fastmcp server (one dict lookup), to refuse a server that also
  registered fastmcp-tasks' ``TasksExtension`` (both would serve ``tasks/*``).
* `connection_of`: official SDK, ``ServerSession._connection``; read by ``ask_url()`` and
  ``require_url()`` on 2025-11-25 only, for the one session the route belongs to and its
  public ``Connection.exit_stack`` (unwound when the client leaves).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity


def tool_uses_resolve(server: object, name: str) -> bool:
    """Whether the official SDK's tool ``name`` of ``server`` has ``Resolve(...)`` parameters.

    ``False`` when it cannot be told (an SDK that moved these attributes): elicitkit then
    does not refuse ``ask()`` beside ``Resolve``, as before that check existed.
    """
    return bool(getattr(_sdk_tool(server, name), "resolved_params", None))


def tool_function(server: object, name: str) -> object:
    """The function the official SDK's tool ``name`` of ``server`` runs, or ``None``.

    Read only in a process where some tool uses ``@fill_missing``, whose function carries
    the check of its arguments; ``None`` when it cannot be read (the SDK's own argument
    validation then answers, as before that check existed).
    """
    return getattr(_sdk_tool(server, name), "fn", None)


def _sdk_tool(server: object, name: str) -> Any:
    """``server._tool_manager.get_tool(name)`` (the official SDK), or ``None`` if unreadable."""
    try:
        manager: Any = getattr(server, "_tool_manager", None)
        return None if manager is None else manager.get_tool(name)
    except (AttributeError, TypeError, LookupError):
        return None


def state_security(boundary: RequestStateBoundary) -> RequestStateSecurity | None:
    """The policy ``boundary`` seals with (key, expiry, principal, audience), if readable."""
    security: object = getattr(boundary, "_security", None)
    if isinstance(security, RequestStateSecurity):
        return security
    return None


def state_ttl(boundary: RequestStateBoundary, default: float) -> float:
    """Seconds a state sealed by ``boundary`` lives, or ``default`` if it cannot be read."""
    security = state_security(boundary)
    ttl: object = None if security is None else security.ttl
    return float(ttl) if isinstance(ttl, int | float) else default


def connection_of(session: object) -> Connection | None:
    """The per-client ``Connection`` behind a per-request ``ServerSession``, if readable.

    The SDK builds a ``ServerSession`` for each request; the connection is the one object
    per client, whose public ``exit_stack`` the SDK unwinds when the client leaves (its
    docs invite middleware to push cleanup there, but middleware sees no connection).
    ``None`` when it cannot be read: URL routes are then bounded per call, not per
    session, and end by expiry rather than with the session.
    """
    connection: object = getattr(session, "_connection", None)
    return connection if isinstance(connection, Connection) else None


def fastmcp_sdk_server(server: object) -> Server[Any] | None:
    """The official SDK's server a ``fastmcp.FastMCP`` serves through, or ``None``."""
    inner: Any = getattr(server, "_mcp_server", None)
    return inner if _is_sdk_server(inner) else None


def fastmcp_default_policy(server: object) -> bool:
    """Whether a ``fastmcp.FastMCP`` was built without ``request_state_security=``.

    fastmcp keeps ``None`` then, and its server layer seals with a key of this process.
    """
    return getattr(server, "_request_state_security", False) is None


def fastmcp_extensions(server: object) -> Mapping[str, object]:
    """The extensions registered on a ``fastmcp.FastMCP`` (``add_extension``), by identifier.

    Empty when it cannot be read: elicitkit then does not refuse a server that also
    registered fastmcp-tasks, as before that check existed.
    """
    found: object = getattr(server, "_extensions", None)
    return cast("Mapping[str, object]", found) if isinstance(found, Mapping) else {}


def _is_sdk_server(value: object) -> bool:
    # A plain bool, not a narrowing isinstance: narrowed, Server's type parameter would be
    # unknown to pyright, and a cast to Server[Any] redundant to mypy.
    return isinstance(value, Server)
