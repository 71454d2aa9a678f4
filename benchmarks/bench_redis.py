"""The outcome stores: the same dialogue over HTTP, 2026-07-28, 1 and 5 asks.

    .venv/bin/python benchmarks/bench_redis.py [--quick]

Three elicitkit servers, identical but for their outcome store (a `MemoryStore`; a
`SqliteStore`, the default, on a file in a temporary folder, WAL with ``synchronous=FULL``;
and a `RedisStore` on a real ``redis-server`` this benchmark starts on a free loopback port,
without persistence), each served by uvicorn on 127.0.0.1 in this process and called by the
official client over streamable HTTP. Every round after the first claims the dialogue in the
store and releases or records it, so the difference is the store's work as users pay it.

The first figure is the process CPU time per call (client, server and the Redis client share
this process; median of a round's calls, median over interleaved rounds), as in
``bench_roundtrip``. The second is the wall time per call (median of sequential calls),
which also counts what the process waits for: SQLite's ``fsync`` of each commit, Redis's
answers. Redis's own CPU per call is shown beside it (Redis's ``INFO cpu``, over every call
of the group), with the bytes Redis received per call: Redis runs on the other core, and
neither is in the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from bench_roundtrip import (
    MODERN,
    Contender,
    Profile,
    Row,
    answer,
    measure_group,
    message,
    serving,
)
from mcp import Client
from mcp.server.mcpserver import MCPServer
from redis.asyncio import Redis

import elicitkit
from elicitkit.stores import MemoryStore, OutcomeStore, RedisStore, SqliteStore

Walls = dict[tuple[int, str], float]
MEMORY, SQLITE, REDIS = "elicitkit, MemoryStore", "elicitkit, SqliteStore", "elicitkit, RedisStore"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Start ``redis-server`` on a free loopback port; yield its URL."""
    binary = shutil.which("redis-server")
    assert binary is not None, "redis-server is not installed (Debian package redis-server)"
    port = _free_port()
    process = subprocess.Popen(  # noqa: S603  (our own command line)
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    break
            assert process.poll() is None, "redis-server exited at start"
            assert time.monotonic() < deadline, "redis-server did not answer within 10 s"
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def _redis_usage(redis: Any) -> tuple[float, int]:
    """Redis's own CPU seconds (user + system) and the bytes it has received so far."""
    cpu, stats = await redis.info("cpu"), await redis.info("stats")
    return cpu["used_cpu_user"] + cpu["used_cpu_sys"], stats["total_net_input_bytes"]


def store_server(name: str, store: OutcomeStore) -> MCPServer:
    server = elicitkit.install(MCPServer(name), store=store)

    @server.tool()
    async def profiles(n: int) -> str:
        answers = [await elicitkit.ask(Profile, message(index)) for index in range(n)]
        return ",".join(answer.unwrap().city for answer in answers)

    return server


@contextlib.asynccontextmanager
async def clients(servers: dict[str, MCPServer]) -> AsyncIterator[dict[str, Client]]:
    async with contextlib.AsyncExitStack() as stack:
        opened: dict[str, Client] = {}
        for label, server in servers.items():
            url = await stack.enter_async_context(serving(server))
            client = Client(url, mode="auto", elicitation_callback=answer)
            opened[label] = await stack.enter_async_context(client)
            assert opened[label].protocol_version == MODERN
        yield opened


async def wall_per_call(contender: Contender, n: int, calls: int) -> float:
    """The median wall time of ``calls`` sequential calls, in microseconds."""
    client = contender.client
    assert client is not None
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        await client.call_tool(contender.tool, {"n": n})
        times.append((time.perf_counter() - started) * 1e6)
    return statistics.median(times)


async def run(quick: bool) -> tuple[list[Row], dict[int, tuple[float, float]], Walls]:
    """Rows per number of asks; Redis's CPU (µs) and bytes in per call; wall µs per call."""
    rows: list[Row] = []
    redis_cpu: dict[int, tuple[float, float]] = {}
    walls: Walls = {}
    with redis_server() as url, tempfile.TemporaryDirectory() as folder:
        redis: Any = Redis.from_url(url)
        try:
            servers = {
                MEMORY: store_server("bench-memory", MemoryStore()),
                SQLITE: store_server("bench-sqlite", SqliteStore(Path(folder) / "r.sqlite3")),
                REDIS: store_server("bench-redis", RedisStore(redis)),
            }
            # After MCPServer() set INFO: no HTTP log lines, and not the durability warning
            # this Redis (no persistence, as a benchmark needs none) rightly earns.
            logging.getLogger().setLevel(logging.ERROR)
            async with clients(servers) as opened:
                for n in (1,) if quick else (1, 5):
                    everyone = [
                        Contender(label, server, "profiles", opened[label])
                        for label, server in servers.items()
                    ]
                    calls = 3 if quick else max(4, 60 // n)
                    rounds = 1 if quick else 7
                    cpu, received = await _redis_usage(redis)
                    rows += await measure_group(MODERN, "http", n, everyone, rounds, calls)
                    # Every call of the group (checked, warming up, timed) reached Redis.
                    total = 1 + max(2, calls // 4) + rounds * calls
                    cpu_after, received_after = await _redis_usage(redis)
                    redis_cpu[n] = (
                        (cpu_after - cpu) / total * 1e6,
                        (received_after - received) / total,
                    )
                    for contender in everyone:
                        walls[n, contender.label] = await wall_per_call(
                            contender, n, 3 if quick else 40
                        )
        finally:
            await redis.aclose()
    return rows, redis_cpu, walls


def table(rows: list[Row], redis_cpu: dict[int, tuple[float, float]], walls: Walls) -> list[str]:
    lines = [
        (
            "| asks | store | µs CPU/call (median) | spread | x MemoryStore | "
            "µs wall/call (median) | x MemoryStore | "
            "redis-server µs CPU/call | bytes to Redis/call |"
        ),
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sorted({row.n for row in rows}):
        group = {row.label: row for row in rows if row.n == n}
        memory = group[MEMORY].median
        for label, row in group.items():
            server = "| |" if label != REDIS else "| {:,.0f} | {:,.0f} |".format(*redis_cpu[n])
            wall = walls[n, label]
            lines.append(
                f"| {n} | {label.split(', ')[1]} | {row.median:,.0f} | ±{row.spread:.0%} | "
                f"{row.median / memory:.2f} | {wall:,.0f} | {wall / walls[n, MEMORY]:.2f} "
                f"{server}"
            )
    return lines


def targets(rows: list[Row]) -> list[tuple[str, float, float]]:
    """The issue's target: RedisStore / MemoryStore over HTTP, 5 asks (1 in a quick run)."""
    n = max(row.n for row in rows)
    group = {row.label: row for row in rows if row.n == n}
    name = f"RedisStore / MemoryStore, 2026-07-28 http, {n} ask(s)"
    return [(name, group[REDIS].median / group[MEMORY].median, 1.05)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few calls")
    quick = parser.parse_args().quick
    rows, redis_cpu, walls = asyncio.run(run(quick))
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("\n".join(table(rows, redis_cpu, walls)))
    for name, ratio, limit in targets(rows):
        print(f"{name}: {ratio:.2f}x (target <= {limit:.2f}x)")


if __name__ == "__main__":
    main()
