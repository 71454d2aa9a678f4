"""Where a 2026-07-28 round's time goes: elicitkit's phases, and what-if upper bounds.

    .venv/bin/python benchmarks/round_profile.py phases [--asks 1,20]
    .venv/bin/python benchmarks/round_profile.py bounds [--asks 1,10,20] [--repeats 3]

Not a section of ``RESULTS.md``: a diagnostic for the next person who tries to make rounds
cheaper (issue 22), so that they start from measurements rather than from a profiler.

``phases`` runs the round trip's elicitkit tool (`bench_roundtrip.ek_server`, the 10-field
form asked N times, official client in memory) and times elicitkit's own steps inside real
rounds, each wrapped in a wall-clock counter: µs per call (per dialogue of N asks) and
calls per dialogue. Inside a round these steps cost two to four times what ``timeit`` gives
for them alone (the round runs the SDK's code in between, which evicts ours from the
caches), so ``timeit`` figures mislead about what a change will win.

``bounds`` measures elicitkit / hand-written exactly as the round trip does
(`bench_roundtrip.measure_group`), with elicitkit as it is and with one part of its work
removed, each in a fresh interpreter, alternated ``--repeats`` times:

* ``no-store``: `AtMostOnce` runs the round without the outcome store (no open, claim,
  release or record): what at-most-once costs;
* ``free-replays``: an ``ask()`` answered in an earlier round returns a prebuilt answer at
  once, without preparing its question or rebuilding its value: the most any speed-up of
  replayed asks could win;
* ``both``: the two together, which leaves the rest of elicitkit's round.

They remove guarantees and exist only here, to size what is left to win.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import datetime as dt
import functools
import logging
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_roundtrip as br
from mcp import Client

WHAT_IFS = ("as is", "no-store", "free-replays", "both")


def phases(asks: list[int], *, quick: bool = False) -> None:
    """Print elicitkit's steps inside real rounds: µs per dialogue, and calls per dialogue."""
    from elicitkit._replay import once, state  # noqa: PLC0415  (only this diagnostic reads internals)
    from elicitkit._runtime import answers, asking, delivery  # noqa: PLC0415
    from elicitkit.integrations import _asking_call as asking_call  # noqa: PLC0415
    from elicitkit.integrations import mcp as integration  # noqa: PLC0415

    spent: collections.Counter[str] = collections.Counter()
    calls: collections.Counter[str] = collections.Counter()
    timed = [
        (integration.ElicitkitMiddleware, "__call__", "the middleware, round included"),
        (asking_call.AskingCall, "run_round", "  the round (the SDK's tool call)"),
        (once.AtMostOnce, "begin", "  at most once: round one, round included"),
        (once.AtMostOnce, "run", "  at most once: later rounds, round included"),
        (once.AtMostOnce, "_call", "    outcome store calls"),
        (once.AtMostOnce, "_result_record", "    the final result's record (JSON)"),
        (state.Replay, "from_request", "  replay state: read"),
        (state.Replay, "next_state", "replay state: write (in ask())"),
        (state, "_encode", "  its text (zlib above 1 KiB)"),
        (asking, "prepare", "ask(): prepare the question"),
        (delivery, "rebuilt", "ask(): rebuild a carried answer"),
        (answers, "typed_result", "ask(): decode a new answer"),
        (asking_call, "_elicit_request", "the InputRequiredResult's request models"),
    ]
    for owner, name, label in timed:
        _wrap(owner, name, label, spent, calls)

    async def run(n: int) -> tuple[float, int]:
        server = br.ek_server()
        logging.getLogger().setLevel(logging.WARNING)
        async with Client(
            server,
            mode="auto",
            elicitation_callback=br.answer,  # type: ignore[arg-type]
            input_required_max_rounds=100,
        ) as client:
            for _ in range(20):
                await client.call_tool("profiles", {"n": n})
            spent.clear()
            calls.clear()
            dialogues = 3 if quick else max(20, 600 // n)
            start = time.process_time()
            for _ in range(dialogues):
                await client.call_tool("profiles", {"n": n})
            return (time.process_time() - start) / dialogues * 1e6, dialogues

    for n in asks:
        total, dialogues = asyncio.run(run(n))
        print(f"\n2026-07-28, in memory, {n} ask(s): {total:,.0f} µs of CPU per call (wrapped)")
        print("| step | µs per call | calls per call |\n|---|---:|---:|")
        for _, _, label in timed:
            print(
                f"| {label} | {spent[label] / dialogues / 1000:,.1f} | "
                f"{calls[label] / dialogues:g} |"
            )


def _wrap(
    owner: Any,
    name: str,
    label: str,
    spent: collections.Counter[str],
    calls: collections.Counter[str],
) -> None:
    original: Callable[..., Any] = getattr(owner, name)
    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter_ns()
            try:
                return await original(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter_ns() - start
                calls[label] += 1

        setattr(owner, name, timed_async)
        return

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter_ns()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter_ns() - start
            calls[label] += 1

    setattr(owner, name, timed)


def what_if(name: str, asks: list[int], *, quick: bool = False) -> None:
    """Print ``n ratio`` lines: elicitkit / hand-written with ``name`` applied."""
    if name in ("no-store", "both"):
        from elicitkit._replay import once  # noqa: PLC0415

        async def begin(_self: Any, round_: Callable[[], Any], *_: Any, **__: Any) -> Any:
            return await round_()

        async def run(
            _self: Any, _dialogue: str, round_: Callable[[], Any], *_: Any, **__: Any
        ) -> Any:
            return await round_()

        once.AtMostOnce.begin = begin  # type: ignore[method-assign]
        once.AtMostOnce.run = run  # type: ignore[method-assign]
    hits = _free_replays() if name in ("free-replays", "both") else None
    asyncio.run(_ratios(asks, quick=quick))
    if hits is not None and not hits[0] and max(asks) > 1:
        # The default keys changed: the what-if would silently measure elicitkit as is.
        raise SystemExit("free-replays never returned a prebuilt answer: fix _free_replays")


def _free_replays() -> list[int]:
    """Make replayed asks free; return the count of asks answered that way (a 1-list)."""
    import elicitkit  # noqa: PLC0415
    from elicitkit._runtime.context import current_run  # noqa: PLC0415

    ask = elicitkit.ask
    prebuilt = elicitkit.ElicitResultTyped(
        "accept",
        br.Profile(
            "Ada",
            "Oslo",
            36,
            1.7,
            subscribed=True,
            color=br.Color.GREEN,
            birthday=dt.date(1990, 12, 10),
            nickname="ada",
        ),
    )

    async def replayed_for_free(tp: Any, message: str | None = None, **kwargs: Any) -> Any:
        run = current_run.get()
        replay = run.delivery.replay
        if replay is not None:
            book = run.keys
            number = book.defaults.get("profile", 0) + 1
            carried = replay.answers.get(f"profile#{number}")
            if carried is not None and carried.action == "accept":
                book.defaults["profile"] = number
                book.questions.add(f"profile#{number}")
                hits[0] += 1
                return prebuilt
        return await ask(tp, message, **kwargs)

    hits = [0]
    elicitkit.ask = replayed_for_free  # type: ignore[assignment]
    return hits


async def _ratios(asks: list[int], *, quick: bool) -> None:
    servers = {"ek": br.ek_server(), "sdk": br.sdk_server(), "hand": br.hand_server()}
    logging.getLogger().setLevel(logging.WARNING)
    opened = {
        name: Client(
            server,
            mode="auto",
            elicitation_callback=br.answer,  # type: ignore[arg-type]
            input_required_max_rounds=100,
        )
        for name, server in servers.items()
    }
    clients = {name: await client.__aenter__() for name, client in opened.items()}
    try:
        for n in asks:
            everyone = [
                contender
                for contender in br.contenders(br.MODERN, n, servers)
                if contender.label in ("elicitkit ask()", "hand-written SDK")
            ]
            for contender in everyone:
                contender.client = clients["ek" if contender.server is servers["ek"] else "hand"]
            rounds, calls = (1, 3) if quick else (5, max(3, 150 // n))
            rows = await br.measure_group(br.MODERN, "memory", n, everyone, rounds, calls)
            ours, hand = (row.rounds for row in rows)
            print(n, statistics.median(a / b for a, b in zip(ours, hand, strict=True)))
    finally:
        for client in reversed(opened.values()):
            await client.__aexit__(None, None, None)


def bounds(asks: list[int], repeats: int, *, quick: bool = False) -> None:
    """Run each what-if in fresh interpreters, alternated; print the median ratios."""
    found: dict[str, dict[int, list[float]]] = {name: {} for name in WHAT_IFS}
    for repeat in range(repeats):
        order = WHAT_IFS if repeat % 2 == 0 else WHAT_IFS[::-1]
        for name in order:
            command = [sys.executable, str(Path(__file__)), "what-if", name]
            command += ["--asks", ",".join(map(str, asks))] + (["--quick"] if quick else [])
            # This interpreter, this script.
            done = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603
            output = done.stdout
            for line in output.splitlines():
                n, ratio = line.split()
                found[name].setdefault(int(n), []).append(float(ratio))
    print("| asks | " + " | ".join(WHAT_IFS) + " |\n|---:|" + "---:|" * len(WHAT_IFS))
    for n in asks:
        cells = [f"{statistics.median(found[name][n]):.2f}x" for name in WHAT_IFS]
        print(f"| {n} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("phases", "bounds", "what-if"))
    parser.add_argument("name", nargs="?", choices=WHAT_IFS, help="what-if: which one")
    parser.add_argument("--asks", default="1,10,20", help="comma-separated question counts")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a smoke run: few calls")
    arguments = parser.parse_args()
    asks = [int(n) for n in arguments.asks.split(",")]
    if arguments.mode == "phases":
        phases(asks, quick=arguments.quick)
    elif arguments.mode == "bounds":
        bounds(asks, arguments.repeats, quick=arguments.quick)
    else:
        what_if(arguments.name or "as is", asks, quick=arguments.quick)


if __name__ == "__main__":
    main()
