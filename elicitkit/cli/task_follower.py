"""``elicitkit try`` follows a task: its status at the terminal, its questions as forms, its end.

On 2026-07-28 ``try`` declares the Tasks extension on its ``tools/call``; a tool that calls
``go_async()`` then answers the call with a task. `FollowAtTerminal` claims it: it says in
one line that the call became a task, polls ``tasks/get`` at the task's ``pollIntervalMs``
(within `FASTEST_POLL` and `SLOWEST_POLL`, on elicitkit's clock), prints the
``statusMessage`` whenever it changes, shows each new question of ``inputRequests`` with the
same form filler as a question of the call, and answers it through ``tasks/update``. A
completed task's result is the call's, printed as any other; a failed or cancelled one ends
the call with `TaskEnded`. Ctrl-C cancels the run's scope (`elicitkit.cli.interruptible`),
and `elicitkit._client.tasks.follow` sends ``tasks/cancel`` on the way out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

import mcp_types as types
from mcp.client.extension import ClaimContext

import elicitkit._clock as clock
from elicitkit._client.tasks import TERMINAL, CreatedTask, TasksExtension, follow
from elicitkit.cli.shown_text import shown

FASTEST_POLL = 0.05
"""Seconds between two polls at least, whatever the server suggests."""
SLOWEST_POLL = 5.0
"""Seconds between two polls at most: a person is watching."""
DEFAULT_POLL = 1.0
"""Seconds between two polls of a task that suggests no ``pollIntervalMs``."""
SHORT_ID = 8
"""Characters of a task id that name it on the terminal."""

Ask = Callable[[dict[str, Any]], Awaitable[types.ElicitResult]]
"""Shows one ``elicitation/create`` (its params) at the terminal; returns the answer."""


class TaskEnded(Exception):
    """The task ended without a result: it failed, or the server cancelled it."""

    def __init__(self, line: str) -> None:
        """The line that tells how it ended (``task failed: ...``)."""
        super().__init__(line)
        self.line = line


def poll_interval(task: dict[str, Any], created: CreatedTask) -> float:
    """Seconds to wait before the next ``tasks/get``: the task's latest suggestion, clamped.

    ``pollIntervalMs`` may change over the task's life; a task that stops suggesting one
    keeps the one it was created with.
    """
    suggested: object = task.get("pollIntervalMs", created.poll_interval_ms)
    if isinstance(suggested, bool) or not isinstance(suggested, int | float):
        return DEFAULT_POLL
    return min(max(suggested / 1000, FASTEST_POLL), SLOWEST_POLL)


class FollowAtTerminal(TasksExtension):
    """The Tasks extension for ``try``: a task is followed here, its questions asked here."""

    def __init__(self, ask: Ask) -> None:
        """Ask the task's questions with ``ask`` (the one the call's questions use)."""
        self._ask = ask

    async def follow_created(
        self, created: CreatedTask, context: ClaimContext
    ) -> types.CallToolResult:
        """Follow the task to its end; return its result.

        Raises:
            TaskEnded: The task failed or was cancelled.
        """
        name = shown(created.task_id[:SHORT_ID])
        print(f".. task {name}: the call goes on as a task (Ctrl-C cancels it).")
        watch = _Watch(name)
        watch.seen(created.model_dump(by_alias=True, mode="json"))

        async def pause(task: dict[str, Any]) -> None:
            await clock.sleep(poll_interval(task, created))

        task = await follow(
            context.session,
            created,
            self._respond,
            pause=pause,
            seen=watch.seen,
            cancelled=watch.cancelled,
        )
        status = task.get("status")
        if status == "failed":
            error: dict[str, Any] = task.get("error") or {}
            message = error.get("message") or task.get("statusMessage") or "no reason given"
            raise TaskEnded(shown(f"task failed: {message} (code {error.get('code')})"))
        if status == "cancelled":
            message = task.get("statusMessage") or "The task was cancelled."
            raise TaskEnded(shown(f"task cancelled: {message}"))
        return types.CallToolResult.model_validate(task.get("result") or {})

    async def _respond(self, request: dict[str, Any]) -> dict[str, Any] | None:
        method = request.get("method")
        if method != "elicitation/create":
            print(shown(f"\n  The task asks for {method}, which elicitkit try cannot answer."))
            return None
        params: Any = request.get("params")
        asked = cast("dict[str, Any]", params) if isinstance(params, dict) else {}
        answer = await self._ask(dict(asked))
        return answer.model_dump(by_alias=True, mode="json", exclude_none=True)


class _Watch:
    """What the terminal was told of one task: its status message, said once per change."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._message: str | None = None

    def seen(self, task: dict[str, Any]) -> None:
        message = task.get("statusMessage")
        # An ended task's message is its end's, told on the call's last line.
        if task.get("status") in TERMINAL or not isinstance(message, str) or not message:
            return
        if message != self._message:
            self._message = message
            print(shown(f".. {message}"))

    def cancelled(self, acknowledged: bool) -> None:
        if acknowledged:
            print(f"\n.. task {self._name}: cancelled (the server took the tasks/cancel).")
        else:
            print(f"\n.. task {self._name}: tasks/cancel got no answer; the task may go on.")
