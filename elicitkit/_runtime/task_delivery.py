"""The delivery inside a task (after ``go_async()``): questions go out through ``tasks/get``.

A question becomes an entry of the task's ``inputRequests`` (status ``input_required``) and
its answer arrives through ``tasks/update``; ``ask()`` decodes, re-asks and logs exactly as
on the eras that ask mid-call, since to ``ask()`` this is a delivery that sends and waits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from elicitkit._runtime.answers import Asked, typed_result
from elicitkit._runtime.context import Channel
from elicitkit._runtime.delivery import MidCall
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit._runtime.timeouts import timed_out
from elicitkit.errors import ElicitationTimeout

NO_URL_IN_TASKS = "elicitkit does not ask URL questions inside a task yet"


class InTask(MidCall):
    """Asks through task ``task_id`` of ``engine``: each question waits for its answer."""

    in_task: bool = True

    def __init__(self, engine: TaskEngine, task_id: str, call: Channel) -> None:
        """Ask through ``engine``'s task ``task_id``, for the call ``call`` turned into it.

        Its errors reach the client through the entry guard, like every other delivery's.
        """
        super().__init__(call, self)  # URLs: refused by this delivery (`why_no_url`)
        self._engine = engine
        self._task_id = task_id
        self._why_not = call.why_no_forms()  # read while the call's request is current

    def why_no_forms(self) -> str | None:
        return self._why_not

    def why_no_url(self) -> str | None:
        return NO_URL_IN_TASKS

    async def send(
        self, params: dict[str, Any], within: float | None, key: str
    ) -> Mapping[str, Any]:
        # ask() claims a key unique in the run for each question and each re-ask, and the
        # run is the task's whole life after go_async(): so it is unique for the task's
        # lifetime, as the extension requires.
        try:
            return await self._engine.ask(
                self._task_id, key, {"method": "elicitation/create", "params": params}, within
            )
        except TimeoutError:
            raise ElicitationTimeout(timed_out(within or 0.0)) from None

    async def ask_all(self, asked: Sequence[Asked]) -> tuple[ElicitResultTyped[Any], ...]:
        """Ask every question together (``inputRequests``), answered in any order.

        The answers are decoded in order once all have arrived, so the outcome is the same
        as asking one after the other: the first invalid answer raises.
        """
        if any(one.answered is not None for one in asked):
            return await super().ask_all(asked)
        answers: list[Mapping[str, Any]] = [{} for _ in asked]

        async def one(index: int, params: dict[str, Any], within: float | None, key: str) -> None:
            answers[index] = await self.send(params, within, key)

        async with anyio.create_task_group() as group:
            for index, each in enumerate(asked):
                question = each.question
                group.start_soon(one, index, question.params, question.timeout, question.key)
        return tuple(typed_result(each.form, raw) for each, raw in zip(asked, answers, strict=True))
