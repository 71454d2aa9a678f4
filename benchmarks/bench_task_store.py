"""The task store on each backend: one task's whole book, as the task engine keeps it.

    .venv/bin/python benchmarks/bench_task_store.py [--quick]

One *cycle* is what the books of a task of two legs cost, through `TaskEngine` on a task
store (`MemoryTaskStore`; `SqliteTaskStore` on a file in a temporary folder, WAL with
``synchronous=FULL``; `RedisTaskStore` on a real ``redis-server`` this benchmark starts
on a free loopback port, without persistence): create, claim leg 1, renew its lease, end
it with a question, a ``tasks/get``, the answer, claim leg 2, renew, finish, a last
``tasks/get``: ten operations. Figures: the wall time per cycle (it counts SQLite's commits
and Redis's answers) and the process CPU time per cycle, median over interleaved rounds
(the stores' order reversed every other round). No SDK, no network but Redis's loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_redis import redis_server
from redis.asyncio import Redis

from elicitkit._runtime.task_engine import TaskEngine
from elicitkit.stores import MemoryTaskStore, RedisTaskStore, SqliteTaskStore, TaskStore

CALL = {"name": "book", "arguments": {"room": "A"}}
QUESTION = {"method": "elicitation/create", "params": {"message": "Which day?"}}


async def cycle(engine: TaskEngine) -> None:
    """One task of two legs, through the engine's every operation on the store."""
    task = await engine.create(dialogue=None, principal=None, message=None, call=CALL, state="")
    assert await engine.claim(task.task_id, 1, "worker") is not None
    assert await engine.store.renew(task.task_id, engine.lease) is not None
    assert await engine.wait_for_answers(task.task_id, "worker", {"day": QUESTION}, "s", {})
    assert await engine.get(task.task_id, None) is not None
    _, completed = await engine.answer(task.task_id, None, {"day": {"action": "accept"}})
    assert completed
    assert await engine.claim(task.task_id, 2, "worker") is not None
    assert await engine.store.renew(task.task_id, engine.lease) is not None
    assert await engine.finish(task.task_id, "worker", result={"content": []})
    done = await engine.get(task.task_id, None)
    assert done is not None
    assert done.status == "completed"


async def measure(engine: TaskEngine, cycles: int) -> tuple[float, float]:
    """Wall and CPU seconds per cycle over ``cycles`` cycles."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(cycles):
        await cycle(engine)
    return (time.perf_counter() - wall) / cycles, (time.process_time() - cpu) / cycles


async def run(quick: bool) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds per cycle of each store."""
    rounds, cycles = (2, 20) if quick else (9, 200)
    with tempfile.TemporaryDirectory() as folder, redis_server() as url:
        client = Redis.from_url(url)
        makers: dict[str, Callable[[], TaskStore]] = {
            "MemoryTaskStore": lambda: MemoryTaskStore(max_tasks=1_000_000),
            "SqliteTaskStore": lambda: SqliteTaskStore(
                Path(folder) / "records.sqlite3", synchronous="FULL", max_tasks=1_000_000
            ),
            "RedisTaskStore": lambda: RedisTaskStore(client),
        }
        engines = {name: TaskEngine.of(make()) for name, make in makers.items()}
        for engine in engines.values():
            await measure(engine, 5)  # connect, load the scripts, warm the caches
        walls: dict[str, list[float]] = {name: [] for name in engines}
        cpus: dict[str, list[float]] = {name: [] for name in engines}
        for index in range(rounds):
            order = list(engines) if index % 2 == 0 else list(reversed(engines))
            for name in order:
                wall, cpu = await measure(engines[name], cycles)
                walls[name].append(wall)
                cpus[name].append(cpu)
        await client.aclose()
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in walls}


def table(medians: dict[str, tuple[float, float]]) -> list[str]:
    """The Markdown table of the medians, with each store's ratio to memory."""
    memory_wall, _ = medians["MemoryTaskStore"]
    lines = [
        "| store | wall per cycle (µs) | per operation (µs) | CPU per cycle (µs) | wall / memory |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, (wall, cpu) in medians.items():
        lines.append(
            f"| {name} | {wall * 1e6:,.0f} | {wall * 1e5:,.0f} | {cpu * 1e6:,.0f} "
            f"| {wall / memory_wall:.1f}x |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few cycles")
    quick = parser.parse_args().quick
    medians: Any = asyncio.run(run(quick))
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("\n".join(table(medians)))


if __name__ == "__main__":
    main()
