"""Adapters that make ``ask()`` work inside the tools of a server built with an MCP SDK."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TypeGuard, TypeVar

from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.store import OutcomeStore
from elicitkit._replay.tasks import TaskStore
from elicitkit._runtime.context import surface_without_a_call
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit._runtime.url_routes import UrlRouter
from elicitkit.integrations._default_policy import watch as watch_default_policies
from elicitkit.integrations._options import InstallOptions
from elicitkit.integrations._uninstalled import readable_anywhere

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from mcp.server.mcpserver import MCPServer

ServerT = TypeVar("ServerT")

# ask() in a tool of a server without install() still reaches the client readably.
surface_without_a_call(readable_anywhere)
# Servers built from now on can be told to have kept the SDK's per-process key.
watch_default_policies()


def install(
    server: ServerT,
    *,
    store: OutcomeStore | None = None,
    limits: ReplayLimits | None = None,
    url_router: UrlRouter | None = None,
    tasks: TaskStore | None = None,
    on_unsupported: OnUnsupported = "raise",
    task_resume_after: float | None = None,
) -> ServerT:
    """Make ``ask()`` work in every tool of ``server``.

    Call it once, after creating the server; calling it again changes nothing. Tools need no
    ``ctx`` parameter: ``ask()`` finds the call it runs in.

    Args:
        server: An ``mcp.server.mcpserver.MCPServer`` (official SDK, mcp 2.3+) or a
            ``fastmcp.FastMCP`` (fastmcp 4.2+, the ``fastmcp`` extra).
        store: Where completed dialogues are recorded on 2026-07-28, so that a replayed
            final round gets the recorded outcome instead of running the handler again.
            Default: the store ``$ELICITKIT_STORE`` names (``sqlite:///path``,
            ``redis://...``, ``memory://``; ``$ELICITKIT_REDIS_URL`` is another name for a
            Redis URL), else a ``SqliteStore`` in the server's file in this user's state
            folder, which every process of the server on this machine shares (see
            "Records and scale" in the docs).
        limits: The caps on one dialogue (default: `ReplayLimits()`).
        url_router: Where this server routes URL-mode completions on the 2025 eras
            (``complete_url`` finds it). Default: with a Redis URL in ``ELICITKIT_STORE`` (and no
            `elicitkit.url.use_url_router` choice), a ``RedisUrlRouter`` at that URL;
            else the process default of the moment (`use_url_router`, initially a
            ``LocalUrlRouter``). Installing two servers keeps both routable.
        tasks: Where the tasks of ``go_async()`` are kept on 2026-07-28 (default: beside
            the dialogues, as ``store`` places them: a ``SqliteTaskStore`` in the same
            file, a ``RedisTaskStore`` on the same Redis, or a ``MemoryTaskStore``). A task's
            work runs in legs on Docket (the ``tasks`` extra): on that Redis, shared by
            every worker, else embedded in each process.
        on_unsupported: What ``ask()`` does in this server's tools when the client cannot
            show forms (each ``ask()`` may choose its own): ``"raise"`` (the default:
            ``ElicitationUnsupported``), ``"ask_model"`` (the tool returns the questions
            and a sealed ticket to the model, which asks the user and calls the companion
            tool ``answer_form`` that this registers; the same form checks the answers,
            and the result says ``answered_by="model"``), or ``"defaults"`` (the form's
            defaults, when every required field has one). See "When the client cannot
            ask" in the docs.
        task_resume_after: Seconds after which a task's leg whose worker went silent
            (killed, stopped by a deploy, stalled) is started again on a live worker.
            Default: ``$ELICITKIT_TASK_RESUME_AFTER``, else 10 seconds (see "Long work" in
            the docs).

    With the environment variable ``MCP_REQUEST_STATE_KEY`` set (32 bytes or more, the same
    in every worker), ``requestState`` is sealed with it instead of the server's own
    process-local key, so a retry may reach any worker. Without it, a server that kept its
    SDK's default (per-process) policy and records in a ``SqliteStore`` seals with the key
    file beside the records (owner-only), which every process on the machine reads.

    Returns:
        The same server, so ``server = install(MCPServer("name"))`` reads well.

    Raises:
        TypeError: ``server`` is not a server elicitkit can install on,
            ``MCP_REQUEST_STATE_KEY`` is shorter than 32 bytes, ``ELICITKIT_STORE`` names
            no store elicitkit can open, or the key file is unreadable or readable by
            others than its owner.
    """
    options = InstallOptions(
        store=store,
        limits=limits,
        url_router=url_router,
        tasks=tasks,
        on_unsupported=on_unsupported,
        task_resume_after=task_resume_after,
    )
    target: object = server
    if _is_mcp_server(target):
        from elicitkit.integrations import mcp  # noqa: PLC0415

        mcp.install(target, options)
        return server
    if _is_fastmcp_server(target):
        from elicitkit.integrations import fastmcp  # noqa: PLC0415

        fastmcp.install(target, options)
        return server
    raise TypeError(_unsupported_server(server))


def _is_mcp_server(server: object) -> TypeGuard[MCPServer[Any]]:
    # Imported here so that `import elicitkit` does not pay for importing an SDK.
    from mcp.server.mcpserver import MCPServer  # noqa: PLC0415

    return isinstance(server, MCPServer)


def _is_fastmcp_server(server: object) -> TypeGuard[FastMCP[Any]]:
    # A FastMCP server exists only if fastmcp was imported: never import it here, since it
    # is an optional extra (and slow to import).
    module = sys.modules.get("fastmcp.server.server")
    server_class: object = getattr(module, "FastMCP", None)
    return isinstance(server_class, type) and isinstance(server, server_class)


def client_target(server: Any) -> Any:
    """What ``mcp.Client`` connects to in memory for ``server``.

    ``mcp.Client`` takes the official SDK's servers; a ``FastMCP`` server is served by the
    SDK server it holds (fastmcp's own in-memory transport connects to the same one).
    """
    if _is_fastmcp_server(server):
        from elicitkit.integrations._sdk_private import fastmcp_sdk_server  # noqa: PLC0415

        inner = fastmcp_sdk_server(server)
        if inner is not None:
            return inner
    return server


def _unsupported_server(server: object) -> str:
    kind: type[object] = type(server)
    return (
        f"Cannot install elicitkit on a {kind.__module__}.{kind.__qualname__}: install() takes "
        "the official SDK's server, mcp.server.mcpserver.MCPServer, or fastmcp's, "
        "fastmcp.FastMCP. Pass one of those."
    )
