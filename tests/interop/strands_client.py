"""Drive strands-agents' MCP client by a plan, and report what it saw: ``python strands_client.py``.

Run by the python of a strands venv (``.ci/strands-venv``, ``.ci/strands-1130-venv``), never
by the suite's: it imports only strands and the ``mcp`` that venv pins. There is no model,
so no ``Agent``: the plan calls the tools through strands' own ``MCPClient``
(``call_tool_sync``, what an agent's tool use goes through), with strands' own elicitation
callback parameter and its own ``tasks_config``. The plan comes as JSON on stdin:

    {"server": {"command": ..., "args": [...], "env": {...}} | {"url": "http://127.0.0.1:PORT/mcp"},
     "tasks": true,
     "calls": [{"tool": "plan_stay", "args": {},
                "answers": [{"action": "accept", "content": {...}}, {"action": "decline"}]}]}

Each elicitation strands hands to the callback takes the call's next answer, in order. The
report, JSON on stdout, holds for each call the requests the callback got (mode, message,
schema, URL), the result strands made of the call, and the call's JSON-RPC traffic as a
tap on the transport saw it (methods, result types, task statuses): the tap only copies
the messages that pass, so strands does exactly what it does without it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio
from mcp import StdioServerParameters, stdio_client
from mcp.types import ElicitResult, ErrorData
from strands.tools.mcp import MCPClient
from strands.tools.mcp._compat import MCP_V2, streamable_http_transport

PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"


class Tap:
    """The JSON-RPC messages that passed through the transport, in order, as plain JSON."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def wrap(self, transport: AbstractAsyncContextManager[Any]) -> Callable[[], Any]:
        """Return a transport callable for strands that copies every message into the tap."""

        @asynccontextmanager
        async def tapped() -> AsyncIterator[Any]:
            async with transport as (read, write, *rest):
                to_client, from_server = anyio.create_memory_object_stream[Any](0)
                to_server, from_client = anyio.create_memory_object_stream[Any](0)
                async with anyio.create_task_group() as pumps:
                    pumps.start_soon(self._pump, read, to_client, "in")
                    pumps.start_soon(self._pump, from_client, write, "out")
                    yield (from_server, to_server, *rest)
                    pumps.cancel_scope.cancel()

        return tapped

    async def _pump(self, source: Any, sink: Any, direction: str) -> None:
        async with source, sink:
            async for item in source:
                message = getattr(item, "message", None)
                if message is not None:
                    wire = message.model_dump(mode="json", by_alias=True, exclude_none=True)
                    self.messages.append({"direction": direction, **wire})
                await sink.send(item)


def summary(message: dict[str, Any]) -> dict[str, Any]:
    """One message of the tap, cut to what the tests read."""
    kept: dict[str, Any] = {"direction": message["direction"]}
    if "method" in message:
        kept["method"] = message["method"]
    result = message.get("result")
    if isinstance(result, dict):
        for key in ("resultType", "status", "taskId"):
            if key in result:
                kept[key] = result[key]
        if "inputRequests" in result:
            kept["inputRequests"] = sorted(result["inputRequests"])
    if "error" in message:
        kept["error"] = message["error"].get("code")
    # The answers strands sends: a response to elicitation/create (2025-11-25), or the
    # inputResponses of a retried call or a tasks/update (2026-07-28).
    if message["direction"] == "out":
        if isinstance(result, dict) and "action" in result:
            kept["answers"] = [result]
        responses = message.get("params", {}).get("inputResponses")
        if responses:
            kept["answers"] = list(responses.values())
    return kept


def negotiated(messages: list[dict[str, Any]]) -> str | None:
    """The protocol version of the connection: the handshake's, else a request's stamp."""
    for message in messages:
        result = message.get("result")
        if isinstance(result, dict) and "protocolVersion" in result:
            return str(result["protocolVersion"])
    for message in messages:
        if message["direction"] == "out" and message.get("method") == "tools/call":
            version = message.get("params", {}).get("_meta", {}).get(PROTOCOL_META)
            if version:
                return str(version)
    return None


def declared(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The capabilities the client declared: in its initialize request, or a request's stamp."""
    for message in messages:
        params = message.get("params", {})
        if message["direction"] != "out":
            continue
        if message.get("method") == "initialize":
            return dict(params.get("capabilities", {}))
        stamped = params.get("_meta", {}).get("io.modelcontextprotocol/clientCapabilities")
        if stamped is not None:
            return dict(stamped)
    return {}


def main() -> None:
    plan = json.load(sys.stdin)
    tap = Tap()
    server = plan["server"]
    if "url" in server:
        # What MCPClient(url=...) builds for itself (strands' _resolve_transport_callable).
        transport = tap.wrap(streamable_http_transport(url=server["url"]))
    else:
        params = StdioServerParameters(
            command=server["command"], args=server["args"], env=server.get("env")
        )
        transport = tap.wrap(stdio_client(params))
    answers: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []

    async def elicit(context: Any, params: Any) -> ElicitResult | ErrorData:
        del context
        wire = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        requests.append(wire)
        if not answers:
            return ErrorData(code=-32603, message="The plan has no answer for this request.")
        answer = answers.pop(0)
        return ElicitResult(action=answer["action"], content=answer.get("content"))

    # A generous poll timeout: two cores shared with other work are slow, never stuck.
    tasks = {"poll_timeout": timedelta(minutes=5)} if plan.get("tasks") else None
    report: dict[str, Any] = {"mcp_v2": MCP_V2, "calls": []}
    client = MCPClient(
        transport, elicitation_callback=elicit, tasks_config=tasks, startup_timeout=120
    )
    with client:
        report["tools"] = sorted(tool.tool_name for tool in client.list_tools_sync())
        for number, call in enumerate(plan["calls"]):
            answers[:] = call.get("answers", [])
            requests.clear()
            start = len(tap.messages)
            result = client.call_tool_sync(f"call-{number}", call["tool"], call.get("args", {}))
            report["calls"].append(
                {
                    "tool": call["tool"],
                    "requests": list(requests),
                    "unused_answers": len(answers),
                    "status": result["status"],
                    "text": "\n".join(block.get("text", "") for block in result["content"]),
                    "wire": [summary(message) for message in tap.messages[start:]],
                }
            )
    report["protocol"] = negotiated(tap.messages)
    report["capabilities"] = declared(tap.messages)
    json.dump(report, sys.stdout, indent=2)


if __name__ == "__main__":
    main()
