"""A server defined but never run, like the getting-started in-memory scripts: no server.run()."""

from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install

server = install(MCPServer("norun"))


@server.tool()
async def greet() -> str:
    """Ask for a name."""
    return (await ask(str, "Your name?")).unwrap()
