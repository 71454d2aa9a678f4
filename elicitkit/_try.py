"""``elicitkit try SERVER``: call a tool of any stdio MCP server and fill its forms in here."""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
from typing import Any, TextIO, cast

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from elicitkit._terminal_form import fill_in

INTERRUPTED = 130  # the shell's status for a process ended by Ctrl-C (128 + SIGINT)


def run_try(server: str, tool: str | None, arguments: str | None, protocol: str | None) -> int:
    """Run the command; return the exit status (0: the tool succeeded, 1: it failed)."""
    try:
        parsed = _parse_arguments(arguments)
    except (ValueError, TypeError) as problem:
        print(f"elicitkit try: {problem}", file=sys.stderr)
        return 2
    command = _command(server)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            return anyio.run(_session, command, tool, parsed, protocol, cast("TextIO", errlog))
        except KeyboardInterrupt:
            print("\nInterrupted.")
            return INTERRUPTED
        except Exception as error:  # noqa: BLE001  (the server's failure, told in one line)
            errlog.seek(0)
            log = errlog.read().strip()
            print(f"elicitkit try: the session with {server} failed: {_describe(error)}")
            if log:
                print(f"The server's stderr:\n{log}", file=sys.stderr)
            return 1


def _parse_arguments(arguments: str | None) -> dict[str, Any]:
    if arguments is None:
        return {}
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"--args is not JSON ({error.msg} at character {error.pos}). Pass an object, "
            'like --args \'{"item": "a teapot"}\'.'
        ) from None
    if not isinstance(value, dict):
        raise TypeError('--args must be a JSON object, like --args \'{"item": "a teapot"}\'.')
    return dict(value)  # pyright: ignore[reportUnknownArgumentType]


def _command(server: str) -> StdioServerParameters:
    """A ``.py`` file runs with this Python; anything else is a command line."""
    if server.endswith(".py"):
        return StdioServerParameters(command=sys.executable, args=[server])
    words = shlex.split(server)
    return StdioServerParameters(command=words[0], args=words[1:])


async def _session(
    command: StdioServerParameters,
    tool: str | None,
    arguments: dict[str, Any],
    protocol: str | None,
    errlog: TextIO,
) -> int:
    mode = "auto" if protocol is None else "legacy" if protocol.startswith("2025") else protocol

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:  # noqa: ARG001  (the SDK's callback signature)
        answer = await fill_in(params.model_dump(by_alias=True, mode="json", exclude_none=True))
        return answer.result

    async with Client(
        stdio_client(command, errlog=errlog), mode=mode, elicitation_callback=on_elicit
    ) as client:
        print(f"Connected: MCP {client.protocol_version}.")
        if tool is None:
            return await _list_tools(client)
        print(f"-> {tool} {json.dumps(arguments)}")
        result = await client.call_tool(tool, arguments)
    text = "\n".join(
        block.text if isinstance(block, types.TextContent) else f"[{block.type}]"
        for block in result.content
    )
    print(f"<- {'error' if result.is_error else 'result'}: {text}")
    return 1 if result.is_error else 0


async def _list_tools(client: Client) -> int:
    listed = await client.list_tools()
    print("Tools (call one with --tool NAME --args JSON):")
    for tool in listed.tools:
        schema: dict[str, Any] = tool.input_schema
        properties: dict[str, Any] = schema.get("properties", {})
        params = ", ".join(properties)
        print(f"  {tool.name}({params}){f': {tool.description}' if tool.description else ''}")
    return 0


def _describe(error: BaseException) -> str:
    """One line for a failure: the only error inside nested task groups, if alone."""
    inner = _innermost(error)
    if isinstance(inner, MCPError):
        return f"{inner.message} (code {inner.code})"
    return str(inner) or type(inner).__name__


def _innermost(error: BaseException) -> BaseException:
    # Only exception groups have `exceptions`; a task group wraps even a single failure.
    inside: tuple[BaseException, ...] = getattr(error, "exceptions", ())
    return _innermost(inside[0]) if len(inside) == 1 else error
