"""Canaries: what elicitkit assumes of the SDKs beyond their public API, one test each.

Each test names the SDK detail it checks in its failure message, so an SDK release that
changes one says which, and where elicitkit relies on it (docs/how-it-works.md, "What we
rely on"). The private reads live in ``elicitkit/integrations/_sdk_private.py`` and
``elicitkit/_client/tuned_client.py``; the class swaps in
``elicitkit/integrations/_class_swap.py``.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import mcp_types as types
import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError as FastMCPToolError
from mcp import Client
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

import elicitkit
from elicitkit._client.tuned_client import TunedClient
from elicitkit._compat import BaseExceptionGroup
from elicitkit.errors import ElicitationTimeout, ElicitationUnsupported
from elicitkit.integrations import fastmcp as fastmcp_integration
from elicitkit.integrations._class_swap import become
from elicitkit.integrations._sdk_errors import become_request_error
from elicitkit.integrations._sdk_private import (
    connection_of,
    fastmcp_extensions,
    fastmcp_sdk_server,
    state_security,
    tool_function,
    tool_uses_resolve,
)
from elicitkit.url import ask_url
from tests.mrtr import text_of

pytestmark = pytest.mark.anyio


class Account(BaseModel):
    account: str


async def which_account() -> Elicit[Account]:
    return Elicit("Which account?", Account)


def test_mcpserver_tool_manager_tells_resolved_params() -> None:
    server = MCPServer("bank")

    @server.tool()
    async def transfer(account: Annotated[Account, Resolve(which_account)]) -> str:
        return account.account

    assert tool_uses_resolve(server, "transfer"), (
        "The SDK changed MCPServer._tool_manager.get_tool(name).resolved_params: elicitkit "
        "reads it to refuse ask() beside Resolve(...) (_sdk_private.tool_uses_resolve), and "
        "now no longer refuses. Find the new place of a tool's resolved parameters."
    )


def test_mcpserver_tool_manager_tells_a_tools_function() -> None:
    server = MCPServer("bank")

    async def balance() -> str:
        return "0"

    server.tool()(balance)
    assert tool_function(server, "balance") is balance, (
        "The SDK changed MCPServer._tool_manager.get_tool(name).fn: elicitkit reads it to find "
        "the check of a @fill_missing tool's arguments (_sdk_private.tool_function), and now "
        "leaves them to the SDK's own validation. Find the new place of a tool's function."
    )
    assert tool_function(server, "missing") is None


def test_request_state_boundary_keeps_its_policy_in_security() -> None:
    policy = RequestStateSecurity.ephemeral(ttl=42.0)
    server = MCPServer("sealed", request_state_security=policy)
    (boundary,) = (m for m in server.middleware if isinstance(m, RequestStateBoundary))
    assert state_security(boundary) is policy, (
        "The SDK changed RequestStateBoundary._security: elicitkit reads it for the state's "
        "lifetime (how long outcomes are kept) and, with MCP_REQUEST_STATE_KEY, the policy "
        "to keep (_sdk_private.state_security)."
    )
    assert inspect.signature(RequestStateBoundary).parameters.keys() >= {
        "security",
        "default_audience",
    }, "The SDK changed the public RequestStateBoundary(security, default_audience=) constructor."


def test_fastmcp_serves_through_an_sdk_server_with_the_boundary() -> None:
    server = FastMCP("wrapped")
    inner = fastmcp_sdk_server(server)
    assert isinstance(inner, Server), (
        "fastmcp changed FastMCP._mcp_server (the official SDK's Server it serves through): "
        "elicitkit installs its middleware in that server's middleware list "
        "(_sdk_private.fastmcp_sdk_server)."
    )
    assert any(isinstance(m, RequestStateBoundary) for m in inner.middleware), (
        "fastmcp's SDK server no longer holds a RequestStateBoundary in its middleware list."
    )


def test_fastmcp_keeps_its_extensions_by_identifier() -> None:
    from fastmcp.server.extensions import ServerExtension  # noqa: PLC0415

    class Probe(ServerExtension):
        identifier = "io.modelcontextprotocol/tasks"

    server = FastMCP("extended")
    probe = Probe()
    server.add_extension(probe)
    assert fastmcp_extensions(server).get("io.modelcontextprotocol/tasks") is probe, (
        "fastmcp changed FastMCP._extensions (identifier -> registered extension): elicitkit "
        "reads it to refuse a server that also registered fastmcp-tasks "
        "(_sdk_private.fastmcp_extensions)."
    )


async def test_a_server_session_leads_to_its_one_connection_which_tells_its_end() -> None:
    server = MCPServer("connections")
    seen: list[object] = []
    ended: list[int] = []

    @server.tool()
    async def where(ctx: Context) -> str:
        connection = connection_of(ctx.session)
        seen.append(connection)
        if connection is not None and len(seen) in (1, 3):
            connection.exit_stack.callback(ended.append, len(seen))
        return "here"

    async with Client(server, mode="legacy") as one:
        await one.call_tool("where", {})
        await one.call_tool("where", {})
    async with Client(server, mode="legacy") as two:
        await two.call_tool("where", {})
    first, again, other = seen
    changed = (
        "The SDK changed ServerSession._connection: elicitkit reads it for the one "
        "connection behind each request's ServerSession, the session a URL route belongs to "
        "(_sdk_private.connection_of). Without it, routes are capped per call, not per session."
    )
    assert first is not None, changed
    assert first is again, changed
    assert other is not first, changed
    assert ended == [1, 3], (
        "The SDK no longer unwinds Connection.exit_stack when a client leaves: elicitkit "
        "drops a session's URL routes there (integrations/_channel.py, _ConnectionEnd)."
    )


def test_in_memory_transport_is_where_the_tuned_client_finds_it() -> None:
    from mcp.client._memory import InMemoryTransport  # noqa: PLC0415

    parameters = inspect.signature(InMemoryTransport).parameters
    assert list(parameters) == ["server", "raise_exceptions"], (
        "The SDK changed mcp.client._memory.InMemoryTransport(server, *, raise_exceptions): "
        "elicitkit's TunedClient builds it to connect in memory with a rewritten handshake "
        "(elicitkit/_client/tuned_client.py)."
    )


@pytest.mark.parametrize(
    ("version", "url_mode", "mode", "said"),
    [
        pytest.param("2025-06-18", True, "legacy", "MCP 2025-06-18", id="2025-06-18"),
        pytest.param("2025-11-25", False, "legacy", "without URL mode", id="2025-11-25-form"),
        pytest.param("2026-07-28", False, "2026-07-28", "without URL mode", id="2026-07-28-form"),
    ],
)
async def test_the_tuned_client_offers_what_it_is_told(
    version: Any, url_mode: bool, mode: Any, said: str
) -> None:
    """The rewritten handshake and capabilities reach the server (a real one, in memory)."""
    server = elicitkit.install(MCPServer("tuned"))

    @server.tool()
    async def link() -> str:
        try:
            await ask_url("Open", "https://example.com/page")
        except ElicitationUnsupported as error:
            return str(error)
        return "asked"

    async def accept(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept")

    client = TunedClient(
        server, mode=mode, elicitation_callback=accept, version=version, url_mode=url_mode
    )
    async with client:
        assert client.protocol_version == version
        assert said in text_of(await client.call_tool("link", {}))


FASTMCP_FIELDS = fastmcp_integration._HOST.tool_error_fields  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize(
    ("base", "fields"),
    [(ToolError, {}), (FastMCPToolError, FASTMCP_FIELDS), (MCPError, {})],
    ids=["mcp-ToolError", "fastmcp-ToolError", "MCPError"],
)
def test_an_elicitkit_error_can_become_the_sdk_error(
    base: type[Exception], fields: dict[str, object]
) -> None:
    # The fields the integrations pass: become() caches one class per (error class, bases).
    error = ElicitationTimeout("The user did not answer in 5 seconds.")
    if base is MCPError:
        become_request_error(error)  # also sets .error, which MCPError's __str__ reads
    else:
        become(error, (base,), fields)
    assert isinstance(error, ElicitationTimeout), "the error lost its own class"
    assert isinstance(error, base), (
        f"{base.__module__}.{base.__qualname__} no longer accepts a __class__ assignment "
        "from an elicitkit error (integrations/_class_swap.py become): its instance layout "
        "changed."
    )
    assert str(error) == "The user did not answer in 5 seconds."


@pytest.mark.parametrize(
    ("error", "fields"),
    [
        pytest.param(ToolError("x"), {}, id="mcp-ToolError"),
        pytest.param(FastMCPToolError("x"), FASTMCP_FIELDS, id="fastmcp-ToolError"),
        pytest.param(MCPError(code=1, message="x"), {"error": None}, id="MCPError"),
    ],
)
def test_the_sdk_errors_set_only_the_fields_elicitkit_provides(
    error: Exception, fields: dict[str, object]
) -> None:
    """A swapped error never ran the SDK's __init__: elicitkit supplies what it would set."""
    assert set(vars(error)) == set(fields), (
        f"{type(error).__module__}.{type(error).__qualname__}.__init__ now sets "
        f"{sorted(vars(error))}, but elicitkit supplies only {sorted(fields)} when it turns "
        "its own error into one (integrations/_host.py Host.tool_error_fields, "
        "_sdk_errors.become_request_error)."
    )


async def test_the_sdk_sends_an_mcp_errors_error_attribute() -> None:
    server = MCPServer("errors")

    @server.tool()
    async def fail() -> str:
        error = MCPError(code=1, message="set by __init__")
        error.error = types.ErrorData(code=-32021, message="set afterwards")
        raise error

    async with Client(server, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("fail", {})
    assert (raised.value.error.code, raised.value.error.message) == (-32021, "set afterwards"), (
        "The SDK no longer serialises an MCPError raised by a tool from its .error attribute: "
        "elicitkit sets .error on the errors it turns into MCPError (-32021, -32603)."
    )


@pytest.mark.parametrize("sdk", ["mcp", "fastmcp"])
async def test_a_tool_error_text_reaches_the_client(sdk: str) -> None:
    server: Any = MCPServer("texts") if sdk == "mcp" else FastMCP("texts", mask_error_details=True)
    base: type[Exception] = ToolError if sdk == "mcp" else FastMCPToolError
    fields = {} if sdk == "mcp" else FASTMCP_FIELDS

    @server.tool()
    async def fail() -> str:
        error = ElicitationTimeout("The user did not answer.")
        become(error, (base,), fields)
        raise error

    target = server if sdk == "mcp" else fastmcp_sdk_server(server)
    async with Client(target, mode="legacy") as client:
        result = await client.call_tool("fail", {})
    assert result.is_error
    assert text_of(result).endswith("The user did not answer."), (
        f"The {sdk} tool runner no longer passes on the text of its ToolError (or of an "
        f"elicitkit error that became one): it said {text_of(result)!r}."
    )


class _Signal(BaseException):
    """Not an Exception: what a task group holding an unanswered ask() is made of."""


async def test_a_base_exception_group_passes_the_tool_runner() -> None:
    server = MCPServer("groups")
    seen: list[type[BaseException]] = []

    async def watch(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except BaseException as error:  # noqa: BLE001  (recorded, then answered)
            seen.append(type(error))
            return types.CallToolResult(content=[], is_error=True)

    server.middleware.append(watch)

    @server.tool()
    async def group() -> str:
        raise BaseExceptionGroup("questions", [_Signal()])

    async with Client(server, mode="legacy") as client:
        await client.call_tool("group", {})
    assert seen == [BaseExceptionGroup], (
        "The SDK's tool runner no longer lets a BaseExceptionGroup through unchanged: "
        f"elicitkit's middleware saw {seen}, and relies on it to find the questions of "
        "concurrent ask()s (integrations/_asking_call.py _questions)."
    )


DEFAULT_POLICY_SCRIPT = """
import sys
{first}
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from elicitkit.integrations._default_policy import made_by_default
from elicitkit.integrations._sdk_private import fastmcp_default_policy, state_security

def policy(chain):
    (boundary,) = (m for m in chain if isinstance(m, RequestStateBoundary))
    return state_security(boundary)

chosen = RequestStateSecurity(keys=["k" * 32], audience="x")
print(made_by_default(policy(MCPServer("default").middleware)),
      made_by_default(policy(FastMCP("default")._mcp_server.middleware)),
      made_by_default(policy(MCPServer("chosen", request_state_security=chosen).middleware)),
      fastmcp_default_policy(FastMCP("default")),
      fastmcp_default_policy(FastMCP("chosen", request_state_security=chosen)))
"""


@pytest.mark.parametrize(
    "first", ["import elicitkit", "import mcp.server.request_state; import elicitkit"]
)
def test_both_sdks_make_their_default_policy_with_ephemeral(first: str, run_python: Any) -> None:
    """elicitkit imported before the SDK (its finder wraps ``ephemeral`` on import) or after
    (wrapped at once): either way both SDKs' defaults are told from a chosen policy."""
    done = run_python(DEFAULT_POLICY_SCRIPT.format(first=first))
    assert done.stdout.split() == ["True", "True", "False", "True", "False"], (
        "MCPServer or FastMCP no longer seal with RequestStateSecurity.ephemeral() when no "
        "request_state_security= is given, or fastmcp no longer keeps None in "
        "FastMCP._request_state_security: elicitkit relies on it to replace only the SDK's "
        "per-process key with the key file beside the records (_default_policy.py). "
        f"Output: {done.stdout!r} {done.stderr[-2000:]!r}"
    )
