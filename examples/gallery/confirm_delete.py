"""Yes or no before a destructive action, with confirm() (docs/gallery.md)."""

import asyncio

from mcp.server.mcpserver import MCPServer

from elicitkit import confirm, install
from elicitkit.testing import ScriptedUser, accept, connect, decline

server = install(MCPServer("files"))
FILES = {"report.pdf", "notes.txt"}


@server.tool()
async def delete(name: str) -> str:
    if not await confirm(f"Delete {name} for good?", default=False, on_unsupported="raise"):
        return f"Kept {name}."
    FILES.discard(name)  # after the last question: once per call, on every era
    return f"Deleted {name}."


async def main() -> None:
    for reply in (decline(), accept(confirm=True)):
        async with connect(server, protocol="2025-11-25", user=ScriptedUser(reply)) as client:
            result = await client.call_tool("delete", {"name": "report.pdf"})
        print(result.content[0].text)
    print(sorted(FILES))


if __name__ == "__main__":
    asyncio.run(main())
