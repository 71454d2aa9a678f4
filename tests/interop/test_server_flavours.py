"""The two flavours of the interop server are the same server to a client.

The real clients run against both flavours (server.py: the official SDK's MCPServer and
fastmcp's FastMCP) and must show the same things; that comparison only means something if
the servers themselves list the same tools, ask the same forms and give the same results.
This checks it with the SDK client, in memory, on both eras, in well under a second.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from fastmcp import FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer

from elicitkit.integrations import client_target
from tests.interop.server import FLAVOURS, STAY, TITLES, build

pytestmark = pytest.mark.anyio

ERAS = [
    pytest.param("legacy", "2025-11-25", id="2025-11-25"),
    pytest.param("auto", "2026-07-28", id="2026-07-28"),
]
# (tool, what the person answers, the result the tool returns)
CASES = [
    pytest.param(
        "plan_stay",
        types.ElicitResult(action="accept", content=STAY),
        "STAY guest=Ada Lovelace nights=3 cabin=garden extras=breakfast,late "
        "day=2026-12-24 insured=True",
        id="plan_stay-filled",
    ),
    pytest.param(
        "plan_stay",
        types.ElicitResult(action="accept", content={**STAY, "guest": "A", "day": "20261224"}),
        "INVALID guest: Must be at least 2 characters long. | "
        "day: Expected a date like 2024-12-31, got '20261224'.",
        id="plan_stay-invalid",
    ),
    pytest.param(
        "plan_stay", types.ElicitResult(action="decline"), "NO STAY: decline", id="decline"
    ),
    pytest.param("plan_stay", types.ElicitResult(action="cancel"), "NO STAY: cancel", id="cancel"),
    pytest.param(
        "preferences",
        types.ElicitResult(action="accept", content={}),
        "PREFS pillow=None view=garden newsletter=None towels=None floor=None",
        id="preferences-untouched",
    ),
    pytest.param(
        "yes_or_no",
        types.ElicitResult(action="accept", content={"value": True}),
        "ANSWER True",
        id="yes_or_no",
    ),
    pytest.param(
        "tip",
        types.ElicitResult(action="accept", content={"value": 0}),
        "INVALID value: Must be greater than 0.",
        id="tip-bound",
    ),
    pytest.param(
        "stay_reasked",
        types.ElicitResult(action="accept", content={**STAY, "day": "2026-12-24"}),
        "STAY guest=Ada Lovelace nights=3 day=2026-12-24",
        id="stay_reasked",
    ),
    pytest.param("open_link", types.ElicitResult(action="accept"), "LINK accept", id="open_link"),
]


def test_each_flavour_is_its_sdks_server() -> None:
    assert isinstance(build("mcp"), MCPServer)
    assert isinstance(build("fastmcp"), FastMCP)


def test_an_unknown_flavour_is_refused() -> None:
    with pytest.raises(SystemExit) as refused:
        build("fastapi")
    assert str(refused.value) == "Unknown server flavour 'fastapi': use one of mcp, fastmcp."


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_both_flavours_list_the_same_tools(mode: str, version: str) -> None:
    listed: dict[str, list[tuple[Any, ...]]] = {}
    for flavour in FLAVOURS:
        async with Client(client_target(build(flavour)), mode=mode) as client:
            assert client.protocol_version == version
            tools = (await client.list_tools()).tools
        # What a client shows of a tool; the SDKs' generated schema titles and fastmcp's
        # `meta` differ and are shown by neither client.
        listed[flavour] = [
            (tool.name, tool.title, tool.description, tool.input_schema.get("properties"))
            for tool in tools
        ]
    assert listed["fastmcp"] == listed["mcp"]
    assert [(name, title) for name, title, *_ in listed["mcp"]] == list(TITLES.items())


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(("tool", "answer", "expected"), CASES)
async def test_both_flavours_ask_the_same_and_answer_the_same(
    mode: str, version: str, tool: str, answer: types.ElicitResult, expected: str
) -> None:
    seen: dict[str, tuple[Any, ...]] = {}
    for flavour in FLAVOURS:
        asked: list[types.ElicitRequestParams] = []

        async def person(
            context: Any,
            params: types.ElicitRequestParams,
            asked: list[types.ElicitRequestParams] = asked,
        ) -> types.ElicitResult:
            asked.append(params)
            return answer

        async with Client(
            client_target(build(flavour)), mode=mode, elicitation_callback=person
        ) as client:
            assert client.protocol_version == version
            result = await client.call_tool(tool, {})
        [block] = result.content
        assert isinstance(block, types.TextContent)
        seen[flavour] = (
            # A URL request's elicitationId is fresh random bits on every call.
            [params.model_dump(exclude_none=True, exclude={"elicitation_id"}) for params in asked],
            result.is_error,
            block.text,
            result.structured_content,
        )
    assert seen["fastmcp"] == seen["mcp"]
    forms, is_error, text, structured = seen["mcp"]
    assert len(forms) == 1
    assert (is_error, text, structured) == (False, expected, {"result": expected})
