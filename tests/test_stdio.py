"""The examples as real stdio MCP servers, driven by the SDK's client and by raw JSON-RPC.

Each test starts ``python examples/NAME.py`` as a subprocess. The shipping tool runs on both
server SDKs: examples/shipping.py (the official ``MCPServer``) and its twin
examples/fastmcp_server.py (``FastMCP``), and every shipping test runs on both. The SDK client
covers 2025-11-25 (``mode="legacy"``: ``elicitation/create`` in the middle of the call) and
2026-07-28 (the default mode: ``InputRequiredResult`` and a retry); fastmcp's own client
(over its ``StdioTransport``) does the same against both. The SDK clients cannot negotiate
2025-06-18, so that era is spoken by hand, newline-delimited JSON-RPC over the pipes, which
also shows the exact ``elicitation/create`` params on the wire (and lets a client send answers
fastmcp's client would refuse to send).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import anyio
import fastmcp
import mcp_types as types
import pytest
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

import elicitkit
from tests.sdks import ERAS
from tests.spec_check import _validator, spec_errors

REPO = Path(__file__).resolve().parent.parent
SHIPPING = REPO / "examples" / "shipping.py"
FASTMCP = REPO / "examples" / "fastmcp_server.py"
BOOKING = REPO / "examples" / "booking.py"
TIMEOUT = 20.0  # seconds for a whole SDK session, or for one raw message to arrive
# The SDK's default environment for a stdio server, plus this checkout first on the path: an
# example imports this checkout's elicitkit, not an editable install of another worktree.
SERVER_ENV = {
    **get_default_environment(),
    "PYTHONPATH": str(REPO),
    # The run's own state folder (tests/conftest.py): the servers' record files and keys.
    "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
}


@dataclass(frozen=True)
class Shipping:
    """One server of the shipping tool, and how its SDK shows an error the tool raised."""

    script: Path
    tool_error: str  # the error result's text; {} is the error's own text


# The official SDK prefixes the text of any exception; fastmcp passes on the text of a
# ToolError as it is, and elicitkit's errors are ToolErrors on fastmcp.
SHIPPING_SERVERS = [
    pytest.param(Shipping(SHIPPING, "Error executing tool ship: {}"), id="mcp-server"),
    pytest.param(Shipping(FASTMCP, "{}"), id="fastmcp-server"),
]

# (client mode, the protocol version it must negotiate)

ADDRESS = {
    "name": "Ada Lovelace",
    "street": "1 Main Street",
    "city": "Oslo",
    "zip_code": "0150",
    "speed": "express",
}
CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"value": {"type": "boolean", "title": "Confirm", "default": False}},
    "required": ["value"],
}
SHIPPED = "Shipping a teapot to Ada Lovelace, 1 Main Street, 0150 Oslo (express)."
NO_FORMS = "This client cannot show forms; ask the user for the address and call again."


def _load_example(path: Path) -> ModuleType:
    """Import an example script as a module (registered, so its type hints resolve)."""
    name = f"_elicitkit_example_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def server_stderr(starts_processes: None) -> Iterator[IO[str]]:
    """A file for the server's stderr, replayed into the test's captured stderr at the end."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        yield log
        log.seek(0)
        text = log.read()
        if text:
            sys.stderr.write(f"--- server stderr ---\n{text}")


# --- the SDK client ------------------------------------------------------------------------


class Session:
    """What one SDK client session saw: the negotiated version and every form it was shown."""

    def __init__(self) -> None:
        self.protocol: str | None = None
        self.asked: list[types.ElicitRequestFormParams] = []


def run_sdk(
    script: Path,
    mode: str,
    calls: list[tuple[str, dict[str, Any]]],
    answers: list[dict[str, Any]] | None,
    errlog: IO[str],
    *,
    argv: list[str] | None = None,
) -> tuple[Session, list[types.CallToolResult]]:
    """Run ``calls`` in one client session against ``script``.

    ``answers`` are the client's ElicitResults, handed out in order, one per question;
    ``None`` means a client with no elicitation callback (no elicitation capability).
    ``argv`` starts the server another way than ``python script``.
    """
    session = Session()
    pending = list(answers or [])

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams), params
        session.asked.append(params)
        assert pending, f"unexpected extra question: {params.message!r}"
        return types.ElicitResult.model_validate(pending.pop(0))

    async def main() -> list[types.CallToolResult]:
        transport = stdio_client(
            StdioServerParameters(
                command=sys.executable, args=argv or [str(script)], cwd=REPO, env=SERVER_ENV
            ),
            errlog=errlog,
        )
        callback = {} if answers is None else {"elicitation_callback": on_elicit}
        results = []
        with anyio.fail_after(TIMEOUT):
            async with Client(
                transport, mode=mode, read_timeout_seconds=TIMEOUT, **callback
            ) as client:
                session.protocol = client.protocol_version
                for name, arguments in calls:
                    results.append(await client.call_tool(name, arguments))
        return results

    results = anyio.run(main)
    assert not pending, f"questions never asked; answers left over: {pending}"
    return session, results


def text_of(result: types.CallToolResult) -> str:
    assert not result.is_error, result
    [content] = result.content
    assert isinstance(content, types.TextContent), content
    return content.text


def accept(content: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": content}


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize("server", SHIPPING_SERVERS)
def test_shipping_accept_and_confirm(
    server: Shipping, mode: str, protocol: str, server_stderr: IO[str]
) -> None:
    shipping = _load_example(server.script)
    session, results = run_sdk(
        server.script,
        mode,
        [("ship", {"item": "a teapot"}), ("ship", {"item": "a kettle"})],
        [
            accept(ADDRESS),
            accept({"value": True}),
            accept({**ADDRESS, "city": "Bergen", "speed": "standard"}),
            accept({"value": False}),
        ],
        server_stderr,
    )
    assert session.protocol == protocol
    assert [text_of(result) for result in results] == [
        SHIPPED,
        "Shipping cancelled: the user did not confirm.",
    ]

    address, confirm, _, second_confirm = session.asked
    assert address.mode == "form"
    assert address.message == "Where should we ship your order?"  # the @form default
    assert address.requested_schema == elicitkit.requested_schema(
        shipping.ShippingAddress, protocol=protocol
    )
    assert spec_errors(address.requested_schema, protocol) == []
    assert confirm.message == "Ship a teapot to 1 Main Street, Oslo by express?"
    assert confirm.requested_schema == CONFIRM_SCHEMA
    assert second_confirm.message == "Ship a kettle to 1 Main Street, Bergen by standard?"
    assert_no_start_up_noise(server_stderr)


def assert_no_start_up_noise(log: IO[str]) -> None:
    """The server wrote no banner and no start-up line to stderr (its client's log)."""
    log.flush()
    log.seek(0)
    text = log.read()
    assert "FastMCP" not in text, text
    assert "Starting MCP server" not in text, text


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
def test_fastmcp_run_with_its_banner_and_logs_on_stderr(
    mode: str, protocol: str, server_stderr: IO[str]
) -> None:
    """``fastmcp run`` serves the example too, its banner and INFO logs on stderr harmlessly."""
    argv = ["-m", "fastmcp.cli", "run", f"{FASTMCP}:server"]
    session, [result] = run_sdk(
        FASTMCP,
        mode,
        [("ship", {"item": "a teapot"})],
        [accept(ADDRESS), accept({"value": True})],
        server_stderr,
        argv=argv,
    )
    assert session.protocol == protocol
    assert text_of(result) == SHIPPED
    server_stderr.seek(0)
    logged = server_stderr.read()
    assert "FastMCP 4." in logged  # the banner
    assert "Starting MCP server 'shipping'" in logged


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize("action", ["decline", "cancel"])
@pytest.mark.parametrize("server", SHIPPING_SERVERS)
def test_shipping_not_accepted(
    server: Shipping, mode: str, protocol: str, action: str, server_stderr: IO[str]
) -> None:
    session, [result] = run_sdk(
        server.script, mode, [("ship", {"item": "a teapot"})], [{"action": action}], server_stderr
    )
    assert session.protocol == protocol
    assert text_of(result) == f"Shipping cancelled: the user chose to {action}."
    assert len(session.asked) == 1


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize("server", SHIPPING_SERVERS)
def test_shipping_client_without_forms(
    server: Shipping, mode: str, protocol: str, server_stderr: IO[str]
) -> None:
    session, [result] = run_sdk(
        server.script, mode, [("ship", {"item": "a teapot"})], None, server_stderr
    )
    assert session.protocol == protocol
    assert text_of(result) == NO_FORMS


# --- fastmcp's client, over its StdioTransport ------------------------------------------


def run_fastmcp_client(
    script: Path,
    mode: str,
    calls: list[tuple[str, dict[str, Any]]],
    answers: list[dict[str, Any] | ElicitResult[Any]],
    errlog: IO[str],
) -> tuple[Session, list[Any]]:
    """Like `run_sdk`, with ``fastmcp.Client``: a dict answer is an accept with that content."""
    session = Session()
    pending = list(answers)

    async def on_elicit(
        message: str, response_type: Any, params: Any, context: Any
    ) -> dict[str, Any] | ElicitResult[Any]:
        assert isinstance(params, types.ElicitRequestFormParams), params
        session.asked.append(params)
        assert pending, f"unexpected extra question: {message!r}"
        return pending.pop(0)

    async def main() -> list[Any]:
        # keep_alive=False: the subprocess ends with the session, not when the test run ends.
        transport = StdioTransport(
            command=sys.executable, args=[str(script)], cwd=str(REPO), keep_alive=False,
            log_file=errlog,
        )  # fmt: skip
        results = []
        try:
            with anyio.fail_after(TIMEOUT):
                async with fastmcp.Client(
                    transport, mode=mode, elicitation_handler=on_elicit, timeout=TIMEOUT
                ) as client:
                    session.protocol = client.protocol_version
                    for name, arguments in calls:
                        results.append(
                            await client.call_tool(name, arguments, raise_on_error=False)
                        )
        finally:
            await transport.close()
        return results

    results = anyio.run(main)
    assert not pending, f"questions never asked; answers left over: {pending}"
    return session, results


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize("server", SHIPPING_SERVERS)
def test_fastmcp_client_over_stdio(
    server: Shipping, mode: str, protocol: str, server_stderr: IO[str]
) -> None:
    session, results = run_fastmcp_client(
        server.script,
        mode,
        [("ship", {"item": "a teapot"}), ("ship", {"item": "a kettle"})],
        [ADDRESS, {"value": True}, ElicitResult(action="decline")],
        server_stderr,
    )
    assert session.protocol == protocol
    texts = []
    for result in results:
        assert not result.is_error, result
        [content] = result.content
        texts.append(content.text)
    assert texts == [SHIPPED, "Shipping cancelled: the user chose to decline."]
    address, confirm, again = session.asked
    assert address.message == again.message == "Where should we ship your order?"
    assert address.requested_schema == elicitkit.requested_schema(
        _load_example(server.script).ShippingAddress, protocol=protocol
    )
    assert confirm.requested_schema == CONFIRM_SCHEMA


BOOKINGS = [
    pytest.param(
        {"name": "Ada", "day": "2026-12-24", "guests": 4, "time": "21:00", "area": "terrace"},
        "Booked Noma for 4 on Thursday 24 December at 21:00, terrace, under Ada.",
        id="valid",
    ),
    pytest.param(
        {"name": "Ada", "day": "2026-12-24", "guests": 8, "area": "terrace"},
        "The booking was not valid: The terrace seats at most 6 guests.",
        id="model-validator",
    ),
    pytest.param(
        {"name": "Ada", "day": "2026-02-30", "guests": 2},
        "The booking was not valid: day: Expected a date like 2024-12-31, got '2026-02-30'.",
        id="bad-date",
    ),
]


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize(("content", "expected"), BOOKINGS)
def test_booking(
    mode: str, protocol: str, content: dict[str, Any], expected: str, server_stderr: IO[str]
) -> None:
    booking = _load_example(BOOKING)
    # An invalid answer is asked again twice (ask()'s default retries), then reported.
    shown = 1 if expected.startswith("Booked") else 3
    session, [result] = run_sdk(
        BOOKING,
        mode,
        [("book_table", {"restaurant": "Noma"})],
        [accept(content)] * shown,
        server_stderr,
    )
    assert session.protocol == protocol
    assert text_of(result) == expected
    question, *again = session.asked
    assert len(again) == shown - 1
    assert all(q.message.startswith("Book a table at Noma\n\nPlease correct") for q in again)
    assert question.message == "Book a table at Noma"
    assert question.requested_schema == elicitkit.requested_schema(
        booking.Booking, protocol=protocol
    )


# --- raw JSON-RPC (the only way to speak 2025-06-18) --------------------------------------


class RawServer:
    """A stdio server spoken to in newline-delimited JSON-RPC, every read bounded."""

    def __init__(self, script: Path, stderr: IO[str]) -> None:
        self._stderr = stderr
        self._next_id = 100
        self.process = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=REPO,
            text=True,
            encoding="utf-8",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> int:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        return self._next_id

    def receive(self) -> dict[str, Any]:
        """The next request or response from the server (notifications are skipped)."""
        while True:
            try:
                line = self._lines.get(timeout=TIMEOUT)
            except queue.Empty:
                pytest.fail(f"no message from the server in {TIMEOUT} s{self._log()}")
            if line is None:
                pytest.fail(f"the server closed its stdout{self._log()}")
            message: dict[str, Any] = json.loads(line)
            if "id" in message:
                return message

    def response(self, request_id: int) -> dict[str, Any]:
        message = self.receive()
        assert message.get("id") == request_id, message
        assert "method" not in message, f"expected the response, got a request: {message}"
        return message

    def _log(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        return f"; server stderr:\n{self._stderr.read()}"

    def close(self) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self._reader.join(timeout=5)
        self.process.stdout.close()


@contextlib.contextmanager
def raw_server(
    script: Path,
    stderr: IO[str],
    protocol: str,
    capabilities: dict[str, Any] | None = None,
) -> Iterator[RawServer]:
    """A raw server initialized on ``protocol`` (default: a bare elicitation capability)."""
    server = RawServer(script, stderr)
    try:
        init = server.request(
            "initialize",
            {
                "protocolVersion": protocol,
                "capabilities": {"elicitation": {}} if capabilities is None else capabilities,
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        assert server.response(init)["result"]["protocolVersion"] == protocol
        server.send({"method": "notifications/initialized"})
        yield server
    finally:
        server.close()


def check_params_on_wire(params: dict[str, Any], protocol: str) -> None:
    """The params of an ``elicitation/create``, exactly as the official grammar allows."""
    if protocol == "2025-06-18":
        assert set(params) == {"message", "requestedSchema"}  # `mode` came in 2025-11-25
    else:
        assert set(params) == {"mode", "message", "requestedSchema"}
        assert params["mode"] == "form"
    assert spec_errors(params["requestedSchema"], protocol) == []
    strict = _validator(protocol, strict=True)
    assert [error.message for error in strict.iter_errors(params)] == []


def elicitation(message: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    assert message.get("method") == "elicitation/create", message
    return message["id"], message["params"]


@pytest.mark.parametrize("protocol", ["2025-06-18", "2025-11-25"])
@pytest.mark.parametrize("example", SHIPPING_SERVERS)
def test_raw_shipping(example: Shipping, protocol: str, server_stderr: IO[str]) -> None:
    shipping = _load_example(example.script)
    with raw_server(example.script, server_stderr, protocol) as server:
        call = server.request("tools/call", {"name": "ship", "arguments": {"item": "a teapot"}})

        # The address form, in the middle of the call.
        ask_id, params = elicitation(server.receive())
        check_params_on_wire(params, protocol)
        assert params["message"] == "Where should we ship your order?"
        schema = params["requestedSchema"]
        assert schema == elicitkit.requested_schema(shipping.ShippingAddress, protocol=protocol)
        speed = schema["properties"]["speed"]
        if protocol == "2025-06-18":
            # Labels only as the legacy enumNames; defaults only on booleans.
            assert speed == {
                "type": "string",
                "title": "Speed",
                "enum": ["standard", "express"],
                "enumNames": ["Standard (3-5 days)", "Express (next day)"],
            }
            for field in schema["properties"].values():
                assert "default" not in field or field["type"] == "boolean", field
        else:
            assert speed == {
                "type": "string",
                "title": "Speed",
                "oneOf": [
                    {"const": "standard", "title": "Standard (3-5 days)"},
                    {"const": "express", "title": "Express (next day)"},
                ],
                "default": "standard",
            }
        server.send({"id": ask_id, "result": accept(ADDRESS)})

        # The confirmation, a one-field boolean form.
        confirm_id, params = elicitation(server.receive())
        check_params_on_wire(params, protocol)
        assert params["message"] == "Ship a teapot to 1 Main Street, Oslo by express?"
        assert params["requestedSchema"] == CONFIRM_SCHEMA
        server.send({"id": confirm_id, "result": accept({"value": True})})

        result = server.response(call)["result"]
        assert result["isError"] is False
        assert result["content"] == [{"type": "text", "text": SHIPPED}]


FAILED_ANSWERS = [
    pytest.param(
        {"error": {"code": -1, "message": "User closed the dialog"}},
        "The client answered the form with an error instead of an answer: "
        "User closed the dialog (code -1).",
        id="json-rpc-error",
    ),
    pytest.param(
        {"result": accept({**ADDRESS, "name": "", "zip_code": "01", "speed": "teleport"})},
        "The answer to ShippingAddress has 3 problems: name: Must be at least 1 character "
        "long. zip_code: Must be at least 4 characters long. speed: Must be one of "
        "\"Standard (3-5 days)\" ('standard'), \"Express (next day)\" ('express'); got "
        "'teleport'.",
        id="invalid-content",
    ),
    pytest.param(
        {"result": {"action": "accept"}},
        "The answer to ShippingAddress has 4 problems: name: This field is required. "
        "street: This field is required. city: This field is required. "
        "zip_code: This field is required.",
        id="accept-without-content",
    ),
    # The client's answer is not an ElicitResult at all: ElicitationFailed says so.
    pytest.param(
        {"result": {"action": "maybe"}},
        "The client's answer to the form is not an elicitation result (action: Input should "
        "be 'accept', 'cancel' or 'decline').",
        id="unknown-action",
    ),
    pytest.param(
        {"result": accept({**ADDRESS, "name": {"first": "Ada"}})},
        "The client's answer to the form is not an elicitation result (content.name",
        id="non-primitive-content",
    ),
]


@pytest.mark.parametrize(("answer", "expected"), FAILED_ANSWERS)
@pytest.mark.parametrize("example", SHIPPING_SERVERS)
def test_raw_failed_answer_is_readable_tool_error(
    example: Shipping, answer: dict[str, Any], expected: str, server_stderr: IO[str]
) -> None:
    """A bad answer the tool does not catch reaches the client as readable tool-error text."""
    with raw_server(example.script, server_stderr, "2025-06-18") as server:
        call = server.request("tools/call", {"name": "ship", "arguments": {"item": "a teapot"}})
        # An invalid answer is asked again twice (ask()'s default retries), then reported.
        for _ in range(3 if "ShippingAddress has" in expected else 1):
            ask_id, _ = elicitation(server.receive())
            server.send({"id": ask_id, **answer})
        result = server.response(call)["result"]
        assert result["isError"] is True
        [content] = result["content"]
        if expected.endswith("."):  # the whole message
            assert content["text"] == example.tool_error.format(expected)
        else:  # its start (the rest quotes pydantic)
            assert content["text"].startswith(example.tool_error.format(expected)), content


@pytest.mark.parametrize(
    ("capabilities", "why"),
    [
        pytest.param({}, "it did not declare the elicitation capability", id="none"),
        pytest.param(
            {"elicitation": {"url": {}}}, "it declared elicitation in URL mode only", id="url-only"
        ),
    ],
)
def test_raw_client_without_forms_is_sent_nothing(
    capabilities: dict[str, Any], why: str, server_stderr: IO[str]
) -> None:
    """No form goes to a client that cannot show one; the uncaught error reads as one sentence."""
    with raw_server(BOOKING, server_stderr, "2025-11-25", capabilities) as server:
        call = server.request(
            "tools/call", {"name": "book_table", "arguments": {"restaurant": "Noma"}}
        )
        message = server.receive()  # the very next message is the call's response
        assert message.get("id") == call, message
        assert message["result"]["isError"] is True
        assert message["result"]["content"] == [
            {
                "type": "text",
                "text": f"Error executing tool book_table: This client cannot show forms ({why}), "
                "so the tool could not ask the user for Booking.",
            }
        ]


@pytest.mark.parametrize(
    "capabilities",
    [pytest.param({}, id="none"), pytest.param({"elicitation": {"url": {}}}, id="url-only")],
)
@pytest.mark.parametrize("example", SHIPPING_SERVERS)
def test_raw_shipping_client_without_forms_gets_the_tools_own_answer(
    example: Shipping, capabilities: dict[str, Any], server_stderr: IO[str]
) -> None:
    """The tool catches ElicitationUnsupported: its own text, and no form sent first."""
    with raw_server(example.script, server_stderr, "2025-11-25", capabilities) as server:
        call = server.request("tools/call", {"name": "ship", "arguments": {"item": "a teapot"}})
        message = server.receive()  # the very next message is the call's response
        assert message.get("id") == call, message
        assert message["result"]["isError"] is False
        assert message["result"]["content"] == [{"type": "text", "text": NO_FORMS}]
