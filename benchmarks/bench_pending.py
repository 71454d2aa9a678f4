"""Many pending questions on one server over streamable HTTP (real uvicorn on 127.0.0.1).

    .venv/bin/python benchmarks/bench_pending.py [--quick]

* **2025-11-25**: 1,000 concurrent ``tools/call`` each waiting in ``ask()`` (the question
  sent mid-call on the call's SSE stream). The clients hold every answer until all 1,000
  questions have arrived and the server's memory has been read (resident set, and Python's
  allocated blocks after a collection); then all are answered, every result is checked, and
  memory is read again. Per-question memory = (pending - baseline) / 1,000.
* **2026-07-28**: 1,000 concurrent three-question dialogues (each question a retry of the
  call, MRTR): wall time, throughput, per-dialogue latency percentiles.

The server runs in its own process (benchmarks/pending_server.py); the calls are spread
over 20 SDK clients (20 sessions) of 50 calls each, as httpx allows 100 connections per
client and a pending call holds one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

SERVER = Path(__file__).parent / "pending_server.py"
CLIENTS = 20


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _text(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    block = result.content[0]
    assert isinstance(block, types.TextContent), block
    return block.text


async def _stats(url: str) -> dict[str, int]:
    async with Client(url, mode="legacy") as client:
        return json.loads(_text(await client.call_tool("stats", {})))  # type: ignore[no-any-return]


async def legacy_pending(url: str, total: int, clients: int = CLIENTS) -> dict[str, Any]:
    arrived = 0
    everyone_waits = asyncio.Event()
    # Set once the server's memory was read with every call waiting: no answer leaves
    # before then, so the reading is of all the calls pending, none of them finishing.
    measured = asyncio.Event()

    async def hold_then_answer(_context: Any, params: Any) -> types.ElicitResult:
        nonlocal arrived
        arrived += 1
        if arrived == total:
            everyone_waits.set()
        await measured.wait()
        guest = int(params.message.split()[-1].rstrip("?"))
        return types.ElicitResult(action="accept", content={"row": guest % 30, "seat": "C"})

    baseline = await _stats(url)
    per_client = total // clients
    results: list[str] = []
    pending: dict[str, int] = {}
    started = time.perf_counter()
    async with asyncio.TaskGroup() as group:

        async def run_client(first: int) -> None:
            client = Client(url, mode="legacy", elicitation_callback=hold_then_answer)
            async with client as c, asyncio.TaskGroup() as calls:
                tasks = [
                    calls.create_task(c.call_tool("book", {"i": i}))
                    for i in range(first, first + per_client)
                ]
            results.extend(_text(task.result()) for task in tasks)

        for index in range(clients):
            group.create_task(run_client(index * per_client))
        await asyncio.wait_for(everyone_waits.wait(), timeout=600)
        waited = time.perf_counter() - started
        try:
            pending = await _stats(url)
        finally:
            measured.set()
    elapsed = time.perf_counter() - started
    expected = sorted(f"{i}:{i % 30}C" for i in range(total))
    assert sorted(results) == expected, "a call returned the wrong answer"
    after = await _stats(url)
    return {
        "total": total,
        "all_pending_after_s": waited,
        "all_done_s": elapsed,
        "baseline": baseline,
        "pending": pending,
        "after": after,
    }


async def modern_dialogues(url: str, total: int, clients: int = CLIENTS) -> dict[str, Any]:
    async def answer(_context: Any, _params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"row": 2, "seat": "A"})

    per_client = total // clients
    latencies: list[float] = []

    async def run_client(first: int) -> None:
        async with Client(url, elicitation_callback=answer) as client:
            assert client.protocol_version == "2026-07-28"

            async def one(i: int) -> None:
                start = time.perf_counter()
                text = _text(await client.call_tool("three", {"i": i}))
                latencies.append(time.perf_counter() - start)
                assert text == f"{i}:6", text

            async with asyncio.TaskGroup() as calls:
                for i in range(first, first + per_client):
                    calls.create_task(one(i))

    cpu = time.process_time()
    started = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for index in range(clients):
            group.create_task(run_client(index * per_client))
    elapsed = time.perf_counter() - started
    assert len(latencies) == total
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000

    return {
        "total": total,
        "elapsed_s": elapsed,
        "client_cpu_s": time.process_time() - cpu,
        "dialogues_per_s": total / elapsed,
        "p50_ms": pct(0.5),
        "p90_ms": pct(0.9),
        "p99_ms": pct(0.99),
        "max_ms": ordered[-1] * 1000,
        "mean_ms": statistics.fmean(ordered) * 1000,
    }


async def run(quick: bool) -> dict[str, Any]:
    logging.getLogger().setLevel(logging.WARNING)  # the client's per-request log lines
    total, clients = (20, 4) if quick else (1000, CLIENTS)
    port = _free_port()
    process = subprocess.Popen(  # noqa: S603, ASYNC220  (this interpreter, our script)
        [sys.executable, str(SERVER), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None, "the pending server exited at start"
                assert time.monotonic() < deadline, "the pending server did not start"
                await asyncio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        await legacy_pending(url, 2 * clients, clients)  # warm-up: first-use allocations
        legacy = await legacy_pending(url, total, clients)
        modern = await modern_dialogues(url, total, clients)
    finally:
        process.terminate()
        process.wait(timeout=10)
    return {"legacy": legacy, "modern": modern, "clients": clients}


def markdown(report: dict[str, Any]) -> list[str]:
    legacy, modern = report["legacy"], report["modern"]
    base, pend, after = legacy["baseline"], legacy["pending"], legacy["after"]
    n = legacy["total"]
    per_rss = (pend["rss_kib"] - base["rss_kib"]) * 1024 / n
    per_blocks = (pend["blocks"] - base["blocks"]) / n
    return [
        f"## Many pending questions: {n:,} at once on one server, streamable HTTP",
        "",
        (
            f"**2025-11-25, {n:,} tool calls waiting in `ask()`** (server in its own process, "
            f"{report['clients']} client sessions): all questions pending after "
            f"{legacy['all_pending_after_s']:.1f} s, all answered and checked after "
            f"{legacy['all_done_s']:.1f} s."
        ),
        "",
        "| server memory | baseline | all pending | after all answered |",
        "|---|---:|---:|---:|",
        (
            f"| resident set (KiB) | {base['rss_kib']:,} | {pend['rss_kib']:,} | "
            f"{after['rss_kib']:,} |"
        ),
        (
            f"| peak resident set (KiB) | {base['peak_kib']:,} | {pend['peak_kib']:,} | "
            f"{after['peak_kib']:,} |"
        ),
        (
            f"| Python allocated blocks (after gc) | {base['blocks']:,} | {pend['blocks']:,} | "
            f"{after['blocks']:,} |"
        ),
        "",
        (
            f"Per pending question: {per_rss / 1024:.1f} KiB resident, {per_blocks:.0f} Python "
            "blocks (the whole server: SDK session, HTTP stream, task, elicitkit's run). "
            f"After: {after['blocks'] - base['blocks']:+,} blocks against the baseline."
        ),
        "",
        (
            f"**2026-07-28, {modern['total']:,} concurrent three-question dialogues** (each "
            f"question one retry of the call): {modern['elapsed_s']:.1f} s, "
            f"{modern['dialogues_per_s']:.0f} dialogues/s; latency per dialogue p50 "
            f"{modern['p50_ms']:.0f} ms, p90 {modern['p90_ms']:.0f} ms, p99 "
            f"{modern['p99_ms']:.0f} ms, max {modern['max_ms']:.0f} ms (client and server "
            "share the 2 cores)."
        ),
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    report = asyncio.run(run(parser.parse_args().quick))
    print("\n".join(markdown(report)))


if __name__ == "__main__":
    main()
