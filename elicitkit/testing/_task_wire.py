"""The testing kit's side of the Tasks extension: ``connect()`` follows a task to its end.

The wire itself (`TasksExtension`, `CreatedTask`, raw ``tasks/get``, ``tasks/update`` and
``tasks/cancel``, and `elicitkit._client.tasks.follow`, which follows a task) is the
client's, shared with ``elicitkit try``, and re-exported here for the kit's tests.

`FollowingTasks` is the extension for ``connect()``: ``call_tool`` follows the task to its
end with `follow_task` (it polls, answers each new ``inputRequests`` entry through the
scripted user, sends ``tasks/cancel`` when the call is cancelled) and returns the tool's
result, so a long tool is tested like a short one; `assert_steps_run_once` follows the
tasks of the rounds it drives with `follow_task` too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.extension import ClaimContext
from mcp.client.session import ClientSession

from elicitkit._client.tasks import (
    CreatedTask,
    TasksExtension,
    _Raw,  # pyright: ignore[reportPrivateUsage]
    _TaskParams,  # pyright: ignore[reportPrivateUsage]
    _TaskRequest,  # pyright: ignore[reportPrivateUsage]
    call_result,
    cancel_task,
    follow,
    get_task,
    task_request,
    update_task,
)

__all__ = [
    "Answer",
    "CreatedTask",
    "FollowingTasks",
    "TasksExtension",
    "_Raw",
    "_TaskParams",
    "_TaskRequest",
    "cancel_task",
    "follow_task",
    "get_task",
    "task_request",
    "update_task",
]

Answer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers one ``elicitation/create`` (its params) with an ``ElicitResult`` (wire JSON)."""


class FollowingTasks(TasksExtension):
    """The Tasks extension for ``connect()``: ``call_tool`` follows a task to its end."""

    def __init__(self, answer: Answer, *, poll: float = 0.02) -> None:
        """Answer in-task questions with ``answer``; poll every ``poll`` seconds at most."""
        self._answer = answer
        self._poll = poll

    async def follow_created(
        self, created: CreatedTask, context: ClaimContext
    ) -> types.CallToolResult:
        """Follow the task to its end (`follow_task`) and return the tool's result."""
        return await follow_task(context.session, created, self._answer, poll=self._poll)


async def follow_task(
    client: Client | ClientSession, created: CreatedTask, answer: Answer, *, poll: float = 0.02
) -> types.CallToolResult:
    """Follow the task ``created`` to its end, answering its questions with ``answer``.

    Polls ``tasks/get`` (every ``poll`` seconds at most), answers each new
    ``inputRequests`` entry once through ``tasks/update``, and returns the tool's result; a
    failed task raises its JSON-RPC error. Cancelled meanwhile, it sends ``tasks/cancel``.
    """
    interval = min((created.poll_interval_ms or 1000) / 1000, poll)

    async def respond(request: dict[str, Any]) -> dict[str, Any]:
        return await answer(dict(request.get("params") or {}))

    async def pause(_task: dict[str, Any]) -> None:
        await anyio.sleep(interval)

    return call_result(await follow(client, created, respond, pause=pause))
