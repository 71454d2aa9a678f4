"""Preferences with a multi-select: a set of an Enum (docs/gallery.md)."""

import asyncio
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from annotated_types import MinLen
from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install
from elicitkit.testing import ScriptedUser, accept, connect


class Topic(Enum):
    RELEASES = "releases"
    SECURITY = "security"
    EVENTS = "events"


@dataclass
class Preferences:
    topics: Annotated[set[Topic], MinLen(1)]
    weekly_digest: bool = True


server = install(MCPServer("news"))


@server.tool()
async def subscribe() -> str:
    answer = await ask(Preferences, "What would you like to hear about?")
    if not answer.is_accepted():
        return "Not subscribed."
    chosen = answer.unwrap()
    topics = ", ".join(sorted(topic.value for topic in chosen.topics))
    return f"Subscribed to {topics}; weekly digest: {chosen.weekly_digest}."


async def main() -> None:
    for protocol in ("2025-11-25", "2026-07-28"):
        user = ScriptedUser(accept(topics=["security", "releases"]))
        async with connect(server, protocol=protocol, user=user) as client:
            result = await client.call_tool("subscribe", {})
        print(protocol, result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
