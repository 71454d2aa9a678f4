"""`examples/quote_confirm_pay.py` for the interop suite, writing down every real run.

    python tests/interop/checkout_server.py RUNS_FILE

Serves the example's ``checkout`` tool over stdio, unchanged, and appends one line to
RUNS_FILE each time the tool's body runs (``body checkout``: once per round on 2026-07-28)
or a step's function really runs (``step quote``, ``step pay``), through the hook the
testing kit counts with (``elicitkit._runtime.steps.observers``). A replayed step writes
nothing, so the test reads how many times the payment really happened.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# This checkout's elicitkit and the example as a module (its Quote is found again by its
# module's name): the Inspector passes no PYTHONPATH to the servers it starts.
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

import quote_confirm_pay  # noqa: E402

from elicitkit._runtime.steps import observers  # noqa: E402

RUNS = Path(sys.argv[1])


def write_down(event: str, name: str, call: str | None) -> None:
    del call  # one client, one call at a time
    with RUNS.open("a", encoding="utf-8") as runs:
        runs.write(f"{event} {name}\n")


observers.append(write_down)
quote_confirm_pay.server.run("stdio")
