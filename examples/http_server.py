"""A tool that asks for a delivery slot, served over streamable HTTP (uvicorn).

    python examples/http_server.py                 # http://127.0.0.1:8000/mcp, every era
    python examples/http_server.py --stateless     # no sessions, JSON responses: 2026-07-28 only

The default configuration keeps sessions and answers with SSE streams, which is what lets
``ask()`` send its question in the middle of a call on 2025-06-18 and 2025-11-25; on
2026-07-28 ``ask()`` replays the tool and works with any configuration. With several
workers behind a load balancer, set MCP_REQUEST_STATE_KEY (32 bytes or more) to the same
secret in each, so a retry may reach any worker, and ELICITKIT_REDIS_URL to one Redis, where
every worker records the calls it completes (without it, a worker refuses to continue a call
it has no record of). docs/http.md explains each setting.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from datetime import date
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity

from elicitkit import ask, form, install


@form(message="When should we deliver?")
@dataclass
class DeliverySlot:
    day: date
    window: Literal["morning", "afternoon", "evening"] = "morning"
    leave_at_door: bool = False


def make_server() -> MCPServer:
    """Build the server, sealing requestState with the shared key when one is configured."""
    key = os.environ.get("MCP_REQUEST_STATE_KEY")
    security = RequestStateSecurity(keys=[key]) if key else None
    server = install(MCPServer("deliveries", request_state_security=security))

    @server.tool()
    async def schedule_delivery(order: str) -> str:
        """Ask the user for a delivery slot for an order."""
        answer = await ask(DeliverySlot)
        if not answer.is_accepted():
            return f"Delivery of {order} not scheduled."
        slot = answer.unwrap()
        door = ", left at the door" if slot.leave_at_door else ""
        return f"Delivering {order} on {slot.day:%Y-%m-%d} in the {slot.window}{door}."

    return server


def main() -> None:
    """Serve on 127.0.0.1 until interrupted."""
    parser = argparse.ArgumentParser(description="Serve the delivery tool over streamable HTTP.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="stateless_http and json_response: scales freely, but only 2026-07-28 can ask",
    )
    args = parser.parse_args()
    url = f"http://{args.host}:{args.port}/mcp"
    eras: Literal["2026-07-28 only", "every protocol version"] = (
        "2026-07-28 only" if args.stateless else "every protocol version"
    )
    print(
        f"MCP server over streamable HTTP at {url} (forms work on {eras}). "
        "Point an MCP client that can show forms at that URL; Ctrl-C stops.",
        file=sys.stderr,
    )
    make_server().run(
        "streamable-http",
        host=args.host,
        port=args.port,
        stateless_http=args.stateless,
        json_response=args.stateless,
    )


if __name__ == "__main__":
    main()
