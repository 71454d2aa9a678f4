"""Sign in with a link (URL mode), with ask_url() (docs/gallery.md)."""

import asyncio
from urllib.parse import parse_qs, urlsplit

import mcp_types as types
from mcp import Client
from mcp.server.mcpserver import MCPServer

from elicitkit import install
from elicitkit.url import ask_url

server = install(MCPServer("calendar"))
SIGNED_IN: set[str] = set()  # the states your OAuth callback has seen come back


def authorize_url(state: str) -> str:
    return f"https://auth.example.com/authorize?client_id=calendar&state={state}"


async def signed_in(state: str) -> bool:
    return state in SIGNED_IN


@server.tool()
async def connect_calendar() -> str:
    answer = await ask_url("Sign in to your calendar", authorize_url, completed=signed_in)
    if not answer.is_accepted():
        return "Not connected."
    if not await signed_in(answer.unwrap()):
        return "Finish signing in in your browser, then ask again."
    return "Calendar connected."


async def browser(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
    state = parse_qs(urlsplit(params.url).query)["state"][0]
    SIGNED_IN.add(state)  # the user signed in; the provider redirected to your callback
    return types.ElicitResult(action="accept")


async def main() -> None:
    for mode in ("legacy", "auto"):  # 2025-11-25, then 2026-07-28
        async with Client(server, mode=mode, elicitation_callback=browser) as client:
            result = await client.call_tool("connect_calendar", {})
            print(client.protocol_version, result.content[0].text)


if __name__ == "__main__":
    asyncio.run(main())
