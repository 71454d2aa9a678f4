"""The Tasks extension on the SDK's server layer: its requests, its advertisement, its results.

``tasks/get``, ``tasks/update`` and ``tasks/cancel`` are answered by elicitkit's middleware
before the SDK looks the method up. ``MCPServer`` also has a public extension interface
(``MCPServer(extensions=[...])``, whose ``MethodBinding`` adds request methods), but it is
fixed when the server is constructed, and ``install(server)`` comes after: so the
middleware list, public too, is the seam. Everything here goes through `TaskEngine`, so an
official implementation of the extension can replace this module without touching
``go_async()``.

Every request is checked as the extension says: the client must declare the extension on
it (else -32021 naming the extension), ``params.taskId`` must be a string, over HTTP the
``Mcp-Name`` header must carry the same task id (else -32020), and a task that is unknown,
expired or another caller's is "not found" (-32602), never told apart.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol, cast

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.request_state import authenticated_principal
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import MCP_NAME_HEADER, decode_header_value
from pydantic import BaseModel

from elicitkit._replay.tasks import TASKS_EXTENSION, TaskRecord, detailed_task, wire_task
from elicitkit._runtime.task_engine import TaskEngine

logger = logging.getLogger("elicitkit")

# The longest task id looked up: elicitkit's are 22 characters; a megabyte of id is refused
# before it reaches a store.
_MAX_TASK_ID = 256
# An update answers at most this many questions at once (a task asks a handful).
_MAX_RESPONSES = 256


class TaskLegStarter(Protocol):
    """Queues the legs of tasks (`elicitkit.integrations._task_legs.TaskLegs`)."""

    def can_run(self) -> bool:
        """Whether this server can run tasks at all (Docket is installed)."""
        ...

    def why_not(self) -> str:
        """Why this server cannot run tasks at all (a sentence, with the fix)."""
        ...

    def saw(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> None:
        """Remember a request's context, for a leg delivered here from elsewhere."""
        ...

    async def start(
        self, record: TaskRecord, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> None:
        """Queue ``record``'s next leg, to run with request ``ctx``'s context."""
        ...

    async def as_it_is(
        self, result: HandlerResult, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """A replayed ``CreateTaskResult`` as the task is now (its leg restarted if lost)."""
        ...


def declares_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether the client declared the Tasks extension on this request."""
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return extensions is not None and TASKS_EXTENSION in extensions


async def serve_task_request(
    ctx: ServerRequestContext[Any, Any],
    engine: TaskEngine,
    legs: TaskLegStarter | None = None,
    call_next: CallNext | None = None,
) -> dict[str, Any]:
    """Answer one ``tasks/get``, ``tasks/update`` or ``tasks/cancel`` request.

    Raises:
        MCPError: The extension's errors (-32021, -32020, -32602).
    """
    method = ctx.method
    if not declares_tasks(ctx):
        raise MCPError(
            code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=(
                f"{method} is part of the {TASKS_EXTENSION} extension, which the client did "
                "not declare on this request. Declare the extension in the request's client "
                "capabilities."
            ),
            data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
        )
    params: Mapping[str, Any] = ctx.params or {}
    task_id = params.get("taskId")
    if not isinstance(task_id, str) or not 0 < len(task_id) <= _MAX_TASK_ID:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"{method} needs params.taskId: the id of a task, a string.",
        )
    headers = _headers(ctx)
    if headers is not None:
        named = decode_header_value(headers.get(MCP_NAME_HEADER))
        if named is None or named.strip() != task_id:
            raise MCPError(
                code=types.HEADER_MISMATCH,
                message=(
                    f"The Mcp-Name header of this {method} request does not match its "
                    "params.taskId: over HTTP a task request names its task in both. Send "
                    "Mcp-Name: <taskId>."
                ),
            )
    try:
        record, start = await _serve(ctx, engine, method, task_id, params)
    except MCPError:
        raise
    except Exception as error:  # noqa: BLE001  (any store failure: the client is told)
        # One sentence to the client; the store's own words stay in the server's log.
        logger.error(  # noqa: TRY400  (one line: a store that is down fails many requests)
            "elicitkit's task store (%s) failed %s: %s",
            type(engine.backend).__name__,
            method,
            error,
        )
        raise MCPError(
            code=types.INTERNAL_ERROR,
            message=(
                f"{method} failed: the server's task store did not answer, so the task's "
                "state is unknown right now. Send the request again in a little while."
            ),
        ) from None
    if start and legs is not None and call_next is not None:
        # The last answer arrived, or the leg that should run lost its worker: queue it
        # here, with this request's context (its session, its capabilities).
        await legs.start(record, ctx, call_next)
    if method == "tasks/get":
        return {"resultType": "complete", **detailed_task(record)}
    return {"resultType": "complete"}


async def _serve(
    ctx: ServerRequestContext[Any, Any],
    engine: TaskEngine,
    method: str,
    task_id: str,
    params: Mapping[str, Any],
) -> tuple[TaskRecord, bool]:
    """The task after the request, and whether a leg of it should be queued now."""
    principal = authenticated_principal(ctx)
    if method == "tasks/get":
        record, due = await engine.look(task_id, principal)
        if record is None:
            raise _not_found(method)
        return record, due
    if method == "tasks/update":
        responses = params.get("inputResponses")
        if not isinstance(responses, Mapping) or len(responses) > _MAX_RESPONSES:  # pyright: ignore[reportUnknownArgumentType]
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=(
                    "tasks/update needs params.inputResponses: an object of at most "
                    f"{_MAX_RESPONSES} answers, keyed like the task's inputRequests."
                ),
            )
        found, completed = await engine.answer(
            task_id, principal, cast("Mapping[str, Any]", responses)
        )
        if found is None:
            raise _not_found(method)
        return found, completed or found.leg_lost
    cancelled = await engine.cancel(task_id, principal)
    if cancelled is None:
        raise _not_found(method)
    return cancelled, False


def _headers(ctx: ServerRequestContext[Any, Any]) -> Mapping[str, str] | None:
    """The HTTP request's headers (case-insensitive), or ``None`` off HTTP (stdio, memory).

    Over streamable HTTP the SDK gives the call its Starlette request as ``ctx.request``.
    """
    headers: object = getattr(ctx.request, "headers", None)
    return cast("Mapping[str, str]", headers) if isinstance(headers, Mapping) else None


def _not_found(method: str) -> MCPError:
    return MCPError(
        code=types.INVALID_PARAMS,
        message=(
            f"{method} failed: task not found (it never existed, has expired, was lost by "
            "the server's task store, or belongs to another caller)."
        ),
    )


# The extension's own methods, answered here before the SDK looks them up.
TASK_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})


def with_tasks_extension(result: HandlerResult) -> HandlerResult:
    """Advertise the Tasks extension in a ``server/discover`` result (wire JSON)."""
    if isinstance(result, dict):
        capabilities = result.setdefault("capabilities", {})
        if isinstance(capabilities, dict):
            extensions = cast("dict[str, Any]", capabilities).setdefault("extensions", {})
            if isinstance(extensions, dict):
                cast("dict[str, Any]", extensions).setdefault(TASKS_EXTENSION, {})
    return result


def task_answer(record: TaskRecord) -> HandlerResult:
    """The call's answer when it became a task: the ``CreateTaskResult`` as wire JSON."""
    return {"resultType": "task", **wire_task(record)}


def created_task(result: HandlerResult) -> str | None:
    """The id of the task a ``CreateTaskResult`` (wire JSON) names, else ``None``."""
    if isinstance(result, dict) and result.get("resultType") == "task":
        task_id: object = result.get("taskId")
        return task_id if isinstance(task_id, str) else None
    return None


def task_result(result: HandlerResult) -> dict[str, Any]:
    """A completed task's ``result``: the tool's result as the call would have sent it."""
    if isinstance(result, BaseModel):
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dict(result or {})


def why_no_tasks(ctx: ServerRequestContext[Any, Any], *, modern: bool) -> str:
    """Why this call cannot become a task (completes "cannot follow a task (...)")."""
    if not modern:
        return f"it speaks MCP {ctx.protocol_version}, which has no Tasks extension"
    if ctx.method != "tools/call":
        return f"only a tool call can become a task, and this is {ctx.method}"
    return f"it did not declare the {TASKS_EXTENSION} extension on this request"


class TaskRequests:
    """The router's handler of the Tasks extension: its requests and its advertisement."""

    def __init__(self, engine: TaskEngine) -> None:
        """Serve the tasks that ``engine`` keeps."""
        self.engine = engine
        # Queues the legs the requests call for (set by the router, which makes both).
        self.legs: TaskLegStarter | None = None

    def claims(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """``tasks/get``, ``tasks/update``, ``tasks/cancel``, and ``server/discover``."""
        return ctx.method in TASK_METHODS or ctx.method == "server/discover"

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Answer a task request; add the extension to the server's ``server/discover``."""
        legs = self.legs
        if ctx.method in TASK_METHODS:
            if legs is not None:
                legs.saw(ctx, call_next)
            return await serve_task_request(ctx, self.engine, legs, call_next)
        result = await call_next(ctx)
        if legs is not None and not legs.can_run():
            return result  # tasks need Docket: a server without it offers none
        return with_tasks_extension(result)
