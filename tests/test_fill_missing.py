"""@fill_missing: the user is asked for exactly the optional arguments the model left out."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from elicitkit import FormDefinitionError, FormField, fill_missing, install
from tests.spec_check import assert_spec_valid

pytestmark = pytest.mark.anyio

ERAS = [
    pytest.param("legacy", "2025-11-25", id="2025-11-25"),
    pytest.param("auto", "2026-07-28", id="2026-07-28"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_server() -> MCPServer:
    server = install(MCPServer("fill"))

    @server.tool()
    @fill_missing
    async def book(
        restaurant: str,
        day: dt.date | None = None,
        guests: Annotated[int | None, FormField(description="You included")] = None,
        area: Literal["inside", "terrace"] | None = None,
        note: str = "",
    ) -> str:
        """Book a table."""
        return f"{restaurant} {day} {guests} {area} {note!r}"

    return server


ALL = {"day": "2026-12-24", "guests": 4, "area": "terrace"}


async def _call(
    mode: str, args: dict[str, Any], result: types.ElicitResult | None
) -> tuple[types.CallToolResult, list[Any], list[Any]]:
    seen: list[Any] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        assert result is not None
        return result

    extra = {} if result is None else {"elicitation_callback": callback}
    with anyio.fail_after(10):
        async with Client(make_server(), mode=mode, **extra) as client:
            tools = (await client.list_tools()).tools
            answer = await client.call_tool("book", args)
    return answer, seen, tools


def _text(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_nothing_missing_runs_at_once(mode: str, version: str) -> None:
    result, seen, tools = await _call(mode, {"restaurant": "Maaemo", **ALL}, None)
    assert _text(result) == "Maaemo 2026-12-24 4 terrace ''"
    assert seen == []
    # The input schema the model sees is the tool's own.
    schema = tools[0].input_schema
    assert set(schema["properties"]) == {"restaurant", "day", "guests", "area", "note"}
    assert schema["required"] == ["restaurant"]


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_one_missing_is_asked_alone(mode: str, version: str) -> None:
    given = {"restaurant": "Maaemo", "day": "2026-12-24", "area": "inside", "note": "window"}
    answer = types.ElicitResult(action="accept", content={"guests": 2})
    result, [params], _ = await _call(mode, given, answer)
    assert _text(result) == "Maaemo 2026-12-24 2 inside 'window'"
    assert params.message == "Book needs a few more details."
    assert params.requested_schema == {
        "type": "object",
        "properties": {
            "guests": {"type": "integer", "title": "Guests", "description": "You included"}
        },
        "required": ["guests"],
    }
    assert_spec_valid(params.requested_schema, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_all_missing_asked_in_one_form(mode: str, version: str) -> None:
    answer = types.ElicitResult(action="accept", content=ALL)
    result, [params], _ = await _call(mode, {"restaurant": "Maaemo"}, answer)
    assert _text(result) == "Maaemo 2026-12-24 4 terrace ''"
    schema = params.requested_schema
    assert list(schema["properties"]) == ["day", "guests", "area"]
    assert schema["required"] == ["day", "guests", "area"]
    assert schema["properties"]["day"]["format"] == "date"
    assert_spec_valid(schema, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_declined(mode: str, version: str) -> None:
    answer = types.ElicitResult(action="decline")
    result, _, _ = await _call(mode, {"restaurant": "Maaemo", "day": "2026-12-24"}, answer)
    assert _text(result) == (
        "The user did not give 'guests' and 'area' (decline), so book did not run."
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_client_without_forms_gets_told_what_to_ask(mode: str, version: str) -> None:
    result, _, _ = await _call(mode, {"restaurant": "Maaemo", "guests": 3}, None)
    assert not result.is_error
    assert _text(result) == (
        "This client cannot show forms, so book did not run. Ask the user for 'day' and "
        "'area', then call book again with them."
    )


def test_refused_at_decoration() -> None:
    def not_async(day: dt.date | None = None) -> str:
        return str(day)

    with pytest.raises(FormDefinitionError) as caught:
        fill_missing(not_async)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Cannot use @fill_missing on test_refused_at_decoration.<locals>.not_async: it is not "
        "an async function, and asking the user needs await. Declare it with async def."
    )

    async def unaskable(data: dict[str, int] | None = None) -> str:
        return str(data)

    with pytest.raises(FormDefinitionError) as caught:
        fill_missing(unaskable)
    assert str(caught.value) == (
        "Cannot build a form field for 'data' of Missing arguments of unaskable: "
        "dict[str, int] is a nested mapping, and MCP forms are flat. Declare one field per "
        "key instead."
    )
