"""What a task costs: the tasks path of a call, and a leg, in memory, with the real SDK client.

    .venv/bin/python benchmarks/bench_tasks.py [--quick]

Against an ``MCPServer`` with in-memory records (`MemoryStore`, `MemoryTaskStore`), legs on
the embedded Docket (``memory://``), driven by hand with the SDK client:

* **a call**: a tool that returns at once, the client without the Tasks extension. The floor.
* **a call that could go async**: the same tool, the client declaring the extension, so the
  round is ready to become a task (a `TaskStarter`) but never does: what every call of a
  task-capable client pays.
* **a task of one leg**: a tool that calls ``go_async()`` and returns: from the call to the
  first ``tasks/get`` that reads ``completed`` (the call, the queue, the leg's claim, its
  replay of the tool, its end, then a poll).
* **the next leg**: the task waits at a question; from ``tasks/update`` with the answer to
  the ``tasks/get`` that reads ``completed`` (the queue, the leg replaying the answer).

Interleaved; the figure is each contender's median, and the ratio is against the floor.
The polls go back to back (no ``pollIntervalMs``): a client waits its interval on top.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer

import elicitkit
from elicitkit import ask, go_async
from elicitkit.stores import MemoryStore, MemoryTaskStore
from elicitkit.testing._task_wire import CreatedTask, TasksExtension, get_task, update_task


@dataclass
class Copies:
    copies: int


def _server() -> MCPServer:
    server = elicitkit.install(
        MCPServer("bench-tasks"), store=MemoryStore(), tasks=MemoryTaskStore()
    )

    @server.tool()
    async def quick() -> str:
        return "done"

    @server.tool()
    async def one_leg() -> str:
        await go_async("Working")
        return "done"

    @server.tool()
    async def two_legs() -> str:
        await go_async("Working")
        copies = await ask(Copies, "How many?", key="copies")
        return f"{copies.unwrap().copies} copies"

    return server


async def _never(_context: Any, _params: Any) -> Any:
    """Declares forms (questions inside a task go out through tasks/get, not to this)."""
    raise AssertionError("asked mid-call")


async def _until(client: Client, task_id: str, status: str) -> dict[str, Any]:
    while True:
        found = await get_task(client, task_id)
        if found["status"] == status:
            return found
        await asyncio.sleep(0.0005)


async def run(quick: bool) -> dict[str, float]:
    """Median seconds of each contender."""
    rounds = 40 if quick else 200
    server = _server()
    times: dict[str, list[float]] = {
        "a call": [],
        "a call that could go async": [],
        "a task of one leg": [],
        "the next leg": [],
    }
    async with (
        Client(server) as plain,
        Client(server, extensions=[TasksExtension()], elicitation_callback=_never) as tasks,
    ):
        for index in range(rounds + 5):
            started = time.perf_counter()
            await plain.call_tool("quick", {})
            call = time.perf_counter() - started

            started = time.perf_counter()
            await tasks.call_tool("quick", {})
            could = time.perf_counter() - started

            started = time.perf_counter()
            created = await tasks.session.call_tool("one_leg", {}, allow_claimed=True)
            assert isinstance(created, CreatedTask), created
            done = await _until(tasks, created.task_id, "completed")
            leg = time.perf_counter() - started
            assert done["result"]["content"][0]["text"] == "done", done

            created = await tasks.session.call_tool("two_legs", {}, allow_claimed=True)
            assert isinstance(created, CreatedTask), created
            await _until(tasks, created.task_id, "input_required")
            started = time.perf_counter()
            await update_task(
                tasks, created.task_id, {"copies": {"action": "accept", "content": {"copies": 2}}}
            )
            done = await _until(tasks, created.task_id, "completed")
            next_leg = time.perf_counter() - started
            assert done["result"]["content"][0]["text"] == "2 copies", done
            if index >= 5:  # the first few warm the caches and start Docket's worker
                times["a call"].append(call)
                times["a call that could go async"].append(could)
                times["a task of one leg"].append(leg)
                times["the next leg"].append(next_leg)
    return {name: statistics.median(values) for name, values in times.items()}


def table(medians: dict[str, float]) -> list[str]:
    floor = medians["a call"]
    lines = ["| contender | median | ratio to a call |", "|---|---|---|"]
    for name, seconds in medians.items():
        lines.append(f"| {name} | {seconds * 1e3:.2f} ms | {seconds / floor:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    arguments = parser.parse_args()
    print("\n".join(table(asyncio.run(run(arguments.quick)))))


if __name__ == "__main__":
    main()
