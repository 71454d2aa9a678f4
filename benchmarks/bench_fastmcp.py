"""elicitkit on fastmcp against fastmcp's own ways: one 10-field form, in memory, both eras.

    .venv/bin/python benchmarks/bench_fastmcp.py [--quick]

Contenders on two ``FastMCP`` servers built alike, one with elicitkit installed and one
plain (so fastmcp's own ways do not pay elicitkit's middleware), each called by the official
client in memory:

* **floor**: a tool asking nothing (what a call costs at all), on the plain server;
* **elicitkit**: ``await ask(Profile)`` (the dataclass of ``bench_roundtrip``), installed;
* **fastmcp**, on the plain server: what fastmcp's docs give: ``ctx.elicit(message,
  Model)`` on 2025-11-25; on 2026-07-28, where ``ctx.elicit`` fails, the "guard pattern": a
  tool that reads ``ctx.input_responses`` and returns an ``InputRequiredResult`` itself, its
  schema rendered once with ``get_elicitation_schema`` and the answer validated with the
  model. fastmcp refuses ``Optional`` fields, so its model gives the optional fields plain
  defaults.

Figures are process CPU time per call, as in ``bench_roundtrip`` (median of a round's calls,
median over interleaved rounds).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
from typing import Annotated, Any, Literal

import mcp_types as types
import pydantic
from annotated_types import Ge, Le, MaxLen, MinLen
from bench_roundtrip import ANSWER, LEGACY, MODERN, Profile, Row, message, timed_round
from fastmcp import Context, FastMCP
from fastmcp.server.elicitation import AcceptedElicitation, get_elicitation_schema
from mcp import Client

import elicitkit
from elicitkit.integrations import client_target
from elicitkit.stores import MemoryStore

Name = Annotated[str, MinLen(1), MaxLen(50)]
Age = Annotated[int, Ge(0), Le(150)]


class FastProfile(pydantic.BaseModel):
    """The 10-field form as fastmcp takes it: no Optional fields, no Enum needed."""

    name: Name
    city: Name
    age: Age
    height: float
    subscribed: bool
    color: Literal["red", "green", "blue"]
    birthday: str
    nickname: str = ""
    floor: int = 0
    note: str = ""


SCHEMA = get_elicitation_schema(FastProfile)  # rendered once, as a careful author would


def server(*, installed: bool) -> FastMCP:
    mcp = FastMCP("bench-fastmcp")
    if installed:
        # MemoryStore: the ratio is elicitkit's own work; bench_redis.py prices the stores.
        elicitkit.install(mcp, store=MemoryStore())

    @mcp.tool
    async def floor() -> str:
        return "Oslo"

    @mcp.tool
    async def with_elicitkit() -> str:
        return (await elicitkit.ask(Profile, message(0))).unwrap().city

    @mcp.tool
    async def with_ctx_elicit(ctx: Context) -> str:
        result = await ctx.elicit(message(0), FastProfile)
        assert isinstance(result, AcceptedElicitation)
        return result.data.city

    @mcp.tool
    async def with_guard(ctx: Context) -> str | types.InputRequiredResult:
        response = (ctx.input_responses or {}).get("profile")
        if isinstance(response, types.ElicitResult) and response.action == "accept":
            return FastProfile.model_validate(response.content).city
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=message(0), requested_schema=SCHEMA)
        )
        return types.InputRequiredResult(input_requests={"profile": request}, request_state="1")

    return mcp


async def answer(_context: Any, _params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=ANSWER)


# label -> (tool, on the installed server?)
CONTENDERS = {
    LEGACY: [
        ("floor (asks nothing)", "floor", False),
        ("elicitkit ask()", "with_elicitkit", True),
        ("fastmcp ctx.elicit", "with_ctx_elicit", False),
    ],
    MODERN: [
        ("floor (asks nothing)", "floor", False),
        ("elicitkit ask()", "with_elicitkit", True),
        ("fastmcp guard pattern", "with_guard", False),
    ],
}


async def run(quick: bool) -> list[Row]:
    servers = {True: server(installed=True), False: server(installed=False)}
    logging.getLogger().setLevel(logging.WARNING)
    rounds, calls = (1, 3) if quick else (7, 150)
    rows: list[Row] = []
    for era, mode in ((LEGACY, "legacy"), (MODERN, "auto")):
        async with contextlib.AsyncExitStack() as stack:
            opened: dict[bool, Client] = {}
            for installed, mcp in servers.items():
                client = Client(client_target(mcp), mode=mode, elicitation_callback=answer)
                opened[installed] = await stack.enter_async_context(client)
                assert opened[installed].protocol_version == era

            def caller(tool: str, installed: bool, opened: dict[bool, Client] = opened) -> Any:
                client = opened[installed]
                return lambda: client.call_tool(tool, {})

            for _, tool, installed in CONTENDERS[era]:
                result = await caller(tool, installed)()
                block = result.content[0]
                assert isinstance(block, types.TextContent), result
                assert block.text == "Oslo", result
                await timed_round(caller(tool, installed), max(2, calls // 4))  # warm-up
            per_round: dict[str, list[float]] = {label: [] for label, _, _ in CONTENDERS[era]}
            for index in range(rounds):
                everyone = CONTENDERS[era] if index % 2 == 0 else CONTENDERS[era][::-1]
                for label, tool, installed in everyone:
                    per_round[label].append(await timed_round(caller(tool, installed), calls))
            rows += [Row(era, "memory", 1, label, values) for label, values in per_round.items()]
    return rows


def table(rows: list[Row]) -> list[str]:
    """Markdown rows: one per contender, with the ratio to fastmcp's own way."""
    lines = [
        "| era | contender | µs CPU/call (median) | spread | x fastmcp |",
        "|---|---|---:|---:|---:|",
    ]
    for era in (LEGACY, MODERN):
        group = [row for row in rows if row.era == era]
        theirs = next(row for row in group if row.label.startswith("fastmcp"))
        lines.extend(
            f"| {era} | {row.label} | {row.median:,.0f} | ±{row.spread:.0%} | "
            f"{row.median / theirs.median:.2f} |"
            for row in group
        )
    return lines


def targets(rows: list[Row]) -> list[tuple[str, float, float]]:
    """elicitkit on fastmcp costs no more than fastmcp's own way, on each era."""
    found = []
    for era in (LEGACY, MODERN):
        group = {row.label.split()[0]: row for row in rows if row.era == era}
        ratio = group["elicitkit"].median / group["fastmcp"].median
        found.append((f"fastmcp server {era}, 1 ask: elicitkit / fastmcp's own way", ratio, 1.0))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few calls")
    rows = asyncio.run(run(parser.parse_args().quick))
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("\n".join(table(rows)))
    for name, ratio, limit in targets(rows):
        verdict = "MET" if ratio <= limit else "NOT MET"
        print(f"{name}: {ratio:.2f}x (target <= {limit:.2f}x: {verdict})")


if __name__ == "__main__":
    main()
