"""The conformance scenarios of examples/conformance_server.py, on a fastmcp server.

    python tests/servers/fastmcp_conformance.py PORT

The very functions that register the scenarios on the official ``MCPServer`` register them
here on a ``FastMCP``: the tools are the same code, only the server differs. Streamable HTTP
on 127.0.0.1, endpoint ``/mcp``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fastmcp import FastMCP

from elicitkit import install

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from conformance_server import SCENARIO_GROUPS  # examples/ is not a package

server = install(FastMCP("elicitkit-conformance"))
for add_scenarios in SCENARIO_GROUPS:
    add_scenarios(server)  # type: ignore[arg-type]  # fastmcp's @tool() takes the same tools


if __name__ == "__main__":
    server.run(
        "streamable-http",
        host="127.0.0.1",
        port=int(sys.argv[1]),
        path="/mcp",
        show_banner=False,
        log_level="WARNING",
    )
