"""The client's side of the Tasks extension, on the official SDK's client: raw ``tasks/*``.

The SDK's client (mcp 2.3) knows no task of 2026-07-28, so this module gives it the wire:
`TasksExtension` declares ``io.modelcontextprotocol/tasks`` on every request and claims
the ``CreateTaskResult`` of ``tools/call`` (``resultType: "task"``) as `CreatedTask`, and
`get_task`, `update_task` and `cancel_task` send the extension's requests (with the
``Mcp-Name`` header the extension requires over HTTP) and return their raw results.
"""

from __future__ import annotations

from typing import Any, Literal

import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from pydantic import BaseModel, ConfigDict

from elicitkit._replay.tasks import TASKS_EXTENSION


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
    """Declares the Tasks extension, and claims ``CreateTaskResult`` on ``tools/call``."""

    identifier = TASKS_EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_unresolved)]


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


async def task_request(client: Client, method: str, task_id: str, **params: Any) -> dict[str, Any]:
    """Send ``tasks/<method>`` for ``task_id`` and return the raw result (wire JSON)."""
    request = _TaskRequest(method=method, params=_TaskParams(task_id=task_id, **params))
    result = await client.session.send_request(request, _Raw)
    return result.model_dump()


async def get_task(client: Client, task_id: str) -> dict[str, Any]:
    """``tasks/get``: the task's ``DetailedTask``."""
    return await task_request(client, "tasks/get", task_id)


async def update_task(client: Client, task_id: str, responses: dict[str, Any]) -> dict[str, Any]:
    """``tasks/update``: answer the task's ``inputRequests`` (by key)."""
    return await task_request(client, "tasks/update", task_id, input_responses=responses)


async def cancel_task(client: Client, task_id: str) -> dict[str, Any]:
    """``tasks/cancel``: ask the server to cancel the task."""
    return await task_request(client, "tasks/cancel", task_id)
