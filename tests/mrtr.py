"""Driving MCP 2026-07-28 rounds by hand with the real SDK client, for the replay tests."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp import Client

from elicitkit._compat import BaseExceptionGroup
from elicitkit._replay.state import NeedInput


def accept(**content: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


async def never_called(context: Any, params: Any) -> types.ElicitResult:
    """Declares the elicitation capability; rounds driven by hand never reach it."""
    raise AssertionError("the callback must not be called when rounds are driven by hand")


async def retry(
    client: Client,
    name: str,
    arguments: dict[str, Any],
    answers: types.InputResponses | None = None,
    state: str | None = None,
) -> types.CallToolResult | types.InputRequiredResult:
    """One ``tools/call`` round with these answers and this state."""
    try:
        return await client.session.call_tool(
            name,
            arguments,
            input_responses=answers,
            request_state=state,
            allow_input_required=True,
        )
    except (NeedInput, BaseExceptionGroup) as leaked:
        raise AssertionError(f"escaped the server unconverted: {leaked!r}") from None


def questions(result: object) -> tuple[dict[str, dict[str, Any]], str]:
    """The wire params of each question by key, and the requestState, of an InputRequiredResult."""
    assert isinstance(result, types.InputRequiredResult), result
    assert result.input_requests is not None
    assert result.request_state is not None
    asked: dict[str, dict[str, Any]] = {}
    for key, request in result.input_requests.items():
        wire = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        assert wire["method"] == "elicitation/create"
        asked[key] = wire["params"]
    return asked, result.request_state


def only_question(result: object) -> tuple[str, dict[str, Any], str]:
    """The key, wire params and requestState of an InputRequiredResult with one question."""
    asked, state = questions(result)
    assert len(asked) == 1, asked
    ((key, params),) = asked.items()
    return key, params, state


def text_of(result: object) -> str:
    assert isinstance(result, types.CallToolResult), result
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text
