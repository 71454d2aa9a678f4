"""@fill_missing: the user is asked for exactly the optional arguments the model left out.

Every test that calls a tool runs on both server SDKs (the ``sdk`` fixture), including the
tool features one of them offers: a ``ctx: Context`` parameter, ``Field(...)`` metadata.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import typing
from typing import Annotated, Any, Literal

import anyio
import fastmcp
import mcp_types as types
import pytest
from fastmcp import Context as FastMCPContext
from mcp import Client
from mcp.server.mcpserver import Context as MCPContext
from pydantic import Field

from elicitkit import FormDefinitionError, FormField, fill_missing, requested_schema
from tests.sdks import ERAS, in_memory, new_server
from tests.spec_check import assert_spec_valid

pytestmark = pytest.mark.anyio


async def book(
    restaurant: str,
    day: dt.date | None = None,
    guests: Annotated[int | None, FormField(description="You included")] = None,
    area: Literal["inside", "terrace"] | None = None,
    note: str = "",
) -> str:
    """Book a table."""
    return f"{restaurant} {day} {guests} {area} {note!r}"


def book_missing(names: tuple[str, ...]) -> Any:
    """The form @fill_missing builds for these missing arguments of ``book``."""
    hints = typing.get_type_hints(book, include_extras=True)
    fields = [(name, Annotated[hints[name], FormField(required=True)]) for name in names]
    return dataclasses.make_dataclass("book_missing", fields)


def make_server(sdk: str, *, decorate: bool = True) -> Any:
    server = new_server(sdk, "fill")
    server.tool()(fill_missing(book) if decorate else book)
    return server


async def tool_schemas(server: Any) -> list[tuple[str, Any, Any]]:
    """Each tool's name, input schema and output schema, as a client sees them."""
    async with Client(in_memory(server), mode="legacy") as client:
        tools = (await client.list_tools()).tools
    return [(tool.name, tool.input_schema, tool.output_schema) for tool in tools]


DAY = dt.date(2026, 12, 24)
ALL = {"day": "2026-12-24", "guests": 4, "area": "terrace"}


async def _call(
    sdk: str, mode: str, args: dict[str, Any], result: types.ElicitResult | None
) -> tuple[types.CallToolResult, list[Any], list[Any]]:
    seen: list[Any] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        assert result is not None
        return result

    extra = {} if result is None else {"elicitation_callback": callback}
    with anyio.fail_after(10):
        async with Client(in_memory(make_server(sdk)), mode=mode, **extra) as client:
            tools = (await client.list_tools()).tools
            answer = await client.call_tool("book", args)
    return answer, seen, tools


def _text(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_nothing_missing_runs_at_once(sdk: str, mode: str, version: str) -> None:
    result, seen, tools = await _call(sdk, mode, {"restaurant": "Maaemo", **ALL}, None)
    assert _text(result) == "Maaemo 2026-12-24 4 terrace ''"
    assert seen == []
    # The input schema the model sees is the tool's own, exactly as without the decorator.
    schema = tools[0].input_schema
    assert set(schema["properties"]) == {"restaurant", "day", "guests", "area", "note"}
    assert schema["required"] == ["restaurant"]
    assert await tool_schemas(make_server(sdk)) == await tool_schemas(
        make_server(sdk, decorate=False)
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_one_missing_is_asked_alone(sdk: str, mode: str, version: str) -> None:
    given = {"restaurant": "Maaemo", "day": "2026-12-24", "area": "inside", "note": "window"}
    answer = types.ElicitResult(action="accept", content={"guests": 2})
    result, [params], _ = await _call(sdk, mode, given, answer)
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
async def test_all_missing_asked_in_one_form(sdk: str, mode: str, version: str) -> None:
    answer = types.ElicitResult(action="accept", content=ALL)
    result, [params], _ = await _call(sdk, mode, {"restaurant": "Maaemo"}, answer)
    assert _text(result) == "Maaemo 2026-12-24 4 terrace ''"
    schema = params.requested_schema
    assert list(schema["properties"]) == ["day", "guests", "area"]
    assert schema["required"] == ["day", "guests", "area"]
    assert schema["properties"]["day"]["format"] == "date"
    assert_spec_valid(schema, version)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_declined(sdk: str, mode: str, version: str) -> None:
    answer = types.ElicitResult(action="decline")
    result, _, _ = await _call(sdk, mode, {"restaurant": "Maaemo", "day": "2026-12-24"}, answer)
    assert _text(result) == (
        "The user did not give 'guests' and 'area' (decline), so book did not run."
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_client_without_forms_gets_told_what_to_ask(
    sdk: str, mode: str, version: str
) -> None:
    result, _, _ = await _call(sdk, mode, {"restaurant": "Maaemo", "guests": 3}, None)
    assert not result.is_error
    text = (
        "This client cannot show forms, so book did not run. Ask the user for 'day' and "
        "'area', then call book again with them.\n"
        "  - day (text, format date, required)\n"
        '  - area (text, one of "inside", "terrace", required)'
    )
    assert _text(result) == text
    # The JSON schema of the missing arguments: the form elicitkit would have sent.
    schema = requested_schema(book_missing(("day", "area")), protocol="2025-11-25")
    assert result.structured_content == {
        "result": text,
        "missing_arguments": {
            "tool": "book",
            "fields": [
                {
                    "name": "day",
                    "type": "string",
                    "title": "Day",
                    "format": "date",
                    "required": True,
                },
                {
                    "name": "area",
                    "type": "string",
                    "title": "Area",
                    "choices": [
                        {"value": "inside", "label": "inside"},
                        {"value": "terrace", "label": "terrace"},
                    ],
                    "required": True,
                },
            ],
            "schema": schema,
        },
    }
    assert schema["required"] == ["day", "area"]


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_fastmcp_client_on_a_fastmcp_server(mode: str, version: str) -> None:
    """fastmcp's own client (which checks answers against the schema) fills the form too."""
    asked: list[list[str]] = []

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        asked.append(list(params.requested_schema["properties"]))
        return ALL

    with anyio.fail_after(10):
        async with fastmcp.Client(
            make_server("fastmcp"), mode=mode, elicitation_handler=handler
        ) as client:
            assert client.protocol_version == version
            result = await client.call_tool("book", {"restaurant": "Maaemo"})
    assert _text(result) == "Maaemo 2026-12-24 4 terrace ''"
    assert asked == [["day", "guests", "area"]]


# --------------------------------------------------------------------------------------
# The SDKs' own tool features: a ctx parameter, Field(...) metadata, a non-text result
# --------------------------------------------------------------------------------------

Nights = Annotated[int | None, Field(description="Nights away", ge=1)]
BUDGET = Field(default=None, description="Budget in euros")


def context_server(sdk: str, *, decorate: bool = True) -> Any:
    """Tools taking the SDK's Context (also optional), and Field metadata, returning an int."""
    server = new_server(sdk, "context")
    maybe = fill_missing if decorate else (lambda tool: tool)
    if sdk == "fastmcp":

        @server.tool()
        @maybe
        async def plan(
            ctx: FastMCPContext, trip: str, nights: Nights = None, budget: int | None = BUDGET
        ) -> int:
            await ctx.info(f"planning {trip}")
            return (nights or 0) * (budget or 0)

        @server.tool()
        @maybe
        async def remind(ctx: FastMCPContext | None = None, when: dt.date | None = None) -> str:
            return f"{when} {ctx is not None}"

    else:

        @server.tool()
        @maybe
        async def plan(
            ctx: MCPContext, trip: str, nights: Nights = None, budget: int | None = BUDGET
        ) -> int:
            await ctx.info(f"planning {trip}")
            return (nights or 0) * (budget or 0)

        @server.tool()
        @maybe
        async def remind(ctx: MCPContext | None = None, when: dt.date | None = None) -> str:
            return f"{when} {ctx is not None}"

    return server


async def _call_context_tool(
    sdk: str, mode: str, name: str, args: dict[str, Any], answer: dict[str, Any] | None
) -> tuple[types.CallToolResult, list[Any], list[str]]:
    seen: list[Any] = []
    logs: list[str] = []

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.append(params)
        return types.ElicitResult(action="accept", content=answer)

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        data = params.data  # the official SDK logs the text, fastmcp {"msg": text, ...}
        logs.append(data["msg"] if isinstance(data, dict) else data)

    extra = {} if answer is None else {"elicitation_callback": callback}
    with anyio.fail_after(10):
        async with Client(
            in_memory(context_server(sdk)), mode=mode, logging_callback=on_log, **extra
        ) as client:
            result = await client.call_tool(name, args)
    return result, seen, logs


# The SDKs warn that logging is deprecated on 2026-07-28; ctx.info is what the tool uses.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_tool_with_context_and_field_metadata(sdk: str, mode: str, version: str) -> None:
    answer = {"nights": 3, "budget": 500}
    result, [params], logs = await _call_context_tool(sdk, mode, "plan", {"trip": "Oslo"}, answer)
    assert not result.is_error
    assert _text(result) == "1500"
    assert result.structured_content == {"result": 1500}
    assert params.requested_schema == {
        "type": "object",
        "properties": {
            "nights": {
                "type": "integer",
                "title": "Nights",
                "description": "Nights away",
                "minimum": 1,
            },
            "budget": {"type": "integer", "title": "Budget", "description": "Budget in euros"},
        },
        "required": ["nights", "budget"],
    }
    assert_spec_valid(params.requested_schema, version)
    # The tool body ran once, after the answer, with the server's context.
    assert logs == (["planning Oslo"] if version == "2025-11-25" else [])


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_optional_server_context_is_passed_not_asked(
    sdk: str, mode: str, version: str
) -> None:
    answer = {"when": "2026-12-24"}
    result, [params], _ = await _call_context_tool(sdk, mode, "remind", {}, answer)
    assert _text(result) == "2026-12-24 True"
    assert list(params.requested_schema["properties"]) == ["when"]


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_client_without_forms_gets_the_text_whatever_the_return_type(
    sdk: str, mode: str, version: str
) -> None:
    result, _, _ = await _call_context_tool(sdk, mode, "plan", {"trip": "Oslo"}, None)
    text = (
        "This client cannot show forms, so plan did not run. Ask the user for 'nights' and "
        "'budget', then call plan again with them.\n"
        "  - nights (whole number, at least 1, required). Nights away\n"
        "  - budget (whole number, required). Budget in euros"
    )
    assert not result.is_error
    assert _text(result) == text
    assert result.structured_content is not None
    assert result.structured_content["result"] == text  # fits the widened output schema
    missing = result.structured_content["missing_arguments"]
    assert missing["schema"]["properties"]["nights"]["minimum"] == 1


async def test_context_tools_keep_their_input_schema(sdk: str) -> None:
    decorated = await tool_schemas(context_server(sdk))
    plain = await tool_schemas(context_server(sdk, decorate=False))
    assert [(name, inputs) for name, inputs, _ in decorated] == [
        (name, inputs) for name, inputs, _ in plain
    ]
    [plan_inputs] = [inputs for name, inputs, _ in decorated if name == "plan"]
    assert set(plan_inputs["properties"]) == {"trip", "nights", "budget"}  # no ctx
    assert plan_inputs["properties"]["budget"]["description"] == "Budget in euros"
    # Only the output schema of `-> int` widens, to admit the text for a no-forms client.
    [(_, _, before)] = [entry for entry in plain if entry[0] == "plan"]
    [(_, _, after)] = [entry for entry in decorated if entry[0] == "plan"]
    assert before["properties"]["result"]["type"] == "integer"
    assert after["properties"]["result"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]


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

    async def nothing_to_ask(ctx: MCPContext | None = None, day: dt.date = DAY) -> str:
        return str(day)

    with pytest.raises(FormDefinitionError) as caught:
        fill_missing(nothing_to_ask)
    assert str(caught.value) == (
        "Cannot use @fill_missing on test_refused_at_decoration.<locals>.nothing_to_ask: none "
        "of its parameters can be asked, since only a parameter whose default is None and "
        "whose type admits None can be missing. Declare one like `day: date | None = None`, "
        "or remove @fill_missing."
    )


DAYS_LEFT = Field(description="Days left")


async def _returns_text(day: dt.date | None = None) -> str | None:
    return str(day)


async def _returns_any(day: dt.date | None = None) -> Any:
    return day


async def _returns_nothing_declared(day: dt.date | None = None):  # type: ignore[no-untyped-def]
    return day


async def _returns_mapping(day: dt.date | None = None) -> dict[str, int]:
    return {"day": day.day if day else 0}


async def _returns_annotated(day: dt.date | None = None) -> Annotated[int, DAYS_LEFT]:
    return day.day if day else 0


@pytest.mark.parametrize(
    ("tool", "widened"),
    [
        pytest.param(_returns_text, None, id="admits text"),
        pytest.param(_returns_any, None, id="Any"),
        pytest.param(_returns_nothing_declared, None, id="undeclared"),
        pytest.param(_returns_mapping, dict[str, int] | str, id="mapping"),
        pytest.param(_returns_annotated, Annotated[int, DAYS_LEFT] | str, id="annotated"),
    ],
)
def test_declared_return_type_admits_the_text(tool: Any, widened: Any) -> None:
    wrapped = fill_missing(tool)
    if widened is None:  # the tool's own signature, as functools.wraps shows it
        assert inspect.signature(wrapped) == inspect.signature(tool)
        return
    assert typing.get_type_hints(wrapped, include_extras=True)["return"] == widened
    signature = inspect.signature(wrapped)
    assert signature.return_annotation == widened
    # The parameters are shown as the tool declares them, resolved.
    assert signature.parameters["day"].annotation == dt.date | None


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_values_the_model_gives_are_checked_by_the_same_form(
    sdk: str, mode: str, version: str
) -> None:
    """Before the SDK's own argument validation: the form's per-field messages."""
    server = make_server(sdk)
    given = {"restaurant": "Maaemo", "day": "24/12", "area": "roof", "guests": 2}
    async with Client(in_memory(server), mode=mode) as client:
        result = await client.call_tool("book", given)
        fine = await client.call_tool("book", {**given, "day": "2026-12-24", "area": "inside"})
    assert result.is_error
    assert _text(result) == (
        "The arguments given to book do not fit, so book did not run. Ask the user for "
        "corrected values, then call book again with them.\n"
        "  - day: Expected a date like 2024-12-31, got '24/12'.\n"
        "  - area: Must be one of 'inside', 'terrace'; got 'roof'.\n"
        "The arguments, as the form asks them:\n"
        "  - day (text, format date, required)\n"
        "  - guests (whole number, required). You included\n"
        '  - area (text, one of "inside", "terrace", required)'
    )
    assert result.structured_content is not None
    assert result.structured_content["invalid_arguments"]["corrections"] == [
        {"field": "day", "message": "Expected a date like 2024-12-31, got '24/12'."},
        {"field": "area", "message": "Must be one of 'inside', 'terrace'; got 'roof'."},
    ]
    assert _text(fine) == "Maaemo 2026-12-24 2 inside ''"


async def _arrive(guest: str, day: dt.date | None = None) -> str:
    """A ``@fill_missing`` tool that no test registers under its own name."""
    return f"{guest} arrives {day}"


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_tool_registered_under_another_name_keeps_the_check(
    sdk: str, mode: str, version: str
) -> None:
    """The check is found by the name the tool is registered under, not its function's."""
    server = new_server(sdk, "renamed")
    server.tool(name="arrival")(fill_missing(_arrive))
    async with Client(in_memory(server), mode=mode) as client:
        result = await client.call_tool("arrival", {"guest": "Ada", "day": "24/12"})
        fine = await client.call_tool("arrival", {"guest": "Ada", "day": "2026-12-24"})
    assert result.is_error
    # The wording names the tool by its function, as @fill_missing knows it.
    assert _text(result) == (
        "The arguments given to _arrive do not fit, so _arrive did not run. Ask the user for "
        "corrected values, then call _arrive again with them.\n"
        "  - day: Expected a date like 2024-12-31, got '24/12'.\n"
        "The arguments, as the form asks them:\n"
        "  - day (text, format date, required)"
    )
    assert _text(fine) == "Ada arrives 2026-12-24"


async def test_a_hostile_value_is_refused_in_linear_time(sdk: str) -> None:
    server = make_server(sdk)
    async with Client(in_memory(server), mode="legacy") as client:
        result = await client.call_tool("book", {"restaurant": "M", "day": "9" * 1_000_000})
    assert result.is_error
    assert "day: Expected a date like 2024-12-31" in _text(result)
