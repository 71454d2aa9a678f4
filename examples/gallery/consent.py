"""Consent before using personal data: one required yes/no (docs/gallery.md)."""

import asyncio
from dataclasses import dataclass
from typing import Annotated

from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, ask, install
from elicitkit.testing import ScriptedUser, accept, connect


@dataclass
class Consent:
    agree: Annotated[
        bool, FormField(title="I agree", description="We keep your answers for 30 days.")
    ]


server = install(MCPServer("survey"))


@server.tool()
async def start_survey() -> str:
    answer = await ask(Consent, "May we store your survey answers?")
    if not answer.is_accepted() or not answer.unwrap().agree:
        return "Survey not started: no consent."
    return "Survey started."


async def main() -> None:
    for reply in (accept(agree=True), accept(agree=False)):
        async with connect(server, user=ScriptedUser(reply)) as client:
            result = await client.call_tool("start_survey", {})
        print(result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
