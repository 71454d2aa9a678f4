"""The client's side of the Tasks extension, on the official SDK's client: raw ``tasks/*``.

The SDK's client (mcp 2.3) knows no task of 2026-07-28, so this module gives it the wire:
`TasksExtension` declares ``io.modelcontextprotocol/tasks`` on every request and claims
the ``CreateTaskResult`` of ``tools/call`` (``resultType: "task"``) as `CreatedTask`, and
`get_task`, `update_task` and `cancel_task` send the extension's requests (with the
``Mcp-Name`` header the extension requires over HTTP) and return their raw results.

`FollowingTasks` is the same extension for ``connect()``: ``call_tool`` follows the task
to its end with `follow_task` (it polls, answers each new ``inputRequests`` entry through
the scripted user, sends ``tasks/cancel`` when the call is cancelled) and returns the
tool's result, so a long tool is tested like a short one; `assert_steps_run_once` follows
the tasks of the rounds it drives with `follow_task` too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
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


Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one ``elicitation/create`` (its params) with an ``ElicitResult`` (wire JSON)."""


class FollowingTasks(TasksExtension):
    """The Tasks extension for ``connect()``: ``call_tool`` follows a task to its end."""

    def __init__(self, answer: Answer, *, poll: float = 0.02) -> None:
        """Answer in-task questions with ``answer``; poll every ``poll`` seconds at most."""
        self._answer = answer
        self._poll = poll

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self._follow)]

    async def _follow(self, created: CreatedTask, context: ClaimContext) -> types.CallToolResult:
        return await follow_task(context.session, created, self._answer, poll=self._poll)


async def follow_task(
    client: Client | ClientSession, created: CreatedTask, answer: Answer, *, poll: float = 0.02
) -> types.CallToolResult:
    """Follow the task ``created`` to its end, answering its questions with ``answer``.

    Polls ``tasks/get`` (every ``poll`` seconds at most), answers each new
    ``inputRequests`` entry once through ``tasks/update``, and returns the tool's result; a
    failed task raises its JSON-RPC error. Cancelled meanwhile, it sends ``tasks/cancel``.
    """
    session = client.session if isinstance(client, Client) else client
    task_id = created.task_id
    answered: set[str] = set()
    try:
        while True:
            task = await get_task(session, task_id)
            ended = _ended(task)
            if ended is not None:
                return ended
            requests: dict[str, Any] = task.get("inputRequests") or {}
            # Each key once: a poll shows a question again until its answer is taken.
            fresh = {key: value for key, value in requests.items() if key not in answered}
            if fresh:
                answers = {
                    key: await answer(dict(request.get("params") or {}))
                    for key, request in fresh.items()
                }
                answered.update(answers)
                await update_task(session, task_id, answers)
                continue
            interval = (created.poll_interval_ms or 1000) / 1000
            await anyio.sleep(min(interval, poll))
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            await cancel_task(session, task_id)
        raise


def _ended(task: dict[str, Any]) -> types.CallToolResult | None:
    """The call's result of a terminal task (a failed one raises its error), else ``None``."""
    status = task.get("status")
    if status == "completed":
        return types.CallToolResult.model_validate(task.get("result") or {})
    if status == "failed":
        raise MCPError.from_error_data(types.ErrorData.model_validate(task["error"]))
    if status == "cancelled":
        text = task.get("statusMessage") or "The task was cancelled."
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(text))], is_error=True
        )
    return None
