"""Run a stdio server script for a client, offering the server an older protocol version.

    python docs/pictures/_offer.py VERSION SCRIPT [ARGS...]

The client (the MCP Inspector) starts this instead of the server. Every line passes through
unchanged, except the client's ``initialize`` request, whose ``protocolVersion`` becomes
VERSION (``2025-06-18``): the server negotiates that version as it would with a client that
speaks no newer one, and the client is told so in the answer, as the handshake provides.
The server runs on this checkout's elicitkit (clients do not pass ``PYTHONPATH`` on).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any, cast

ROOT = Path(__file__).resolve().parents[2]


def _pump(source: IO[bytes], sink: IO[bytes]) -> None:
    for line in iter(source.readline, b""):
        sink.write(line)
        sink.flush()


def _offered(line: bytes, version: str) -> bytes:
    """LINE as the server gets it: the client's offer replaced in an ``initialize`` request."""
    try:
        message: Any = json.loads(line)
    except ValueError:
        return line
    if not isinstance(message, dict):
        return line
    request = cast("dict[str, Any]", message)
    if request.get("method") != "initialize":
        return line
    request.setdefault("params", {})["protocolVersion"] = version
    return json.dumps(request).encode() + b"\n"


def main(argv: list[str]) -> int:
    """Start SCRIPT, pass the client's lines to it (VERSION offered), and its lines back."""
    version, script, *args = argv
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    server = subprocess.Popen(  # noqa: S603 (this interpreter, on a script of this checkout)
        [sys.executable, script, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    if server.stdin is None or server.stdout is None:  # both piped above; said for the checkers
        raise RuntimeError(f"{script} started without pipes to talk to.")
    back = threading.Thread(target=_pump, args=(server.stdout, sys.stdout.buffer), daemon=True)
    back.start()
    for line in iter(sys.stdin.buffer.readline, b""):
        server.stdin.write(_offered(line, version))
        server.stdin.flush()
    server.stdin.close()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
