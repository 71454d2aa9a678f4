"""Fair round trip: a 10-field form asked 1, 3 or 10 times, in memory and over HTTP.

    .venv/bin/python benchmarks/bench_roundtrip.py [--quick]

Contenders, on each era (2025-11-25: a question mid-call; 2026-07-28: MRTR replay):

* **floor**: the same tool asking nothing (what a call costs at all);
* **elicitkit**: ``await ask(Profile)`` N times (a dataclass; on its own installed server);
* **SDK**: what authors write with the SDK, N = 1 only: ``ctx.elicit(message, Model)`` on
  2025-11-25, a ``Resolve`` parameter whose resolver returns ``Elicit(...)`` on 2026-07-28
  (both render the schema again on every question);
* **hand-written**: the best SDK code, schema rendered once at import:
  ``ctx.session.elicit_form(...)`` mid-call on 2025-11-25, an ``InputRequiredResult`` flow
  carrying the answers as JSON in ``requestState`` on 2026-07-28, each answer validated with
  the pydantic model.

A "memory, server logging" group runs 1 ask with the logging exactly as ``MCPServer()``
configures it (root at INFO, a rich handler), as users run it; every other group runs with
the root logger at WARNING. On 2026-07-28 in memory, 20 and 50 asks too.

Transports: the SDK's in-memory ``Client(server)`` and streamable HTTP through a real
uvicorn on 127.0.0.1 in the same process (sockets, HTTP framing and the JSON of a growing
sealed ``requestState``). Client and server share one thread, so the figure is the
**process CPU time** per call (median of a round's calls, median over interleaved rounds):
the work done, unlike wall time, which on a shared machine also counts waiting for a core.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import enum
import gc
import json
import logging
import os
import socket
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import date
from typing import Annotated, Any, Literal

import mcp_types as types
import pydantic
import uvicorn
from annotated_types import Ge, Le, MaxLen, MinLen
from mcp import Client
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve

import elicitkit
from elicitkit.stores import MemoryStore

LEGACY, MODERN = "2025-11-25", "2026-07-28"
Name = Annotated[str, MinLen(1), MaxLen(50)]
Age = Annotated[int, Ge(0), Le(150)]


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


@dataclasses.dataclass
class Profile:
    """The 10-field form: text, bounded int, float, bool, Enum, date, optional fields."""

    name: Name
    city: Name
    age: Age
    height: float
    subscribed: bool
    color: Color
    birthday: date
    nickname: str | None = None
    floor: int | None = None
    note: str | None = None


class ProfileModel(pydantic.BaseModel):
    """The same form for the SDK, which takes only models and refuses an Enum field."""

    name: Name
    city: Name
    age: Age
    height: float
    subscribed: bool
    color: Literal["red", "green", "blue"]
    birthday: date
    nickname: str | None = None
    floor: int | None = None
    note: str | None = None


ANSWER = {
    "name": "Ada",
    "city": "Oslo",
    "age": 36,
    "height": 1.7,
    "subscribed": True,
    "color": "green",
    "birthday": "1990-12-10",
    "nickname": "ada",
}
SCHEMA = render_elicitation_schema(ProfileModel)  # rendered once, as a careful author would


def message(index: int) -> str:
    return f"Profile {index + 1}?"


def ek_server() -> MCPServer:
    # MemoryStore: the ratio is elicitkit's own work; bench_redis.py prices the stores.
    server = elicitkit.install(MCPServer("bench-ek"), store=MemoryStore())

    @server.tool()
    async def profiles(n: int) -> str:
        answers = [await elicitkit.ask(Profile, message(index)) for index in range(n)]
        return ",".join(answer.unwrap().city for answer in answers)

    return server


async def resolve_profile(n: int) -> Elicit[ProfileModel]:
    del n
    return Elicit(message(0), ProfileModel)


def sdk_server() -> MCPServer:
    server = MCPServer("bench-sdk")

    @server.tool()
    async def floor(n: int) -> str:
        return ",".join(["Oslo"] * n)

    @server.tool()
    async def profiles_ctx(n: int, ctx: Context) -> str:
        cities = []
        for index in range(n):
            result = await ctx.elicit(message(index), ProfileModel)
            assert result.action == "accept"
            cities.append(result.data.city)
        return ",".join(cities)

    @server.tool()
    async def profiles_resolved(
        n: int, profile: Annotated[ProfileModel, Resolve(resolve_profile)]
    ) -> str:
        return ",".join([profile.city] * n)

    return server


def hand_server() -> MCPServer:
    server = MCPServer("bench-hand")

    @server.tool()
    async def profiles_legacy(n: int, ctx: Context) -> str:
        cities = []
        for index in range(n):
            result = await ctx.request_context.session.elicit_form(
                message(index), SCHEMA, related_request_id=ctx.request_id
            )
            assert result.action == "accept"
            cities.append(ProfileModel.model_validate(result.content).city)
        return ",".join(cities)

    @server.tool()
    async def profiles_modern(n: int, ctx: Context) -> str | types.InputRequiredResult:
        answers: list[dict[str, Any]] = json.loads(ctx.request_state or "[]")
        response = (ctx.input_responses or {}).get(f"q{len(answers)}")
        if isinstance(response, types.ElicitResult) and response.action == "accept":
            ProfileModel.model_validate(response.content)  # check it when it arrives
            answers.append(dict(response.content or {}))
        if len(answers) < n:
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message=message(len(answers)), requested_schema=SCHEMA
                )
            )
            return types.InputRequiredResult(
                input_requests={f"q{len(answers)}": request}, request_state=json.dumps(answers)
            )
        return ",".join(ProfileModel.model_validate(answer).city for answer in answers)

    return server


async def answer(_context: Any, _params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=ANSWER)


@dataclasses.dataclass
class Contender:
    label: str
    server: MCPServer
    tool: str
    client: Client | None = None


def contenders(era: str, n: int, servers: dict[str, MCPServer]) -> list[Contender]:
    everyone = [
        Contender("floor (asks nothing)", servers["sdk"], "floor"),
        Contender("elicitkit ask()", servers["ek"], "profiles"),
    ]
    if n == 1:
        sdk_tool = "profiles_ctx" if era == LEGACY else "profiles_resolved"
        sdk_label = "SDK ctx.elicit" if era == LEGACY else "SDK Resolve/Elicit"
        everyone.append(Contender(sdk_label, servers["sdk"], sdk_tool))
    hand_tool = "profiles_legacy" if era == LEGACY else "profiles_modern"
    everyone.append(Contender("hand-written SDK", servers["hand"], hand_tool))
    return everyone


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.asynccontextmanager
async def serving(server: MCPServer) -> AsyncIterator[str]:
    """Serve ``server`` with uvicorn on a free loopback port (sessions, SSE); yield its URL."""
    port = _free_port()
    config = uvicorn.Config(
        server.streamable_http_app(), host="127.0.0.1", port=port, log_level="error"
    )
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve())
    try:
        while not web.started:
            assert not task.done(), "uvicorn stopped before it started"
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        web.should_exit = True
        await task


async def timed_round(call: Callable[[], Awaitable[types.CallToolResult]], calls: int) -> float:
    """Median process CPU time per call over ``calls`` calls, in microseconds."""
    spent: list[int] = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(calls):
            start = time.process_time_ns()
            result = await call()
            spent.append(time.process_time_ns() - start)
            assert not result.is_error, result
    finally:
        gc.enable()
    return statistics.median(spent) / 1000


@dataclasses.dataclass
class Row:
    era: str
    transport: str
    n: int
    label: str
    rounds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)

    @property
    def spread(self) -> float:
        """Largest round median over the smallest, minus one (the run's noise gauge)."""
        return max(self.rounds) / min(self.rounds) - 1


async def measure_group(
    era: str, transport: str, n: int, everyone: list[Contender], rounds: int, calls: int
) -> list[Row]:
    expected = ",".join(["Oslo"] * n)

    def caller(contender: Contender) -> Callable[[], Awaitable[types.CallToolResult]]:
        client = contender.client
        assert client is not None
        return lambda: client.call_tool(contender.tool, {"n": n})

    for contender in everyone:
        result = await caller(contender)()
        block = result.content[0]
        assert isinstance(block, types.TextContent), result
        assert block.text == expected, result
        await timed_round(caller(contender), max(2, calls // 4))  # warm-up
    per_round: dict[str, list[float]] = {contender.label: [] for contender in everyone}
    for index in range(rounds):
        # Interleaved, and the order reversed every other round: no contender always runs
        # right after the same one (caches, allocator, the CPU's clock).
        for contender in everyone if index % 2 == 0 else everyone[::-1]:
            per_round[contender.label].append(await timed_round(caller(contender), calls))
    return [Row(era, transport, n, label, values) for label, values in per_round.items()]


SERVER_LOGGING = "memory, server logging"
"""The transport label of the rows run with logging exactly as ``MCPServer()`` sets it."""


async def server_defaults(servers: dict[str, MCPServer], rounds: int, calls: int) -> list[Row]:
    """1 ask in memory, both eras, with the root logger as ``MCPServer()`` configured it.

    INFO, with a rich handler on stderr when rich is installed (it is, with fastmcp): what
    users run. Whatever is logged is written to /dev/null, so the terminal costs nothing.
    """
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.INFO)
    sink = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(sink, 2)
    rows: list[Row] = []
    try:
        for era, mode in ((LEGACY, "legacy"), (MODERN, "auto")):
            async with contextlib.AsyncExitStack() as clients:
                opened = {
                    name: await clients.enter_async_context(
                        Client(servers[name], mode=mode, elicitation_callback=answer)  # type: ignore[arg-type]
                    )
                    for name in ("ek", "hand")
                }
                hand_tool = "profiles_legacy" if era == LEGACY else "profiles_modern"
                everyone = [
                    Contender("elicitkit ask()", servers["ek"], "profiles", opened["ek"]),
                    Contender("hand-written SDK", servers["hand"], hand_tool, opened["hand"]),
                ]
                rows += await measure_group(era, SERVER_LOGGING, 1, everyone, rounds, calls)
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(sink)
        root.setLevel(level)
    return rows


async def run(quick: bool) -> list[Row]:
    servers = {"ek": ek_server(), "sdk": sdk_server(), "hand": hand_server()}
    rounds = 1 if quick else 7
    rows = await server_defaults(servers, rounds, 3 if quick else 150)
    # MCPServer configures logging at INFO: an HTTP log line per request, timed otherwise.
    logging.getLogger().setLevel(logging.WARNING)
    asks = (1,) if quick else (1, 3, 10)
    async with contextlib.AsyncExitStack() as stack:
        urls = {
            name: await stack.enter_async_context(serving(server))
            for name, server in servers.items()
        }
        for transport in ("memory", "http"):
            for era, mode in ((LEGACY, "legacy"), (MODERN, "auto")):
                async with contextlib.AsyncExitStack() as clients:
                    opened: dict[str, Client] = {}
                    for name, server in servers.items():
                        target: Any = server if transport == "memory" else urls[name]
                        client = Client(
                            target,  # type: ignore[arg-type]
                            mode=mode,
                            elicitation_callback=answer,
                            input_required_max_rounds=100,  # 50 asks: 51 rounds
                        )
                        opened[name] = await clients.enter_async_context(client)
                        assert opened[name].protocol_version == era
                    by_server = {id(server): opened[name] for name, server in servers.items()}
                    # Long dialogues, where every round replays the answers before it:
                    # 2026-07-28 in memory only (over HTTP they take minutes).
                    more = (20, 50) if era == MODERN and transport == "memory" else ()
                    for n in (*asks, *(() if quick else more)):
                        everyone = contenders(era, n, servers)
                        for contender in everyone:
                            contender.client = by_server[id(contender.server)]
                        base = 3 if quick else (150 if transport == "memory" else 60)
                        calls = max(3, base // n)
                        rows += await measure_group(era, transport, n, everyone, rounds, calls)
    return rows


def table(rows: list[Row]) -> list[str]:
    """Markdown rows: one per contender, ratios against the SDK and hand-written code."""
    lines = [
        "| era | transport | asks | contender | µs CPU/call (median) | spread | x SDK | x hand |",
        "|---|---|---:|---|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, str, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.era, row.transport, row.n), []).append(row)
    for (era, transport, n), group in groups.items():
        sdk = next((r for r in group if r.label.startswith("SDK")), None)
        hand = next(r for r in group if r.label.startswith("hand"))
        for row in group:
            versus_sdk = f"{row.median / sdk.median:.2f}" if sdk else ""
            lines.append(
                f"| {era} | {transport} | {n} | {row.label} | {row.median:,.0f} | "
                f"±{row.spread:.0%} | {versus_sdk} | {row.median / hand.median:.2f} |"
            )
    return lines


def targets(rows: list[Row]) -> list[tuple[str, float, float]]:
    """(target, measured ratio, limit) for the issue's round-trip targets."""
    found: list[tuple[str, float, float]] = []
    groups: dict[tuple[str, str, int], dict[str, Row]] = {}
    for row in rows:
        groups.setdefault((row.era, row.transport, row.n), {})[row.label.split()[0]] = row
    for (era, transport, n), group in groups.items():
        ours = group["elicitkit"].median
        if "SDK" in group:
            name = f"round trip {era} {transport}, 1 ask: elicitkit / SDK"
            found.append((name, ours / group["SDK"].median, 1.0))
        limit = {1: 1.05, 10: 1.2, 20: 1.15, 50: 1.25}.get(n)
        if transport == SERVER_LOGGING:
            limit = 1.10
        if limit is not None:
            name = f"round trip {era} {transport}, {n} ask(s): elicitkit / hand-written"
            found.append((name, ours / group["hand-written"].median, limit))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few calls")
    quick = parser.parse_args().quick
    rows = asyncio.run(run(quick))
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("\n".join(table(rows)))
    for name, ratio, limit in targets(rows):
        verdict = "MET" if ratio <= limit else "NOT MET"
        print(f"{name}: {ratio:.2f}x (target <= {limit:.2f}x: {verdict})")


if __name__ == "__main__":
    main()
