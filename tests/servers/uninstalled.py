"""A server whose author forgot ``elicitkit.install(server)``: every way to ask, none works.

    python uninstalled.py mcp|fastmcp stdio
    python uninstalled.py mcp|fastmcp http PORT

Each tool asks in one of elicitkit's ways. The fastmcp server masks error details, so only
a ``ToolError``'s text reaches the client there.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer

from elicitkit import ask, ask_all, ask_text, choose, confirm, step
from elicitkit.url import ask_url


@dataclass
class Name:
    name: str


async def _greet() -> str:
    answer = await ask(Name)
    return f"Hello {answer.unwrap().name}"


async def _confirm() -> str:
    return str(await confirm("Go on?"))


async def _choose() -> str:
    return str(await choose("Colour?", ["red", "blue"]))


async def _text() -> str:
    return str(await ask_text("Nickname?"))


async def _both() -> str:
    answers = await ask_all(Name, Name)
    return str(len(answers))


async def _act() -> str:
    async def charge() -> str:
        return "charged"

    return await step("charge", charge)


async def _link() -> str:
    return str((await ask_url("Sign in", "https://example.com/sign-in")).action)


TOOLS = {
    "greet": _greet,
    "confirm_it": _confirm,
    "choose_it": _choose,
    "text_it": _text,
    "both": _both,
    "act": _act,
    "link": _link,
}


def make_server(sdk: str) -> Any:
    """The server of ``sdk``, its tools registered, elicitkit NOT installed."""
    server: Any = (
        MCPServer("forgot") if sdk == "mcp" else FastMCP("forgot", mask_error_details=True)
    )
    for name, body in TOOLS.items():
        server.tool(name=name)(body)
    return server


if __name__ == "__main__":
    sdk, transport = sys.argv[1], sys.argv[2]
    server = make_server(sdk)
    if transport == "stdio":
        if sdk == "fastmcp":
            server.run("stdio", show_banner=False, log_level="WARNING")
        else:
            server.run("stdio")
    else:
        port = int(sys.argv[3])
        if sdk == "fastmcp":
            server.run("http", host="127.0.0.1", port=port, show_banner=False, log_level="WARNING")
        else:
            server.run("streamable-http", host="127.0.0.1", port=port)
