"""fastmcp server composition: tools of a mounted server ask through the server that serves."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP

from elicitkit import ask, install

pytestmark = pytest.mark.anyio


def shop() -> FastMCP:
    sub = FastMCP("shop")

    @sub.tool
    async def greet() -> str:
        answer = await ask(str, "What is your name?", key="name")
        return f"Hello, {answer.content}" if answer.is_accepted() else answer.action

    return sub


async def user(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
    return {"value": "Ann"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_mounted_servers_tools_ask_through_the_installed_parent(mode: str) -> None:
    main = install(FastMCP("main"))
    main.mount(shop(), namespace="shop")
    async with Client(main, mode=mode, elicitation_handler=user) as client:
        result = await client.call_tool("shop_greet", {})
    assert result.content[0].text == "Hello, Ann"  # type: ignore[union-attr]


async def test_installing_only_the_mounted_server_says_where_to_install() -> None:
    sub = install(shop())
    main = FastMCP("main")
    main.mount(sub, namespace="shop")
    async with Client(main, mode="legacy", elicitation_handler=user) as client:
        result = await client.call_tool("shop_greet", {}, raise_on_error=False)
    assert result.is_error
    # No elicitkit in the chain that served the call, but in the mounted server: ask() says so,
    # as a ToolError, whose text fastmcp passes on as it is (tests/test_uninstalled.py).
    assert result.content[0].text == (  # type: ignore[union-attr]
        "ask() was called in a tool of the server 'shop', which "
        "elicitkit is installed on, but the call came through a server that mounts it and "
        "that elicitkit is not installed on, so there is no client to ask. Call "
        "elicitkit.install(server) on the server you serve; the tools of the servers it "
        "mounts can then ask."
    )
