"""A stdio server that starts late by a known margin: after its client's second message.

    python slow_start.py COUNT COMMAND...

It holds the first COUNT lines its client writes, then starts COMMAND (a stdio server),
gives it those lines and passes the rest of its input on; the server writes to this
process's stdout and stderr. With COUNT 2 a client that probes with `server/discover` and
does not wait for the answer has, by the time the server starts, given up on the probe and
sent `initialize` too: the AI SDK's stdio probe race (docs/clients.md), reproduced on any
machine, however fast, without a clock.
"""

from __future__ import annotations

import subprocess
import sys
from itertools import chain


def main(argv: list[str]) -> int:
    count, command = int(argv[0]), argv[1:]
    held = [sys.stdin.buffer.readline() for _ in range(count)]
    server = subprocess.Popen(command, stdin=subprocess.PIPE)
    assert server.stdin is not None
    for line in chain(held, sys.stdin.buffer):  # line by line, as it arrives
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
