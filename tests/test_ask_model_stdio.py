"""ask_model over stdio: a real server subprocess, the official client without forms."""

from __future__ import annotations

import sys
from typing import IO, Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.test_stdio import REPO, SERVER_ENV, TIMEOUT, server_stderr

__all__ = ["server_stderr"]  # a fixture, used by name

SCRIPT = REPO / "tests" / "servers" / "ask_model.py"


def text(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("sdk", ["mcp", "fastmcp"])
@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
def test_listing_then_answer_over_stdio(sdk: str, mode: str, server_stderr: IO[str]) -> None:
    async def main() -> list[Any]:
        params = StdioServerParameters(
            command=sys.executable, args=[str(SCRIPT), sdk], cwd=REPO, env=SERVER_ENV
        )
        with anyio.fail_after(TIMEOUT):
            async with Client(stdio_client(params, errlog=server_stderr), mode=mode) as client:
                listing = await client.call_tool("ship", {"item": "lamp"})
                assert listing.structured_content is not None
                ticket = listing.structured_content["ticket"]
                bad = await client.call_tool(
                    "answer_form", {"ticket": ticket, "answers": {"street": "Elm 1"}}
                )
                assert bad.structured_content is not None
                again = bad.structured_content["ticket"]
                answers = {"street": "Elm 1", "zip_code": "1234"}
                good = await client.call_tool("answer_form", {"ticket": again, "answers": answers})
                resent = await client.call_tool(
                    "answer_form", {"ticket": again, "answers": answers}
                )
                return [listing, bad, good, resent]

    listing, bad, good, resent = anyio.run(main)
    assert "Ask the user the question below" in text(listing)
    # ship is `-> str`: its output schema admits the listing, so it is a normal result (the
    # official client checked it against that schema).
    assert not listing.is_error
    assert listing.structured_content["result"] == text(listing)
    assert bad.structured_content["questions"][0]["corrections"] == [
        {"field": "zip_code", "message": "This field is required."}
    ]
    assert text(good) == "shipped lamp to Elm 1 (model, shipment #1)"
    assert text(resent) == text(good)  # recorded: shipped once
