"""The server of bench_pending.py: streamable HTTP on 127.0.0.1 (uvicorn, sessions + SSE).

    python benchmarks/pending_server.py PORT

``book(i)`` asks one question; ``three(i)`` asks three in a row; ``stats()`` collects garbage
and reports this process's memory, so the benchmark can compare it before, during and after.
"""

from __future__ import annotations

import gc
import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install
from elicitkit.stores import MemoryStore

server = install(MCPServer("pending"), store=MemoryStore())
logging.getLogger().setLevel(logging.WARNING)  # MCPServer logs every request at INFO


@dataclass
class Seat:
    row: int
    seat: str


@server.tool()
async def book(i: int) -> str:
    seat = (await ask(Seat, f"Seat for guest {i}?")).unwrap()
    return f"{i}:{seat.row}{seat.seat}"


@server.tool()
async def three(i: int) -> str:
    rows = [(await ask(Seat, f"Seat {k} for party {i}?")).unwrap().row for k in range(3)]
    return f"{i}:{sum(rows)}"


@server.tool()
def stats() -> str:
    gc.collect()
    status = Path("/proc/self/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return json.dumps(
        {
            "rss_kib": int(fields["VmRSS"].split()[0]),
            "peak_kib": int(fields["VmHWM"].split()[0]),
            "blocks": sys.getallocatedblocks(),
        }
    )


if __name__ == "__main__":
    # Keep idle connections open longer than uvicorn's 5 s: under a thousand concurrent
    # calls on a loaded machine, a client may reuse a pooled connection just as the server
    # closes it, and httpx does not retry that (a ReadError that says nothing about us).
    uvicorn.run(
        server.streamable_http_app(),
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
        timeout_keep_alive=300,
        backlog=4096,
    )
