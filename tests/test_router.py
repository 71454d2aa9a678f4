"""elicitkit's middleware as a router: its handlers, their order, and what each one serves.

The middleware (`elicitkit.integrations._router.ElicitkitMiddleware`) gives each request to
the first of its handlers that claims it. Each test below shows one handler's feature with
the router as installed, and the same request with that handler dropped or moved, on both
server SDKs: so a handler that is lost, or asked after the one it must precede, fails here.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
from typing import Any

import mcp_types as types
import pytest
from fastmcp import FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit import ask, fill_missing, install
from elicitkit.integrations._answer_call import AnswerFormCall
from elicitkit.integrations._arguments_check import ArgumentsCheck
from elicitkit.integrations._asking_call import AskingCall
from elicitkit.integrations._handler import Handler
from elicitkit.integrations._options import InstallOptions
from elicitkit.integrations._router import ElicitkitMiddleware
from elicitkit.integrations._task_requests import TaskRequests
from elicitkit.integrations._tool_listing import ToolListing
from elicitkit.testing._task_wire import task_request
from tests.mrtr import text_of
from tests.sdks import in_memory

pytestmark = pytest.mark.anyio

ORDER = [TaskRequests, ToolListing, AnswerFormCall, ArgumentsCheck, AskingCall]


async def check_in(day: dt.date | None = None) -> str:
    """A ``@fill_missing`` tool of these tests only (its name is no other test's)."""
    return f"checked in on {day}"


def model_server(sdk: str) -> Any:
    """A server with ``answer_form``, a ``@fill_missing`` tool and a tool that asks."""
    server = install(
        MCPServer("router") if sdk == "mcp" else FastMCP("router"), on_unsupported="ask_model"
    )
    server.tool()(fill_missing(check_in))

    @server.tool()
    async def city() -> str:
        return f"off to {(await ask(str)).unwrap()}"

    return server


def middleware_of(server: Any) -> ElicitkitMiddleware:
    (found,) = (m for m in in_memory(server).middleware if isinstance(m, ElicitkitMiddleware))
    return found


def reorder(server: Any, *kinds: type[Handler]) -> None:
    """Keep only the handlers of ``kinds``, in that order."""
    middleware = middleware_of(server)
    by_kind = {type(handler): handler for handler in middleware.handlers}
    middleware.handlers = tuple(by_kind[kind] for kind in kinds)


def without(kind: type[Handler]) -> list[type[Handler]]:
    return [other for other in ORDER if other is not kind]


def test_the_handlers_are_asked_in_this_order(sdk: str) -> None:
    assert [type(handler) for handler in middleware_of(model_server(sdk)).handlers] == ORDER


def test_install_spells_out_the_options_once() -> None:
    """`elicitkit.install`'s keywords are `InstallOptions`' fields: names, types, defaults."""
    keywords = [
        (parameter.name, parameter.annotation, parameter.default)
        for parameter in inspect.signature(elicitkit.install).parameters.values()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    fields = [(f.name, f.type, f.default) for f in dataclasses.fields(InstallOptions)]
    assert keywords == fields
    assert [name for name, _, _ in keywords] == [
        "store",
        "limits",
        "url_router",
        "tasks",
        "on_unsupported",
        "task_resume_after",
    ]


async def test_task_requests_are_the_first_handlers(sdk: str) -> None:
    server = model_server(sdk)
    refusal = (
        "tasks/get is part of the io.modelcontextprotocol/tasks extension, which the client "
        "did not declare on this request. Declare the extension in the request's client "
        "capabilities."
    )
    async with Client(in_memory(server)) as client:
        with pytest.raises(MCPError) as refused:
            await task_request(client, "tasks/get", "some-task")
        extensions = (await client.session.discover()).capabilities.extensions or {}
    assert refused.value.error.message == refusal
    assert extensions["io.modelcontextprotocol/tasks"] == {}
    reorder(server, *without(TaskRequests))
    async with Client(in_memory(server)) as client:
        with pytest.raises(MCPError) as unknown:
            await task_request(client, "tasks/get", "some-task")
        extensions = (await client.session.discover()).capabilities.extensions or {}
    assert unknown.value.error.code == types.METHOD_NOT_FOUND
    assert "io.modelcontextprotocol/tasks" not in extensions


async def test_the_listing_hides_answer_form_from_a_client_with_forms(sdk: str) -> None:
    server = model_server(sdk)

    async def answers(_context: Any, _params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="cancel")

    async with Client(in_memory(server), elicitation_callback=answers) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        reorder(server, *without(ToolListing))
        unfiltered = {tool.name for tool in (await client.list_tools()).tools}
    assert listed == {"check_in", "city"}
    assert unfiltered == {"check_in", "city", "answer_form"}


ANSWER_STUB = (
    "The answer_form tool ran without elicitkit's middleware, so the answers cannot reach the "
    "tool that asked. Keep elicitkit installed on the server that serves it."
)
CRASHED_ANSWER = {
    "mcp": "Error executing tool answer_form",
    "fastmcp": f"Error calling tool 'answer_form': {ANSWER_STUB}",
}


async def test_answer_form_is_answered_before_the_asking_call_runs_it(sdk: str) -> None:
    server = model_server(sdk)
    async with Client(in_memory(server)) as client:
        refused = await client.call_tool("answer_form", {"ticket": "forged"})
        # Asked after the asking call, which claims every tool call: the stub runs.
        reorder(server, TaskRequests, ToolListing, ArgumentsCheck, AskingCall, AnswerFormCall)
        ran = await client.call_tool("answer_form", {"ticket": "forged"})
    assert refused.is_error
    assert text_of(refused) == (
        "This server process cannot open the ticket passed to answer_form, so nothing was run: "
        "it was sealed with a key this process does not have (another process of the server "
        "issued it, and the two share no key), or it was altered on the way. Call the tool again "
        "to get a fresh ticket, and pass it exactly as the tool returned it."
    )
    assert ran.is_error
    assert text_of(ran) == CRASHED_ANSWER[sdk]


FORM_REFUSAL = (
    "The arguments given to check_in do not fit, so check_in did not run. Ask the user for "
    "corrected values, then call check_in again with them.\n"
    "  - day: Expected a date like 2024-12-31, got '24/12'.\n"
    "The arguments, as the form asks them:\n"
    "  - day (text, format date, required)"
)


async def test_the_arguments_check_answers_before_the_asking_call(sdk: str) -> None:
    server = model_server(sdk)
    async with Client(in_memory(server)) as client:
        checked = await client.call_tool("check_in", {"day": "24/12"})
        fine = await client.call_tool("check_in", {"day": "2026-12-24"})
        reorder(server, TaskRequests, ToolListing, AnswerFormCall, AskingCall, ArgumentsCheck)
        unchecked = await client.call_tool("check_in", {"day": "24/12"})
    assert checked.is_error
    assert text_of(checked) == FORM_REFUSAL
    assert text_of(fine) == "checked in on 2026-12-24"
    # The SDK's own validation error (pydantic's wording, not elicitkit's).
    assert unchecked.is_error
    assert "Input should be a valid date" in text_of(unchecked)
    assert text_of(unchecked) != FORM_REFUSAL


async def test_the_asking_call_runs_a_tool_that_asks(sdk: str) -> None:
    server = model_server(sdk)

    async def answers(_context: Any, _params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"value": "Oslo"})

    async with Client(in_memory(server), mode="legacy", elicitation_callback=answers) as client:
        asked = await client.call_tool("city", {})
        reorder(server, *without(AskingCall))
        unasked = await client.call_tool("city", {})
    assert text_of(asked) == "off to Oslo"
    assert unasked.is_error
    assert "there is no client to ask" in text_of(unasked)
