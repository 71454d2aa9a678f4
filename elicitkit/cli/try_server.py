"""``elicitkit try SERVER``: call a tool of any stdio MCP server and fill its forms in here."""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
from collections.abc import Mapping
from typing import Any, TextIO, cast

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from elicitkit._client.tuned_client import TunedClient
from elicitkit._interrupt import INTERRUPTED, INTERRUPTED_STATUS, is_interrupt
from elicitkit.cli.interruptible import ctrl_c_cancels_here, run_interruptibly
from elicitkit.cli.schema_reader import WireField, wire_fields
from elicitkit.cli.shown_text import shown
from elicitkit.cli.task_follower import FollowAtTerminal, TaskEnded
from elicitkit.cli.terminal_form import fill_fields, fill_in
from elicitkit.protocol import LATEST_PROTOCOL, check_protocol


def run_try(
    server: str,
    tool: str | None,
    arguments: str | None,
    protocol: str | None,
    *,
    show_schema: bool = False,
    tasks: bool = True,
) -> int:
    """Run the command; return the exit status (0: the tool succeeded, 1: it failed).

    ``show_schema`` prints each form's ``requestedSchema`` (JSON) before the form.
    ``tasks`` declares the Tasks extension on 2026-07-28 and follows a task the call
    becomes (`elicitkit.cli.task_follower`); without it the tool runs in the call.
    """
    try:
        parsed = None if arguments is None else _parse_arguments(arguments)
    except (ValueError, TypeError) as problem:
        print(shown(f"elicitkit try: {problem}"), file=sys.stderr)
        return 2
    command = _command(server)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        progress = Progress(cast("TextIO", errlog), show_schema=show_schema, tasks=tasks)
        try:
            target = stdio_client(command, errlog=progress.errlog)
            return run_interruptibly(try_tool, target, tool, parsed, protocol, progress)
        except BaseException as error:  # the server's failure, told in one line
            if is_interrupt(error):
                print(f"\n{INTERRUPTED}")
                return INTERRUPTED_STATUS
            if not isinstance(error, Exception):
                raise
            errlog.seek(0)
            log = errlog.read().strip()
            if not progress.connected and not log and _closed(error) and server.endswith(".py"):
                print(shown(_never_served(server)))
                return 1
            print(shown(f"elicitkit try: the session with {server} failed: {_describe(error)}"))
            if log:
                print(shown(f"The server's stderr:\n{log}"), file=sys.stderr)
            return 1


class Progress:
    """Where the server's stderr goes, what to show, and how far the session got.

    A failure before the handshake is the server's start, and said so.
    """

    def __init__(self, errlog: TextIO, *, show_schema: bool, tasks: bool = True) -> None:
        """Send the server's stderr to ``errlog``; show schemas, follow tasks, or not."""
        self.errlog = errlog
        self.show_schema = show_schema
        self.tasks = tasks
        self.connected = False


def _closed(error: BaseException) -> bool:
    inner = _innermost(error)
    return isinstance(inner, MCPError) and inner.code == types.CONNECTION_CLOSED


def _never_served(server: str) -> str:
    """What to add to a script that exits without serving (it defines a server, no run())."""
    return (
        f"elicitkit try: {server} exited without answering, and wrote nothing to stderr: it "
        "probably creates a server but never runs it. End it with\n"
        '    if __name__ == "__main__":\n'
        '        server.run("stdio")\n'
        "(server being your MCPServer or FastMCP) so that it serves over stdio when started, "
        "then try again."
    )


def _parse_arguments(arguments: str) -> dict[str, Any]:
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


async def try_tool(
    server: Any,
    tool: str | None,
    arguments: dict[str, Any] | None,
    protocol: str | None,
    progress: Progress,
) -> int:
    """Connect to ``server`` (anything ``mcp.Client`` takes), then list or call a tool.

    Returns the exit status: 0 when the tool succeeded (or the tools were listed), 1 when
    it failed (an error result, or a task that failed or was cancelled), 2 when nothing
    was called.
    """
    mode = "auto" if protocol is None else "legacy" if protocol.startswith("2025") else protocol
    version = LATEST_PROTOCOL if protocol is None else check_protocol(protocol)

    async def ask(asked: dict[str, Any]) -> types.ElicitResult:
        if progress.show_schema:
            schema = json.dumps(asked.get("requestedSchema"), ensure_ascii=False)
            print(shown(f"\n  requestedSchema: {schema}"))
        answer = await fill_in(asked)
        return answer.result

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:  # noqa: ARG001  (the SDK's callback signature)
        return await ask(params.model_dump(by_alias=True, mode="json", exclude_none=True))

    client = TunedClient(
        server,
        mode=mode,
        elicitation_callback=on_elicit,
        # The SDK leaves the extension out of what a 2025 session declares.
        extensions=[FollowAtTerminal(ask)] if progress.tasks else None,
        version=version,  # 2025-06-18 is offered only when asked for
    )
    async with client:
        progress.connected = True
        print(shown(f"Connected: MCP {client.protocol_version}."))
        if tool is None:
            return await _list_tools(client)
        if arguments is None:
            arguments = await _ask_arguments(client, tool)
            if arguments is None:
                return 2
        print(shown(f"-> {tool} {json.dumps(arguments)}"))
        try:
            # A task's tasks/cancel, on Ctrl-C, needs the connection still reading.
            async with ctrl_c_cancels_here():
                result = await client.call_tool(tool, arguments)
        except TaskEnded as ended:
            print(f"<- {ended.line}")
            return 1
    text = "\n".join(
        block.text if isinstance(block, types.TextContent) else f"[{block.type}]"
        for block in result.content
    )
    print(shown(f"<- {'error' if result.is_error else 'result'}: {text}"))
    return 1 if result.is_error else 0


async def _list_tools(client: Client) -> int:
    listed = await client.list_tools()
    print("Tools (call one with --tool NAME --args JSON):")
    for tool in listed.tools:
        schema: dict[str, Any] = tool.input_schema
        properties: dict[str, Any] = schema.get("properties", {})
        params = ", ".join(properties)
        about = f": {tool.description}" if tool.description else ""
        print(shown(f"  {tool.name}({params}){about}"))
    return 0


async def _ask_arguments(client: Client, name: str) -> dict[str, Any] | None:
    """Without --args, ask for the tool's arguments with the same terminal form.

    Returns ``None`` (after saying why) when the tool does not exist or takes an argument
    a flat form cannot hold; ``{}`` for a tool without arguments.
    """
    listed = await client.list_tools()
    tool = next((tool for tool in listed.tools if tool.name == name), None)
    if tool is None:
        known = ", ".join(tool.name for tool in listed.tools) or "none"
        print(shown(f"elicitkit try: the server has no tool {name!r} (its tools: {known})."))
        return None
    schema = tool.input_schema
    if not schema.get("properties"):
        return {}
    fields: list[WireField] = []
    for field in wire_fields(schema):
        flat = _flat(field.schema)
        if flat is None:
            print(
                shown(
                    f"elicitkit try: the argument {field.key!r} of {name} is not a plain "
                    "value; pass the arguments with --args JSON."
                )
            )
            return None
        fields.append(WireField(field.key, flat, field.required))
    print(shown(f"  The arguments of {name}:"))
    try:
        return await fill_fields(fields)
    except BaseException as error:
        if not (isinstance(error, EOFError) or is_interrupt(error)):
            raise
        print("\nNothing called.")
        return None


def _flat(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The schema of a plain argument (``X | None`` read as ``X``), or ``None``."""
    variants: list[Any] = schema.get("anyOf", [schema])
    plain: list[Mapping[str, Any]] = [
        cast("Mapping[str, Any]", v) for v in variants if isinstance(v, Mapping)
    ]
    plain = [v for v in plain if v.get("type") != "null"]
    if len(plain) != 1 or plain[0].get("type") not in ("string", "integer", "number", "boolean"):
        return None
    extra = {key: schema[key] for key in ("title", "description", "default") if key in schema}
    return {**plain[0], **extra}


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
