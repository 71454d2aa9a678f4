"""The SDK's own Resolve/Elicit and elicitkit's ask() in one tool: refused on first use."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel

import elicitkit
from elicitkit import ask
from tests.mrtr import accept, text_of

pytestmark = pytest.mark.anyio


class Account(BaseModel):
    account: str


async def which_account() -> Elicit[Account]:
    return Elicit("Which account?", Account)


REFUSAL = (
    "Error executing tool transfer: The tool 'transfer' uses both the SDK's Resolve(...) "
    "parameters and elicitkit's ask(), which cannot share one call: on MCP 2026-07-28 both "
    "carry their progress in the one requestState, and the user would be asked the same "
    "questions over and over. Ask every question with ask() or ask_all() in the tool body, "
    "or only with Resolve(...)."
)


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_ask_beside_resolve_is_refused_with_both_named(
    mode: Literal["legacy", "auto"],
) -> None:
    server = elicitkit.install(MCPServer("bank"))
    transfers: list[str] = []
    shown: list[str] = []

    @server.tool()
    async def transfer(account: Annotated[Account, Resolve(which_account)]) -> str:
        amount = await ask(int, "How much?")
        transfers.append(f"{amount.content} from {account.account}")
        return "sent"

    @server.tool()
    async def plain() -> str:
        amount = await ask(int, "How much?")
        return f"{amount.content}"

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params.message)
        return accept(account="savings") if params.message == "Which account?" else accept(value=5)

    async with Client(server, elicitation_callback=answer, mode=mode) as client:
        refused = await client.call_tool("transfer", {})
        fine = await client.call_tool("plain", {})
    assert refused.is_error
    assert text_of(refused) == REFUSAL
    assert transfers == []
    assert shown == ["Which account?", "How much?"]  # Resolve's one question, then plain's
    assert text_of(fine) == "5"
