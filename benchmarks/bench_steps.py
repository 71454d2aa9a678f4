"""The cost of a durable step per round on 2026-07-28, in memory, with the real SDK client.

    .venv/bin/python benchmarks/bench_steps.py [--quick]

Each contender is a tool whose second round is timed (its first round, which only asks, is
not), driven by hand with the SDK client (``allow_input_required``) against an
``MCPServer`` with a `MemoryStore` (a step's own cost; bench_redis.py prices the stores):

* **ask only**: one question; round two returns. The floor.
* **1 / 10 steps replayed from the state**: the steps run in round one, before the
  question; round two replays them from the sealed state (a lookup and a JSON decode each,
  no store read).
* **ask, ask**: two questions; round two asks the second. The floor of the next row.
* **ask, step, ask**: round two runs the step: the store claims it and records its
  outcome before the round's answer leaves (two store calls), then asks.

Interleaved rounds; the figure is the median round time of each contender, and the cost of
a step is its difference from its floor. Before timing, each tool's result is checked.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import time
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server.mcpserver import MCPServer

import elicitkit
from elicitkit import ask, step
from elicitkit.stores import MemoryStore


@dataclasses.dataclass
class Quote:
    item: str
    price: int


def _quote(item: str, index: int) -> Quote:
    return Quote(item, 40 + index)


async def _quote_async(item: str, index: int) -> Quote:
    return _quote(item, index)


def _server() -> MCPServer:
    # MemoryStore: a step's own cost; bench_redis.py prices the stores.
    server = elicitkit.install(MCPServer("bench-steps"), store=MemoryStore())

    @server.tool()
    async def ask_only() -> str:
        sure = await ask(bool, "Go?", key="go")
        return f"done {sure.content}"

    async def replayed(count: int) -> str:
        quotes = [await step(f"q{index}", _quote_async, "lamp", index) for index in range(count)]
        sure = await ask(bool, "Go?", key="go")
        return f"done {sure.content} {sum(quote.price for quote in quotes)}"

    @server.tool()
    async def replayed_1() -> str:
        return await replayed(1)

    @server.tool()
    async def replayed_10() -> str:
        return await replayed(10)

    @server.tool()
    async def ask_ask() -> str:
        await ask(bool, "Go?", key="go")
        await ask(bool, "Sure?", key="sure")
        return "done"

    @server.tool()
    async def ask_step_ask() -> str:
        await ask(bool, "Go?", key="go")
        quote = await step("quote", _quote_async, "lamp", 0)
        await ask(bool, f"Pay {quote.price}?", key="sure")
        return "done"

    return server


CONTENDERS = [
    ("ask only", "ask_only"),
    ("1 step replayed from the state", "replayed_1"),
    ("10 steps replayed from the state", "replayed_10"),
    ("ask, ask (round two asks)", "ask_ask"),
    ("ask, step, ask (round two runs and records the step)", "ask_step_ask"),
]
YES: types.InputResponses = {"go": types.ElicitResult(action="accept", content={"value": True})}


async def _round_two(client: Client, tool: str) -> tuple[float, Any]:
    """Round one (untimed), then round two: its seconds and its result."""
    first = await client.session.call_tool(tool, {}, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult), first
    started = time.perf_counter()
    second = await client.session.call_tool(
        tool,
        {},
        input_responses=YES,
        request_state=first.request_state,
        allow_input_required=True,
    )
    return time.perf_counter() - started, second


def _check(tool: str, result: Any) -> None:
    if tool in {"ask_ask", "ask_step_ask"}:
        assert isinstance(result, types.InputRequiredResult), (tool, result)
        return
    assert isinstance(result, types.CallToolResult), (tool, result)
    assert not result.is_error, (tool, result)


async def run(quick: bool) -> list[dict[str, Any]]:
    """Median µs of round two for each contender, and the step's cost over its floor."""
    rounds = 5 if quick else 400
    times: dict[str, list[float]] = {tool: [] for _, tool in CONTENDERS}
    async with Client(_server(), elicitation_callback=_never) as client:
        for _, tool in CONTENDERS:  # warm up, and check what each returns
            _check(tool, (await _round_two(client, tool))[1])
        for _ in range(rounds):
            for _, tool in CONTENDERS:
                took, _result = await _round_two(client, tool)
                times[tool].append(took)
    medians = {tool: statistics.median(values) * 1e6 for tool, values in times.items()}
    floors = {
        "replayed_1": "ask_only",
        "replayed_10": "ask_only",
        "ask_step_ask": "ask_ask",
    }
    return [
        {
            "contender": name,
            "median_us": medians[tool],
            "over_floor_us": medians[tool] - medians[floors[tool]] if tool in floors else None,
            "rounds": rounds,
        }
        for name, tool in CONTENDERS
    ]


async def _never(*_: Any) -> types.ElicitResult:
    raise AssertionError("rounds are driven by hand: the client is never asked")


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| contender | round two, median µs | over its floor µs |", "|---|---:|---:|"]
    for row in rows:
        over = row["over_floor_us"]
        shown = "floor" if over is None else f"{over:+.0f}"
        lines.append(f"| {row['contender']} | {row['median_us']:.0f} | {shown} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    quick: bool = parser.parse_args().quick
    print("\n".join(table(asyncio.run(run(quick)))))


if __name__ == "__main__":
    main()
