"""The official MCP conformance scenarios, served with elicitkit's ask() and Python form types.

Run it over streamable HTTP (endpoint ``/mcp``)::

    python examples/conformance_server.py --port 3001 [--fastmcp]

then point ``@modelcontextprotocol/conformance`` at it, one scenario at a time::

    npx @modelcontextprotocol/conformance@0.2.0-alpha.12 server
        --url http://127.0.0.1:3001/mcp --scenario input-required-result-basic-elicitation

(``bash .ci/conformance`` installs Node 22 and the runner, and runs all of them).

Every question is a form type and an ``ask()``, and long work goes on as a task with
``go_async()``: never a hand-written schema, ``InputRequiredResult`` or task result. The
sealing, tamper checks, re-asking and the task books come from elicitkit and the SDK. The
one hand-written request is the sampling question of the capability check: sampling is not
elicitation, so elicitkit does not ask it.

Scenarios are grouped by the function that registers them (``add_...(server)``); a group
for another protocol era is one more such function, listed in ``SCENARIO_GROUPS``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from elicitkit import Question, ask, ask_all, go_async, install
from elicitkit.errors import ElicitationUnsupported


@dataclass
class UserName:
    name: str


@dataclass
class Confirmation:
    ok: bool


@dataclass
class FavouriteColor:
    color: str


@dataclass
class PromptContext:
    context: str


def add_input_required_scenarios(server: MCPServer) -> None:
    """The 2026-07-28 ``input-required-result-*`` scenarios (elicitation and prompts)."""

    @server.tool()
    async def test_input_required_result_elicitation() -> str:
        """Ask for a name (basic-elicitation, and the scenarios reusing this tool).

        missing-input-response, result-type, ignore-extra-params and validate-input call
        it too: a wrong, missing or malformed answer is simply asked for again.
        """
        answer = await ask(UserName, "What is your name?", key="user_name")
        if not answer.is_accepted() or answer.content is None:
            return f"No name given ({answer.action})."
        return f"Hello, {answer.content.name}!"

    @server.tool()
    async def test_input_required_result_request_state() -> str:
        """Round two only runs with the sealed state the SDK verified: say so."""
        answer = await ask(Confirmation, "Please confirm", key="confirm")
        confirmed = answer.is_accepted() and answer.content is not None and answer.content.ok
        return f"state-ok: confirmed={confirmed}"

    @server.tool()
    async def test_input_required_result_multi_round() -> str:
        """Ask two questions in two rounds (multi-round): a name, then a favourite color."""
        name = await ask(UserName, "Step 1: What is your name?", key="step1")
        color = await ask(FavouriteColor, "Step 2: What is your favorite color?", key="step2")
        if name.content is None or color.content is None:
            return "Not every step was answered."
        return f"{name.content.name} likes {color.content.color}."

    @server.tool()
    async def test_input_required_result_tampered_state() -> str:
        """A tampered requestState never reaches this body: the SDK answers -32602."""
        answer = await ask(UserName, "What is your name?", key="user_name")
        return f"Hello, {answer.content.name if answer.content else 'nobody'}!"

    @server.tool()
    async def test_input_required_result_capabilities() -> str | types.InputRequiredResult:
        """Ask with a form only if the client can show one; else ask by sampling, by hand."""
        try:
            answer = await ask(UserName, "What is your name?", key="user_name")
        except ElicitationUnsupported:
            # Hand-written: sampling is not elicitation. Only asked of a client that has no
            # forms; a client without sampling either gets a plain answer.
            return types.InputRequiredResult(
                input_requests={
                    "summary": types.CreateMessageRequest(
                        params=types.CreateMessageRequestParams(
                            messages=[
                                types.SamplingMessage(
                                    role="user",
                                    content=types.TextContent(type="text", text="Say hello."),
                                )
                            ],
                            max_tokens=50,
                        )
                    )
                }
            )
        return f"Hello, {answer.content.name if answer.content else 'nobody'}!"

    @server.prompt()
    async def test_input_required_result_prompt() -> str:
        """Ask for the story's context before writing the prompt (non-tool request)."""
        answer = await ask(PromptContext, "What context should the prompt use?", key="user_context")
        context = answer.content.context if answer.content else "none"
        return f"Write a short story set in this context: {context}"


@dataclass
class DeleteConfirmation:
    confirm: bool


@dataclass
class PartialAnswer:
    name: str
    confirm: bool


def add_tasks_scenarios(server: MCPServer) -> None:
    """The ``tasks-*`` scenarios of the Tasks extension: long work with ``go_async()``.

    Each task-supporting tool calls ``go_async()`` where its long work starts; the task
    records, ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` come from elicitkit.
    """

    @server.tool()
    async def greet(name: str) -> str:
        """Greet someone, at once (a tool that never becomes a task)."""
        return f"Hello, {name}!"

    @server.tool()
    async def slow_compute(seconds: float, label: str = "") -> str:
        """Work for ``seconds`` seconds as a task; cancellable while it works."""
        await go_async(f"Computing {label or 'a result'}")
        await anyio.sleep(seconds)
        return f"Computed {label or 'a result'} in {seconds:g} s."

    @server.tool()
    async def failing_job() -> types.CallToolResult:
        """Require a task, work a second, then report a tool error (``isError``)."""
        await go_async("Running a job that will fail", required=True)
        await anyio.sleep(1.0)
        text = types.TextContent(type="text", text="The job failed: nothing to process.")
        return types.CallToolResult(content=[text], is_error=True)

    @server.tool()
    async def protocol_error_job() -> str:
        """Fail as a task with a JSON-RPC error (a protocol-level failure)."""
        await go_async("Running a job that will break")
        raise MCPError(code=types.INTERNAL_ERROR, message="The job's backend is unavailable.")

    @server.tool()
    async def confirm_delete(filename: str) -> str:
        """Go async, then ask inside the task whether to delete ``filename``."""
        await go_async(f"Preparing to delete {filename}")
        answer = await ask(DeleteConfirmation, f"Delete {filename}?")
        if answer.content is not None and answer.content.confirm:
            return f"Deleted {filename}."
        return f"Kept {filename} ({answer.action})."

    @server.tool()
    async def multi_input() -> str:
        """Go async, then ask two questions at once inside the task."""
        await go_async("Collecting two answers")
        first, second = await ask_all(
            Question(PartialAnswer, "First answer?", key="first"),
            Question(PartialAnswer, "Second answer?", key="second"),
        )
        names = [a.content.name for a in (first, second) if a.content is not None]
        return f"Got {' and '.join(names) or 'no answers'}."

    @server.tool()
    async def test_tool_with_task() -> str:
        """Ask for a name over replay rounds, then go on as a task (required)."""
        answer = await ask(UserName, "What is your name?", key="user_name")
        await go_async("Greeting, slowly", required=True)
        await anyio.sleep(0.2)
        return f"Hello, {answer.content.name if answer.content else 'nobody'}!"


SCENARIO_GROUPS: list[Callable[[MCPServer], None]] = [
    add_input_required_scenarios,
    add_tasks_scenarios,
]


def build_server(*, fastmcp: bool = False) -> Any:
    """The conformance server with every scenario group registered (a FastMCP's, or not)."""
    if fastmcp:
        from fastmcp import FastMCP  # noqa: PLC0415  (the fastmcp extra, only for this run)

        server: Any = install(FastMCP("elicitkit-conformance"))
    else:
        server = install(MCPServer("elicitkit-conformance"))
    for add_scenarios in SCENARIO_GROUPS:
        add_scenarios(server)
    return server


def main() -> None:
    """Serve over streamable HTTP on 127.0.0.1 at ``/mcp``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=3001, help="TCP port (default 3001)")
    parser.add_argument("--fastmcp", action="store_true", help="serve with fastmcp's FastMCP")
    arguments = parser.parse_args()
    if arguments.fastmcp:
        build_server(fastmcp=True).run(
            "streamable-http",
            host="127.0.0.1",
            port=arguments.port,
            path="/mcp",
            show_banner=False,
            log_level="WARNING",
        )
        return
    build_server().run(
        "streamable-http", host="127.0.0.1", port=arguments.port, streamable_http_path="/mcp"
    )


if __name__ == "__main__":
    main()
