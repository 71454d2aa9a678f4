"""elicitkit on the official MCP Python SDK (``mcp`` 2.3+): ``install(MCPServer)``.

One middleware in the SDK's server layer does everything. fastmcp 4 serves through that same
layer (its low-level server is the SDK's), so `elicitkit.integrations.fastmcp` installs this
very middleware, described by another `Host`. The middleware (`_router.ElicitkitMiddleware`)
is a short router over one handler per feature: the Tasks extension's requests, the
``tools/list`` of a server with ``answer_form``, a call of ``answer_form``, the
``@fill_missing`` check of a tool's arguments, and the asking call itself:

* it records the call in elicitkit's context variable, so ``ask()`` needs no ``ctx``
  parameter (the SDK has no context variable of its own);
* on handshake eras (2025-06-18, 2025-11-25) ``ask()`` sends ``elicitation/create`` on the
  call's own stream and waits for the answer (`_channel`);
* on 2026-07-28 it turns the run-ending `NeedInput` into an ``InputRequiredResult`` and
  reads the answers back on the client's retry. The SDK's ``RequestStateBoundary`` (installed
  by every ``MCPServer``) seals the ``requestState`` with AES-GCM and binds it to the tool
  name, the arguments, the server and the principal, with a 10-minute expiry; this
  middleware sits inside it, so it only ever sees state the server itself minted;
* on 2026-07-28 it also completes each dialogue at most once, through an `OutcomeStore`
  (`elicitkit._replay.once.AtMostOnce` keeps the books; `_outcomes` tells it how the SDK's
  results and errors become records and back).

It serves ``tools/call``, ``prompts/get`` and ``resources/read``: the methods whose handlers
may ask (the SDK's multi-round carriers). This module installs it: `install` for an
``MCPServer``, `install_in_chain` for any server on the SDK's layer.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mcp.server.context import ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.once import Codec
from elicitkit._replay.sqlite_store import SqliteStore
from elicitkit._replay.tasks import MemoryTaskStore
from elicitkit._runtime.model_listing import ANSWER_TOOL, ANSWER_TOOL_DESCRIPTION
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit._runtime.unsupported import check_policy
from elicitkit._runtime.url_routes import installed_with
from elicitkit.integrations._answer_form import Companion, answer_form
from elicitkit.integrations._default_policy import made_by_default
from elicitkit.integrations._environment import (
    defaults_from_environment,
    docket_url,
    seal_with_shared_key,
    split_memory,
    task_resume_after,
)
from elicitkit.integrations._host import Host
from elicitkit.integrations._options import InstallOptions
from elicitkit.integrations._router import ElicitkitMiddleware
from elicitkit.integrations._sdk_private import (
    state_security,
    state_ttl,
    tool_function,
    tool_uses_resolve,
)

__all__ = ["ElicitkitMiddleware", "Host", "install", "install_in_chain"]

logger = logging.getLogger(__name__)

_DEFAULT_STATE_TTL = 600.0


def install(server: MCPServer[Any], options: InstallOptions) -> None:
    """Add elicitkit's middleware to ``server`` (once), with `elicitkit.install`'s options.

    Args:
        server: The server.
        options: The options given to `elicitkit.install`, which calls this (its docstring
            says what each does). ``on_unsupported="ask_model"`` also registers the
            ``answer_form`` tool.

    Raises:
        TypeError: The server has no ``RequestStateBoundary`` (someone removed it), so the
            answers carried between rounds on 2026-07-28 would travel unsealed.
    """
    host = Host(
        name="MCPServer",
        tool_error=ToolError,
        crash_text=lambda tool: f"Error executing tool {tool}",
        refusal=functools.partial(_resolve_refusal, server),
        output_schema=functools.partial(_mcp_output_schema, server),
        tool_function=functools.partial(_mcp_tool_function, server),
    )
    policy = check_policy(options.on_unsupported, "install()")
    added = install_in_chain(
        server.middleware,
        host,
        replace(options, on_unsupported=policy),
        audience=server.name,
    )
    if added and policy == "ask_model":
        server.add_tool(
            answer_form,
            name=ANSWER_TOOL,
            description=ANSWER_TOOL_DESCRIPTION,
            # It returns the result of the tool it answers for, whatever that tool's shape.
            structured_output=False,
        )


async def _mcp_tool_function(server: MCPServer[Any], name: str) -> object:
    return tool_function(server, name)


async def _mcp_output_schema(server: MCPServer[Any], name: str) -> Mapping[str, Any] | None:
    for tool in await server.list_tools():
        if tool.name == name:
            return tool.output_schema
    return None


def install_in_chain(
    chain: list[ServerMiddleware[Any]],
    host: Host,
    options: InstallOptions,
    *,
    audience: str | None = None,
    sdk_default_policy: bool = False,
) -> bool:
    """Append elicitkit's middleware to a server's SDK middleware ``chain`` (once).

    Args:
        chain: The server's SDK middleware list, holding its ``RequestStateBoundary``.
        host: What the server is.
        options: `elicitkit.install`'s options, ``on_unsupported`` already checked.
        audience: The server's name: the audience the SDK's boundary seals for by default.
        sdk_default_policy: The server seals with its SDK's default policy (a key of this
            process), as its SDK says; else judged by `made_by_default`.

    Returns:
        Whether the middleware was added (``False``: it was already installed).

    Raises:
        TypeError: The chain has no ``RequestStateBoundary``, or elicitkit is already in it
            with another store, limits, URL router or policy.
    """
    store, limits, url_router = options.store, options.limits, options.url_router
    tasks, on_unsupported = options.tasks, options.on_unsupported
    resume_after = task_resume_after(options.task_resume_after)  # refused before anything
    installed = next((m for m in chain if isinstance(m, ElicitkitMiddleware)), None)
    if installed is not None:
        if (
            (store is not None and store is not installed.store)
            or (limits is not None and limits != installed.limits)
            or (url_router is not None and url_router is not installed.router)
            or (tasks is not None and tasks is not installed.tasks.backend)
        ):
            # Silently keeping the first store would break at-most-once across workers.
            raise TypeError(
                f"Cannot install elicitkit on this {host.name} again with another store or "
                "limits: it is already installed, and its dialogues are recorded in the first "
                "store. Call install(server, store=..., limits=...) once, before serving."
                if url_router is None or url_router is installed.router
                else f"Cannot install elicitkit on this {host.name} again with another "
                "URL router: it is already installed, and the URL elicitations it "
                "opened are routed through the first. Call install(server, url_router=...) "
                "once, before serving."
            )
        if on_unsupported not in ("raise", installed.on_unsupported):
            raise TypeError(
                f"Cannot install elicitkit on this {host.name} again with "
                f"on_unsupported={on_unsupported!r}: it is already installed with "
                f"{installed.on_unsupported!r}. Call install(server, on_unsupported=...) once, "
                "before serving."
            )
        return False
    boundary = next(
        (middleware for middleware in chain if isinstance(middleware, RequestStateBoundary)),
        None,
    )
    if boundary is None:
        raise TypeError(
            f"Cannot install elicitkit on this {host.name}: its middleware has no "
            "RequestStateBoundary, so answers carried between rounds would travel unsealed. "
            f"Keep the boundary {host.name} installs by default."
        )
    # Configuration shared by every worker: the dialogue store, the router, the sealing key.
    # Every record kind follows the one setting, or `tasks/get` on another worker would not
    # find a task this one started.
    given_router = url_router
    store, url_router, tasks = defaults_from_environment(
        store, url_router, tasks, server_name=audience
    )
    # A server that kept the SDK's per-process key seals with the key beside its record
    # file, so every process on the machine opens the states and tickets of the others.
    default_policy = sdk_default_policy or made_by_default(state_security(boundary))
    beside = store.path if isinstance(store, SqliteStore) and default_policy else None
    boundary = seal_with_shared_key(chain, boundary, audience=audience, beside=beside)
    if url_router is not None:
        installed_with(url_router, placed=url_router is not given_router)
    # The record must outlive every state minted before it: the state's lifetime, plus the
    # minute of clock skew the boundary tolerates.
    keep = state_ttl(boundary, _DEFAULT_STATE_TTL) + 60.0
    split = split_memory(store)
    if split is not None:
        logger.warning("%s", split)
    # Records and tickets are sealed as requestState is: the server's own codec (its key,
    # or the one every process shares) when the policy can be read; else a key of this
    # process, which serves one process.
    security = state_security(boundary)
    codec = security.codec if security is not None else RequestStateSecurity.ephemeral().codec
    engine = TaskEngine.of(MemoryTaskStore() if tasks is None else tasks, codec=codec)
    if resume_after is not None:
        engine.lease = resume_after
    companion = None
    if on_unsupported == "ask_model":
        companion = _companion(security, codec, host, audience=audience, ttl=keep - 60.0)
    # Appended, so it runs inside the boundary: it sees requestState already verified.
    chain.append(
        ElicitkitMiddleware(
            host,
            store=store,
            limits=ReplayLimits() if limits is None else limits,
            keep=keep,
            url_router=url_router,
            tasks=engine,
            on_unsupported=on_unsupported,
            companion=companion,
            codec=codec,
            docket_url=docket_url(tasks),
            docket_name=f"elicitkit-{audience or 'server'}",
        )
    )
    return True


def _companion(
    security: RequestStateSecurity | None,
    codec: Codec,
    host: Host,
    *,
    audience: str | None,
    ttl: float,
) -> Companion:
    """``answer_form``'s tickets, sealed as the server seals its ``requestState`` (``codec``).

    A ticket lives as long as a state, so the outcome store outlives it (``keep``).
    """
    audience = security.audience if security is not None and security.audience else audience

    async def no_schema(_name: str) -> Mapping[str, Any] | None:
        return None

    return Companion(
        codec,
        ttl=ttl,
        audience=audience,
        security=security,
        output_schema=host.output_schema or no_schema,
    )


def _resolve_refusal(server: MCPServer[Any], ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Refuse ask() in a tool that also uses the SDK's Resolve (they cannot share a call)."""
    if ctx.method != "tools/call":
        return None
    name = str((ctx.params or {}).get("name"))
    if not tool_uses_resolve(server, name):
        return None
    return (
        f"The tool {name!r} uses both the SDK's Resolve(...) parameters and elicitkit's "
        "ask(), which cannot share one call: on MCP 2026-07-28 both carry their progress "
        "in the one requestState, and the user would be asked the same questions over "
        "and over. Ask every question with ask() or ask_all() in the tool body, or only "
        "with Resolve(...)."
    )
