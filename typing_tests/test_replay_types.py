"""Static typing contract of the replay API: keys, ask_all, Question, stores and limits.

Only type-checked (mypy and pyright, strict), never executed.
"""

from __future__ import annotations

import dataclasses

from mcp.server.mcpserver import MCPServer
from redis.asyncio import Redis
from typing_extensions import assert_type

from elicitkit import ElicitResultTyped, Question, ask, ask_all, install
from elicitkit.replay import ReplayLimits
from elicitkit.stores import Claim, MemoryStore, OutcomeStore, RedisStore


@dataclasses.dataclass
class Name:
    name: str


@dataclasses.dataclass
class Colour:
    colour: str


async def check_keys_and_batches() -> None:
    assert_type(await ask(Name, key="user_name"), ElicitResultTyped[Name])
    assert_type(await ask(bool, "Sure?", key="confirm"), ElicitResultTyped[bool])
    name, colour = await ask_all(Name, Question(Colour, "Favourite colour?", key="colour"))
    assert_type(name, ElicitResultTyped[Name])
    assert_type(colour, ElicitResultTyped[Colour])
    three = await ask_all(Name, Colour, int)
    assert_type(
        three, tuple[ElicitResultTyped[Name], ElicitResultTyped[Colour], ElicitResultTyped[int]]
    )
    assert_type(Question(Name).tp, type[Name])


async def check_stores(client: Redis) -> None:
    stores: list[OutcomeStore] = [MemoryStore(max_entries=10), RedisStore(client)]
    assert_type(await stores[0].claim("d", "t", lease=1.0, keep=60.0, known=True), Claim)
    server = install(MCPServer("s"), store=stores[1], limits=ReplayLimits(max_rounds=5))
    assert_type(server, MCPServer)
