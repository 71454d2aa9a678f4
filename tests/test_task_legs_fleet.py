"""Tasks that survive workers: two HTTP worker processes, one redis-server, variables only.

Each worker (tests/servers/legs_worker.py) is configured as docs/long-work.md configures a
fleet: ``ELICITKIT_STORE=redis://...``, a shared ``MCP_REQUEST_STATE_KEY`` and
``ELICITKIT_TASK_RESUME_AFTER=1``; the records, the tasks and Docket's queue of legs are all
on that Redis. The proofs: a task started through one worker is answered and finished
through the other; a worker SIGKILLed inside a ``retry_safe`` step leaves the task to the
other worker, which runs that step again and every plain step once; one killed inside a
plain step fails the task, naming the step, and never runs it twice; every worker stopped
while a task waits for an answer, new workers finish it; 300 waiting tasks of one client
do not push out an earlier task.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from redis.asyncio import Redis

from elicitkit.testing._task_wire import CreatedTask, TasksExtension, get_task, update_task
from tests.loopback import free_port, listening
from tests.mrtr import accept, never_called, only_question
from tests.test_tasks import until
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parent.parent
WORKER = ROOT / "tests" / "servers" / "legs_worker.py"


class Fleet:
    """Worker processes of one server (one name, one key) on one Redis, started on demand."""

    def __init__(self, redis_url: str, sdk: str, stack: ExitStack) -> None:
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        self.env = {
            **os.environ,
            "PYTHONPATH": path,
            "MCP_REQUEST_STATE_KEY": secrets.token_hex(24),
            "ELICITKIT_STORE": redis_url,
            "ELICITKIT_TASK_RESUME_AFTER": "1",
            "SERVER_NAME": f"fleet-{secrets.token_hex(4)}",
            "EFFECTS_REDIS_URL": redis_url,
        }
        self.env.pop("ELICITKIT_REDIS_URL", None)
        self.sdk = sdk
        self.redis_url = redis_url
        self._stack = stack
        self.workers: list[tuple[str, subprocess.Popen[bytes]]] = []

    def start(self, count: int = 1) -> list[tuple[str, subprocess.Popen[bytes]]]:
        started = []
        for _ in range(count):
            port = free_port()
            command = [sys.executable, str(WORKER), str(port), self.sdk]
            process = self._stack.enter_context(listening(command, port, env=self.env))
            started.append((f"http://127.0.0.1:{port}/mcp", process))
        self.workers.extend(started)
        return started

    def url_not_of(self, pid: int) -> str:
        """The URL of a live worker other than process ``pid``."""
        return next(
            url for url, process in self.workers if process.pid != pid and process.poll() is None
        )

    def kill(self, pid: int) -> None:
        for _, process in self.workers:
            if process.pid == pid:
                process.send_signal(signal.SIGKILL)
                process.wait()

    def stop_all(self) -> None:
        """Stop every worker as a deploy does (SIGTERM, then wait)."""
        for _, process in self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for _, process in self.workers:
            process.wait(timeout=30)
        self.workers.clear()


@contextmanager
def fleet(redis_url: str, sdk: str) -> Iterator[Fleet]:
    with ExitStack() as stack:
        yield Fleet(redis_url, sdk, stack)


@asynccontextmanager
async def client_of(url: str) -> AsyncIterator[Client]:
    async with Client(url, elicitation_callback=never_called, extensions=[TasksExtension()]) as c:
        yield c


async def start(client: Client, order: str, hang: str = "") -> str:
    """Call ``ship`` and answer its first question: the call goes on as a task."""
    arguments = {"order": order, "hang": hang}
    first = await client.session.call_tool(
        "ship", arguments, allow_input_required=True, allow_claimed=True
    )
    key, _, state = only_question(first)
    created = await client.session.call_tool(
        "ship",
        arguments,
        input_responses={key: accept(name="Ada")},
        request_state=state,
        allow_input_required=True,
        allow_claimed=True,
    )
    assert isinstance(created, CreatedTask), created
    return created.task_id


async def effects(redis_url: str, order: str) -> dict[str, int]:
    """How many times each step of ``order`` ran, across every worker."""
    client = Redis.from_url(redis_url)
    try:
        names = ("label", "upload", "dispatch")
        counts = await client.mget([f"effects:{order}:{name}" for name in names])
    finally:
        await client.aclose()
    return {name: int(count) for name, count in zip(names, counts, strict=True) if count}


async def pid_of(redis_url: str, order: str, step: str) -> int:
    """The worker process that ran ``step`` of ``order`` (once it has started it)."""
    client = Redis.from_url(redis_url)
    try:
        pid = await eventually(
            lambda: client.get(f"effects:{order}:{step}:pid"),
            within=20,
            every=0.05,
            what=f"a worker running {step}",
        )
    finally:
        await client.aclose()
    return int(pid)


async def _until(client: Client, task_id: str, *statuses: str) -> dict[str, Any]:
    """`until` through worker processes: resuming waits for a lease (1 s) to lapse."""
    return await until(client, task_id, *statuses, within=30, every=0.1)


async def answer_and_finish(client: Client, task_id: str) -> dict[str, Any]:
    asking = await _until(client, task_id, "input_required")
    assert list(asking["inputRequests"]) == ["ship"]
    await update_task(client, task_id, {"ship": accept(value=True).model_dump()})
    return await _until(client, task_id, "completed", "failed", "cancelled")


@pytest.mark.parametrize("sdk", ["mcp", "fastmcp"])
async def test_a_task_started_on_one_worker_is_answered_and_finished_on_the_other(
    redis_url: str, sdk: str
) -> None:
    with fleet(redis_url, sdk) as workers:
        (one, _), (two, _) = workers.start(2)
        order = f"o-{secrets.token_hex(3)}"
        async with client_of(one) as first, client_of(two) as second:
            task_id = await start(first, order)
            done = await answer_and_finish(second, task_id)
        assert done["status"] == "completed", done
        assert done["result"]["content"][0]["text"].startswith(
            f"{order} signed by Ada: label#1, upload#1, dispatch#1, by worker "
        )
        assert await effects(redis_url, order) == {"label": 1, "upload": 1, "dispatch": 1}


async def test_a_worker_killed_in_a_retry_safe_step_leaves_the_task_to_another(
    redis_url: str,
) -> None:
    with fleet(redis_url, "mcp") as workers:
        (one, _), _ = workers.start(2)
        order = f"o-{secrets.token_hex(3)}"
        async with client_of(one) as first:
            task_id = await start(first, order, hang="upload")
        stuck = await pid_of(redis_url, order, "upload")  # inside its first run of upload
        workers.kill(stuck)
        async with client_of(workers.url_not_of(stuck)) as survivor:
            done = await answer_and_finish(survivor, task_id)
        assert done["status"] == "completed", done
        text = done["result"]["content"][0]["text"]
        assert text.startswith(f"{order} signed by Ada: label#1, upload#2, dispatch#1, by worker ")
        assert not text.endswith(f"by worker {stuck}.")
        # The retry_safe step ran again; the plain ones once, across both workers.
        assert await effects(redis_url, order) == {"label": 1, "upload": 2, "dispatch": 1}


async def test_a_worker_killed_in_a_plain_step_fails_the_task_naming_the_step(
    redis_url: str,
) -> None:
    with fleet(redis_url, "mcp") as workers:
        (one, _), _ = workers.start(2)
        order = f"o-{secrets.token_hex(3)}"
        async with client_of(one) as first:
            task_id = await start(first, order, hang="label")
        stuck = await pid_of(redis_url, order, "label")
        workers.kill(stuck)
        async with client_of(workers.url_not_of(stuck)) as survivor:
            ended = await _until(survivor, task_id, "completed", "failed", "cancelled")
        said = str(ended.get("error") or ended.get("result"))
        assert "The step 'label' was started by a part of this task whose server" in said, ended
        assert ended["status"] == "failed" or ended["result"]["isError"] is True
        # Its outcome is unknown, so it was not run again: the call fails closed.
        assert await effects(redis_url, order) == {"label": 1}


async def test_a_deploy_loses_no_task_waiting_for_an_answer(redis_url: str) -> None:
    with fleet(redis_url, "mcp") as workers:
        (one, _), _ = workers.start(2)
        order = f"o-{secrets.token_hex(3)}"
        async with client_of(one) as first:
            task_id = await start(first, order)
            await _until(first, task_id, "input_required")
        workers.stop_all()  # every worker of the old release stops
        (new, _), _ = workers.start(2)  # the new release
        async with client_of(new) as after:
            done = await answer_and_finish(after, task_id)
        assert done["status"] == "completed", done
        assert await effects(redis_url, order) == {"label": 1, "upload": 1, "dispatch": 1}


async def test_three_hundred_waiting_tasks_do_not_push_out_an_earlier_one(
    redis_url: str,
) -> None:
    with fleet(redis_url, "mcp") as workers:
        (one, _), (two, _) = workers.start(2)
        first_order = f"o-{secrets.token_hex(3)}"
        async with client_of(one) as first, client_of(two) as second:
            earlier = await start(first, first_order)
            await _until(first, earlier, "input_required")
            flood: list[str] = []
            limit = anyio.Semaphore(8)

            async def one_more(number: int) -> None:
                async with limit:
                    client = first if number % 2 else second
                    flood.append(await start(client, f"{first_order}-{number}"))

            async with anyio.create_task_group() as group:
                for number in range(300):
                    group.start_soon(one_more, number)
            last = await _until(second, flood[-1], "input_required")
            assert last["status"] == "input_required"
            assert (await get_task(second, earlier))["status"] == "input_required"
            done = await answer_and_finish(second, earlier)
        assert done["status"] == "completed", done
        assert await effects(redis_url, first_order) == {"label": 1, "upload": 1, "dispatch": 1}
