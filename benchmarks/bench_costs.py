"""Decode, import and replay-state costs of the round-trip benchmark's 10-field form.

    .venv/bin/python benchmarks/bench_costs.py [--quick]

* **Decode**: ``elicitkit.parse_content(Profile, content)`` against
  ``pydantic.TypeAdapter(Profile).validate_python(content)`` on the same dataclass, for a
  valid answer and for an invalid one with four bad fields (both collect every error).
  Interleaved rounds of ``timeit`` loops; the figure is the fastest round (noise only adds
  time), the median round beside it, and the same-round ratios as the noise gauge.
* **Import**: in a fresh interpreter (bytecode compiled first), the time of
  ``import elicitkit`` after ``import mcp.server.mcpserver``, as a share of the latter.
* **Replay state**: the sealed ``requestState`` on the wire after 1, 5 and 20 answers of the
  10-field form (fresh random text in every answer), and the time to seal it (the SDK's
  AES-GCM over its claims envelope) and to open it (unseal, then elicitkit's decode).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import json
import random
import statistics
import string
import subprocess
import sys
import timeit
from pathlib import Path
from typing import Any

import mcp_types as types
import pydantic
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary

import elicitkit
from elicitkit._replay.state import Replay
from elicitkit.stores import MemoryStore

sys.path.insert(0, str(Path(__file__).parent))
from bench_roundtrip import ANSWER, Profile, ProfileModel

VALID = dict(ANSWER)
INVALID = {**ANSWER, "name": "x" * 80, "age": -3, "color": "purple", "birthday": "someday"}
ADAPTER = pydantic.TypeAdapter(Profile)
MODEL_ADAPTER = pydantic.TypeAdapter(ProfileModel)


def _elicitkit(content: dict[str, Any], tp: Any = Profile) -> None:
    with contextlib.suppress(elicitkit.InvalidContent):
        elicitkit.parse_content(tp, content)


def _pydantic(content: dict[str, Any], adapter: Any = ADAPTER) -> None:
    with contextlib.suppress(pydantic.ValidationError):
        adapter.validate_python(content)


def check_decoders() -> None:
    """Both decode the valid answer alike, and both refuse the invalid one on 4 fields."""
    ours, theirs = elicitkit.parse_content(Profile, VALID), ADAPTER.validate_python(VALID)
    assert ours == theirs, (ours, theirs)
    ours_errors = theirs_errors = -1
    try:
        elicitkit.parse_content(Profile, INVALID)
    except elicitkit.InvalidContent as error:
        ours_errors = len(error.errors)
    try:
        ADAPTER.validate_python(INVALID)
    except pydantic.ValidationError as error:
        theirs_errors = error.error_count()
    assert ours_errors == theirs_errors == 4, (ours_errors, theirs_errors)
    model = elicitkit.parse_content(ProfileModel, VALID)
    assert model == MODEL_ADAPTER.validate_python(VALID), model


def decode(quick: bool) -> list[dict[str, Any]]:
    check_decoders()
    rounds, seconds = (3, 0.02) if quick else (15, 0.2)
    rows = []
    cases: list[tuple[str, dict[str, Any], Any, Any, float]] = [
        ("valid", VALID, Profile, ADAPTER, 1.0),
        ("invalid (4 errors)", INVALID, Profile, ADAPTER, 1.0),
        # The same form as a pydantic model (its color a Literal), against TypeAdapter(Model).
        ("pydantic model, valid", VALID, ProfileModel, MODEL_ADAPTER, 1.5),
    ]
    for case, content, tp, adapter, limit in cases:
        ours_timer = timeit.Timer(lambda c=content, t=tp: _elicitkit(c, t))
        theirs_timer = timeit.Timer(lambda c=content, a=adapter: _pydantic(c, a))
        number, _ = theirs_timer.autorange()
        number = max(1, int(number * seconds / 0.2))
        ours, theirs = [], []
        for _ in range(rounds):
            ours.append(ours_timer.timeit(number) / number * 1e6)
            theirs.append(theirs_timer.timeit(number) / number * 1e6)
        same = sorted(o / t for o, t in zip(ours, theirs, strict=True))
        rows.append(
            {
                "case": case,
                "elicitkit_min": min(ours),
                "elicitkit_median": statistics.median(ours),
                "pydantic_min": min(theirs),
                "pydantic_median": statistics.median(theirs),
                "ratio": min(ours) / min(theirs),
                "same_round": (same[0], statistics.median(same), same[-1]),
                "rounds": rounds,
                "number": number,
                "limit": limit,
            }
        )
    return rows


IMPORT_PROBE = """
import time
t0 = time.perf_counter()
import mcp.server.mcpserver
t1 = time.perf_counter()
import elicitkit
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def import_cost(quick: bool) -> dict[str, Any]:
    """``import elicitkit`` on top of ``import mcp.server.mcpserver``, fresh interpreters."""
    compileall.compile_dir(str(Path(elicitkit.__file__).parent), quiet=1)
    subprocess.run([sys.executable, "-c", IMPORT_PROBE], check=True, capture_output=True)  # noqa: S603
    runs = 2 if quick else 15
    mcp_times, ek_times = [], []
    for _ in range(runs):
        out = subprocess.run(  # noqa: S603  (this interpreter, a fixed probe)
            [sys.executable, "-c", IMPORT_PROBE], check=True, capture_output=True, text=True
        ).stdout.split()
        mcp_times.append(float(out[0]))
        ek_times.append(float(out[1]))
    shares = sorted(e / m for e, m in zip(ek_times, mcp_times, strict=True))
    return {
        "runs": runs,
        "mcp_ms": statistics.median(mcp_times) * 1e3,
        "elicitkit_ms": statistics.median(ek_times) * 1e3,
        "share": statistics.median(shares),
        "share_range": (shares[0], shares[-1]),
    }


def _varied(rng: random.Random) -> dict[str, Any]:
    def word(n: int) -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(n)).title()

    return {
        "name": f"{word(6)} {word(8)}",
        "city": word(9),
        "age": rng.randint(18, 99),
        "height": round(rng.uniform(1.4, 2.1), 2),
        "subscribed": rng.random() < 0.5,
        "color": rng.choice(["red", "green", "blue"]),
        "birthday": f"19{rng.randint(40, 99)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
        "nickname": word(5),
        "floor": rng.randint(0, 30),
        "note": f"{word(5)} {word(7)} {word(4)}",
    }


async def _states(checkpoints: list[int]) -> tuple[dict[int, str], RequestStateBoundary]:
    server = elicitkit.install(MCPServer("sizes"), store=MemoryStore())

    @server.tool()
    async def collect(count: int) -> str:
        for index in range(count):
            await elicitkit.ask(Profile, f"Profile {index + 1}?")
        return "done"

    boundary = next(m for m in server.middleware if isinstance(m, RequestStateBoundary))
    rng = random.Random(7)  # noqa: S311  (test data)
    args = {"count": max(checkpoints) + 1}
    found: dict[int, str] = {}

    async def never(_context: Any, _params: Any) -> types.ElicitResult:
        raise AssertionError("answers are sent by hand")

    async with Client(server, elicitation_callback=never) as client:
        first = await client.session.call_tool("collect", args, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        state, (key,) = first.request_state, list(first.input_requests or {})
        for answered in range(1, max(checkpoints) + 1):
            reply = types.ElicitResult(action="accept", content=_varied(rng))
            result = await client.session.call_tool(
                "collect",
                args,
                input_responses={key: reply},
                request_state=state,
                allow_input_required=True,
            )
            assert isinstance(result, types.InputRequiredResult)
            state, (key,) = result.request_state, list(result.input_requests or {})
            if answered in checkpoints:
                found[answered] = state or ""
    return found, boundary


def replay_state(quick: bool) -> list[dict[str, Any]]:
    checkpoints = [1, 5, 20]
    states, boundary = asyncio.run(_states(checkpoints))
    codec = boundary._security.codec  # pyright: ignore[reportPrivateUsage]
    number = 50 if quick else 2000
    rows = []
    for answered, wire in states.items():
        envelope = codec.unseal(wire)
        plaintext = json.loads(envelope)["s"]

        def seal(payload: bytes = envelope) -> None:
            codec.seal(payload)

        def open_(token: str = wire) -> None:
            Replay.from_request(None, json.loads(codec.unseal(token))["s"])

        seal_us = min(timeit.repeat(seal, number=number, repeat=5)) / number * 1e6
        open_us = min(timeit.repeat(open_, number=number, repeat=5)) / number * 1e6
        rows.append(
            {
                "answers": answered,
                "wire_bytes": len(wire),
                "plaintext_bytes": len(plaintext),
                "seal_us": seal_us,
                "open_us": open_us,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    print(json.dumps({"decode": decode(quick), "import": import_cost(quick)}, indent=1))
    print(json.dumps(replay_state(quick), indent=1))


if __name__ == "__main__":
    main()
