"""The SDK's own Resolve/Elicit and elicitkit's ask() in one tool: refused on first use."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Annotated, Any, Literal

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel

import elicitkit
from elicitkit import ask
from elicitkit._runtime import missing_arguments
from elicitkit.integrations._sdk_private import tool_uses_resolve
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


def counting_get_tool(server: MCPServer) -> list[str]:
    """Count ``get_tool`` calls on ``server``'s real tool manager (the SDK's own included)."""
    manager: Any = server._tool_manager  # pyright: ignore[reportPrivateUsage]
    real = manager.get_tool
    calls: list[str] = []

    def get_tool(name: str) -> Any:
        calls.append(name)
        return real(name)

    manager.get_tool = get_tool
    return calls


def bank(*, installed: bool) -> MCPServer:
    server = MCPServer("bank")

    @server.tool()
    async def balance() -> str:
        return "42"

    @server.tool()
    async def amount() -> str:
        answer = await ask(int, "How much?")
        return f"{answer.content}"

    return elicitkit.install(server) if installed else server


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_a_tool_that_never_asks_never_reads_the_tool_manager(
    mode: Literal["legacy", "auto"], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Resolve check reads the SDK's private tool manager only when ask() runs."""
    # Once a tool of the process uses @fill_missing, every tool call looks its tool up for
    # the check of its arguments (by the name it is registered under): not this test's
    # subject, and other tests' tools would decide whether it happens here.
    monkeypatch.setattr(missing_arguments, "checked_tools", set())
    seen: dict[bool, list[str]] = {}
    for installed in (False, True):
        server = bank(installed=installed)
        calls = seen[installed] = counting_get_tool(server)
        async with Client(server, mode=mode) as client:
            assert text_of(await client.call_tool("balance", {})) == "42"
    assert seen[True] == seen[False]  # only the SDK's own look-ups, none of elicitkit's

    server = bank(installed=True)
    calls = counting_get_tool(server)
    async with Client(
        server, mode=mode, elicitation_callback=lambda context, params: _five()
    ) as client:
        assert text_of(await client.call_tool("amount", {})) == "5"
    assert calls.count("amount") > seen[True].count("balance")  # the first ask() looked


async def _five() -> types.ElicitResult:
    return accept(value=5)


def test_the_resolve_check_says_no_refusal_when_the_sdk_moved_its_attributes() -> None:
    """A renamed or missing private attribute degrades to "no refusal", never a crash."""
    server = MCPServer("bank")

    @server.tool()
    async def transfer(account: Annotated[Account, Resolve(which_account)]) -> str:
        return account.account

    assert tool_uses_resolve(server, "transfer") is True  # today's SDK: found
    assert tool_uses_resolve(server, "unknown") is False
    assert tool_uses_resolve(object(), "transfer") is False  # no _tool_manager
    assert tool_uses_resolve(SimpleNamespace(_tool_manager=object()), "transfer") is False
    no_field = SimpleNamespace(get_tool=lambda name: object())  # a tool without the field
    assert tool_uses_resolve(SimpleNamespace(_tool_manager=no_field), "transfer") is False
