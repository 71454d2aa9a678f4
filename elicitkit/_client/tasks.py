"""The client's side of the Tasks extension, on the official SDK's client: raw ``tasks/*``.

The SDK's client (mcp 2.3) knows no task of 2026-07-28, so this module gives it the wire:
`TasksExtension` declares ``io.modelcontextprotocol/tasks`` on every request and claims
the ``CreateTaskResult`` of ``tools/call`` (``resultType: "task"``) as `CreatedTask`, and
`get_task`, `update_task` and `cancel_task` send the extension's requests (with the
``Mcp-Name`` header the extension requires over HTTP) and return their raw results.

`follow` follows a task to its end: it polls ``tasks/get``, answers each new
``inputRequests`` entry once through ``tasks/update``, and sends ``tasks/cancel`` (shielded,
bounded) when it is cancelled. The testing kit's ``connect()`` and ``elicitkit try`` both
follow tasks with it; each says how to answer a question and how long to wait between polls.
The SDK drops the extension from what a 2025 session declares (its claim is 2026-07-28's), so
a client may pass it whatever the protocol.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, cast

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The extension's identifier (the server's side spells it in ``elicitkit._replay.tasks``)."""

TERMINAL = ("completed", "failed", "cancelled")
"""The statuses a task never leaves."""

CANCEL_WITHIN = 5.0
"""Real seconds `follow` waits for the answer to its ``tasks/cancel`` before it gives up."""


class CreatedTask(types.Result):
    """A ``CreateTaskResult``: the call goes on as a task (fields as on the wire)."""

    model_config = ConfigDict(extra="allow")

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


async def _unresolved(result: CreatedTask, context: ClaimContext) -> types.CallToolResult:  # noqa: ARG001
    raise AssertionError(  # call_tool(..., allow_claimed=True) returns the claimed result
        "call tools with allow_claimed=True: a task is followed by the caller"
    )


class TasksExtension(ClientExtension):
    """Declares the Tasks extension, and claims ``CreateTaskResult`` on ``tools/call``.

    A subclass that follows the task itself overrides `follow_created`.
    """

    identifier = TASKS_EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        """The one claim: ``resultType: "task"`` on ``tools/call``, read as `CreatedTask`."""
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.follow_created)]

    async def follow_created(
        self, created: CreatedTask, context: ClaimContext
    ) -> types.CallToolResult:
        """Turn the task ``created`` into the call's result (here: refuse; see `claims`)."""
        return await _unresolved(created, context)


class _TaskParams(types.RequestParams):
    model_config = ConfigDict(extra="allow")

    task_id: str
    input_responses: dict[str, Any] | None = None


class _TaskRequest(types.Request[_TaskParams, str]):
    method: str
    params: _TaskParams
    name_param = "taskId"  # the extension's Mcp-Name routing header


class _Raw(BaseModel):
    """Any result, kept as it came (the SDK's client reads results into models)."""

    model_config = ConfigDict(extra="allow")


async def task_request(
    client: Client | ClientSession, method: str, task_id: str, **params: Any
) -> dict[str, Any]:
    """Send ``tasks/<method>`` for ``task_id`` and return the raw result (wire JSON)."""
    session = client.session if isinstance(client, Client) else client
    request = _TaskRequest(method=method, params=_TaskParams(task_id=task_id, **params))
    result = await session.send_request(request, _Raw)
    return result.model_dump()


async def get_task(client: Client | ClientSession, task_id: str) -> dict[str, Any]:
    """``tasks/get``: the task's ``DetailedTask``."""
    return await task_request(client, "tasks/get", task_id)


async def update_task(
    client: Client | ClientSession, task_id: str, responses: dict[str, Any]
) -> dict[str, Any]:
    """``tasks/update``: answer the task's ``inputRequests`` (by key)."""
    return await task_request(client, "tasks/update", task_id, input_responses=responses)


async def cancel_task(client: Client | ClientSession, task_id: str) -> dict[str, Any]:
    """``tasks/cancel``: ask the server to cancel the task."""
    return await task_request(client, "tasks/cancel", task_id)


Respond = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""Answers one ``inputRequests`` entry (``method`` and ``params``) with its response (wire
JSON), or ``None`` to leave it unanswered."""

Pause = Callable[[dict[str, Any]], Awaitable[None]]
"""Waits before the next ``tasks/get``, given the task the last one returned."""


async def follow(
    client: Client | ClientSession,
    created: CreatedTask,
    respond: Respond,
    *,
    pause: Pause,
    seen: Callable[[dict[str, Any]], None] | None = None,
    cancelled: Callable[[bool], None] | None = None,
) -> dict[str, Any]:
    """Follow the task ``created`` until it ends; return its last ``DetailedTask``.

    Polls ``tasks/get``, handing each task it returns to ``seen``; answers each new
    ``inputRequests`` entry once with ``respond`` (a poll shows a question again until its
    answer is taken), sending the answers through ``tasks/update`` and polling again at
    once; otherwise waits with ``pause``. The task returned is ``completed``, ``failed`` or
    ``cancelled``.

    Cancelled meanwhile, it sends ``tasks/cancel`` (shielded, and given `CANCEL_WITHIN`
    real seconds), tells ``cancelled`` whether the server acknowledged it, and lets the
    cancellation go on.
    """
    session = client.session if isinstance(client, Client) else client
    task_id = created.task_id
    answered: set[str] = set()
    try:
        while True:
            task = await get_task(session, task_id)
            if seen is not None:
                seen(task)
            if task.get("status") in TERMINAL:
                return task
            requests: dict[str, Any] = task.get("inputRequests") or {}
            answers: dict[str, Any] = {}
            for key, request in requests.items():
                if key in answered:
                    continue
                answered.add(key)
                entry = cast("dict[str, Any]", request) if isinstance(request, dict) else {}
                answer = await respond(dict(entry))
                if answer is not None:
                    answers[key] = answer
            if answers:
                await update_task(session, task_id, answers)
                continue
            await pause(task)
    except anyio.get_cancelled_exc_class():
        acknowledged = await _cancel(session, task_id)
        if cancelled is not None:
            cancelled(acknowledged)
        raise


async def _cancel(session: ClientSession, task_id: str) -> bool:
    """Send ``tasks/cancel`` from a cancelled scope; whether the server acknowledged it.

    The wait bounds real I/O (a server that does not answer), so it is on the event loop's
    clock, not elicitkit's (see `elicitkit._clock`).
    """
    with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_WITHIN):
        try:
            await cancel_task(session, task_id)
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False  # the task is gone, or the connection is: nothing left to cancel
        return True
    return False  # no answer in time


def call_result(task: dict[str, Any]) -> types.CallToolResult:
    """The call's result of an ended task: a failed one raises its JSON-RPC error.

    A cancelled task is an error result that says so (its ``statusMessage``).

    Raises:
        MCPError: The task failed.
    """
    status = task.get("status")
    if status == "failed":
        raise MCPError.from_error_data(types.ErrorData.model_validate(task["error"]))
    if status == "cancelled":
        text = task.get("statusMessage") or "The task was cancelled."
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(text))], is_error=True
        )
    return types.CallToolResult.model_validate(task.get("result") or {})
