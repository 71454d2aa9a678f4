"""A small round-robin TCP proxy on loopback: each new connection goes to the next backend.

    python tests/round_robin_proxy.py LISTEN_PORT BACKEND_PORT [BACKEND_PORT ...]

It stands for the load balancer in front of several workers. A client that opens one
connection per request (as the scale-out tests do) sees consecutive requests, and so the
rounds of one dialogue, land on different workers.
"""

from __future__ import annotations

import asyncio
import itertools
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def main(listen: int, backends: list[int]) -> None:
    """Accept on 127.0.0.1:listen and forward each connection to the next backend."""
    turn = itertools.cycle(backends)

    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", next(turn)
            )
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    server = await asyncio.start_server(forward, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), [int(port) for port in sys.argv[2:]]))
