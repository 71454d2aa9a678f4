"""elicitkit on fastmcp 4.2+: ``install(FastMCP(...))``.

fastmcp 4 serves every request through the official SDK's server layer: its low-level server
is the SDK's, with the SDK's ``RequestStateBoundary`` in its middleware chain. So elicitkit
installs the very middleware it installs on an ``MCPServer`` (`integrations.mcp`), in that
chain, inside the boundary, described by fastmcp's own ways:

* the exception whose text reaches the client is ``fastmcp.exceptions.ToolError`` (with
  ``mask_error_details=True`` fastmcp hides the text of every other exception);
* fastmcp reports any other ``MCPError`` raised in a tool as a crash (a tool error, and a
  traceback in the log), which would turn `require_url`'s -32042 into plain text. So that
  error is raised as a ``ToolError`` too (logged in one line), and a fastmcp middleware, the
  innermost at install time, sends it on as the JSON-RPC error -32042 the spec asks for.

Importing this module imports fastmcp; ``elicitkit.install`` imports it only when given a
``FastMCP`` server, so elicitkit itself works without fastmcp installed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import fastmcp
import mcp_types as types
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.prompts import PromptResult
from fastmcp.resources import ResourceResult
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp.shared.exceptions import MCPError

from elicitkit._replay.tasks import TASKS_EXTENSION
from elicitkit._runtime import missing_arguments as fill
from elicitkit._runtime.context import current_run, reached_through_uninstalled
from elicitkit._runtime.missing_arguments import ARGUMENTS_CHECK
from elicitkit._runtime.model_listing import ANSWER_TOOL, ANSWER_TOOL_DESCRIPTION
from elicitkit._runtime.unsupported import check_policy
from elicitkit.integrations._answer_form import answer_form
from elicitkit.integrations._host import Host
from elicitkit.integrations._options import InstallOptions
from elicitkit.integrations._sdk_errors import UrlRequired
from elicitkit.integrations._sdk_private import (
    fastmcp_default_policy,
    fastmcp_extensions,
    fastmcp_sdk_server,
)
from elicitkit.integrations.mcp import install_in_chain

_HOST = Host(
    name="FastMCP server",
    tool_error=ToolError,
    crash_text=lambda tool: f"Error calling tool {tool!r}",
    # fastmcp has no parameters resolved by elicitation (the SDK's Resolve) to clash with.
    refusal=lambda _ctx: None,
    # fastmcp logs a ToolError at its `log_level`: a form the user answered badly, or did
    # not answer in time, is worth a warning, not an error of the server.
    tool_error_fields={"log_level": logging.WARNING},
    masks_mcp_errors=True,
)


def _too_old(version: str) -> bool:
    """Whether a fastmcp version (``4.1.6``, ``4.2.4.dev3``) is older than 4.2."""
    release = re.match(r"(\d+)\.(\d+)", version)
    return release is not None and (int(release[1]), int(release[2])) < (4, 2)


def install(server: FastMCP[Any], options: InstallOptions) -> None:
    """Add elicitkit's middleware to a fastmcp ``server`` (once).

    The options and errors are those of `elicitkit.install`, which calls this.

    Raises:
        TypeError: fastmcp is older than 4.2, whose server layer this relies on, or its
            server no longer holds the SDK server elicitkit installs in.
    """
    if _too_old(fastmcp.__version__):
        raise TypeError(
            f"Cannot install elicitkit on this FastMCP server: it is fastmcp "
            f"{fastmcp.__version__}, and elicitkit needs fastmcp 4.2 or newer, whose servers "
            "run on the official SDK's server layer as elicitkit expects. Upgrade it: "
            'pip install "fastmcp>=4.2,<5".'
        )
    _refuse_other_tasks(server)
    sdk_server = fastmcp_sdk_server(server)
    if sdk_server is None:
        raise TypeError(
            f"Cannot install elicitkit on this FastMCP server: fastmcp {fastmcp.__version__} "
            "no longer keeps the official SDK's server in FastMCP._mcp_server, where elicitkit "
            "adds its middleware. Use the fastmcp version elicitkit's fastmcp extra pins: "
            'pip install "fastmcp>=4.2,<5".'
        )
    policy = check_policy(options.on_unsupported, "install()")

    async def output_schema(name: str) -> Mapping[str, Any] | None:
        tool = await server.get_tool(name)
        return None if tool is None else tool.output_schema

    async def tool_function(name: str) -> object:
        # Asked of every tool call once a tool of this process uses @fill_missing, which may
        # be registered under any name. A tool registered on this server is found cheaply
        # (about 10 µs; the full lookup takes about 100, some 15 % of a call in memory), and
        # only a @fill_missing one, or one named like such a function (as a mounted server's
        # may be), is looked up as this request sees it (transforms, visibility, auth).
        registered = await server.local_provider.get_tool(name)
        if name not in fill.checked_tools and not hasattr(
            getattr(registered, "fn", None), ARGUMENTS_CHECK
        ):
            return None
        tool = await server.get_tool(name)
        return getattr(tool, "fn", None)

    added = install_in_chain(
        sdk_server.middleware,
        replace(_HOST, output_schema=output_schema, tool_function=tool_function),
        replace(options, on_unsupported=policy),
        audience=server.name,
        sdk_default_policy=fastmcp_default_policy(server),
    )
    if added and policy == "ask_model":
        # No output schema: it returns the result of the tool it answers for.
        server.tool(name=ANSWER_TOOL, description=ANSWER_TOOL_DESCRIPTION, output_schema=None)(
            answer_form
        )
    if not any(isinstance(middleware, _Passage) for middleware in server.middleware):
        server.add_middleware(_Passage(server))


def _refuse_other_tasks(server: FastMCP[Any]) -> None:
    """Refuse a server that also registered another Tasks extension (fastmcp-tasks').

    Both would serve ``tasks/get``, ``tasks/update`` and ``tasks/cancel``: elicitkit's
    middleware answers them first, so the other's tasks could never be polled.

    Raises:
        TypeError: The server has another extension ``io.modelcontextprotocol/tasks``.
    """
    other = fastmcp_extensions(server).get(TASKS_EXTENSION)
    if other is not None:
        raise TypeError(
            f"Cannot use elicitkit on the FastMCP server {server.name!r} together with "
            f"another implementation of the {TASKS_EXTENSION} extension "
            f"({type(other).__module__}.{type(other).__qualname__}, registered with "
            "add_extension(); fastmcp-tasks' TasksExtension is one): both serve tasks/get, "
            "tasks/update and tasks/cancel, and a client's task requests would reach only "
            "elicitkit. Drop that extension and start tasks with elicitkit's go_async() in "
            "the tools, or do not install elicitkit on this server."
        )


def _protocol_error_in_task(error: ToolError) -> MCPError | None:
    """The ``MCPError`` a tool running as a task raised, which fastmcp made ``error``.

    fastmcp turns an ``MCPError`` raised in a tool into a tool error (``isError``), on
    purpose: in a call, that is its way. A task tells the two apart on the wire, though
    (``completed`` with ``isError``, or ``failed`` with the JSON-RPC error), and the body
    meant the latter. Outside a task, or for any other exception: ``None``.
    """
    run = current_run.get(None)
    cause = error.__cause__
    if run is None or not run.delivery.in_task or not isinstance(cause, MCPError):
        return None
    return cause


class _Passage(Middleware):
    """elicitkit's fastmcp middleware: what the SDK-layer middleware cannot do from outside.

    * It sends `require_url`'s -32042 error on as that JSON-RPC error. The error reaches it
      as a fastmcp ``ToolError``, which fastmcp would turn into a tool result with the
      error's text; raised as a plain ``MCPError`` instead, it passes fastmcp's handler and
      the SDK sends it as -32042. Likewise an ``MCPError`` a tool raised after
      ``go_async()``: the task ends ``failed`` with it. Every other error is left as
      fastmcp made it.
    * A request that reaches this server's handlers without elicitkit's SDK-layer
      middleware came through a server that mounts this one and that elicitkit is not
      installed on: it notes that, so ``ask()`` says so instead of "not installed".
    """

    def __init__(self, server: FastMCP[Any]) -> None:
        self._server = server
        self._name = server.name

    async def on_call_tool(
        self,
        context: MiddlewareContext[types.CallToolRequestParams],
        call_next: CallNext[types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        # An extension registered after install() is refused at the first call.
        try:
            _refuse_other_tasks(self._server)
        except TypeError as error:
            raise ToolError(str(error)) from None
        with self._noting_the_path():
            try:
                return await call_next(context)
            except UrlRequired as error:
                raise MCPError.from_error_data(error.error) from None
            except ToolError as error:
                protocol = _protocol_error_in_task(error)
                if protocol is None:
                    raise
                # Raised on, it passes fastmcp's handler to elicitkit's task runner, which
                # records it as the task's error: the task ends failed, as the extension
                # says of a JSON-RPC error, not completed with a tool error.
                raise protocol from None

    async def on_get_prompt(
        self,
        context: MiddlewareContext[types.GetPromptRequestParams],
        call_next: CallNext[types.GetPromptRequestParams, PromptResult],
    ) -> PromptResult:
        with self._noting_the_path():
            return await super().on_get_prompt(context, call_next)

    async def on_read_resource(
        self,
        context: MiddlewareContext[types.ReadResourceRequestParams],
        call_next: CallNext[types.ReadResourceRequestParams, ResourceResult],
    ) -> ResourceResult:
        with self._noting_the_path():
            return await super().on_read_resource(context, call_next)

    @contextmanager
    def _noting_the_path(self) -> Generator[None]:
        if current_run.get(None) is not None:  # the serving server has elicitkit
            yield
            return
        token = reached_through_uninstalled.set(self._name)
        try:
            yield
        finally:
            reached_through_uninstalled.reset(token)
