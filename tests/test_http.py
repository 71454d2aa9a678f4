"""ask() over streamable HTTP: a real uvicorn on 127.0.0.1 and the official SDK client.

examples/http_server.py runs as a subprocess, exactly as a user starts it; the table of
settings in docs/http.md is checked with the same tool served in-process, one uvicorn per
combination of `stateless_http` and `json_response`, on both server SDKs (fastmcp's app is
``FastMCP.http_app(...)``).
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from fastmcp import FastMCP
from mcp import Client
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette

from elicitkit import ask, install
from elicitkit.stores import MemoryStore
from tests.loopback import free_port, listening, serving

EXAMPLE = Path(__file__).parents[1] / "examples" / "http_server.py"
SLOT = {"day": "2026-12-24", "window": "evening", "leave_at_door": True}
DONE = "Delivering A-17 on 2026-12-24 in the evening, left at the door."

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("starts_processes")]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def http_server(
    *flags: str, key: str | None = None, redis: str | None = None, **variables: str
) -> Iterator[str]:
    """Start examples/http_server.py on a free loopback port; yield its URL; stop it.

    ``key`` and ``redis`` set ``MCP_REQUEST_STATE_KEY`` and ``ELICITKIT_REDIS_URL``;
    ``variables``, any other environment variable.
    """
    port = free_port()
    names = ("MCP_REQUEST_STATE_KEY", "ELICITKIT_REDIS_URL", "ELICITKIT_STORE")
    env = {k: v for k, v in os.environ.items() if k not in names} | variables
    if key is not None:
        env["MCP_REQUEST_STATE_KEY"] = key
    if redis is not None:
        env["ELICITKIT_REDIS_URL"] = redis
    with listening([sys.executable, str(EXAMPLE), "--port", str(port), *flags], port, env=env):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def stateful_url() -> Iterator[str]:
    with http_server() as url:
        yield url


@pytest.fixture(scope="module")
def stateless_url() -> Iterator[str]:
    with http_server("--stateless") as url:
        yield url


class User:
    """Plays the person in front of the client: answers with SLOT and remembers the form."""

    def __init__(self) -> None:
        self.forms: list[dict[str, Any]] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.forms.append(params.model_dump(by_alias=True, exclude_none=True))
        return types.ElicitResult(action="accept", content=SLOT)


async def _schedule(url: str, mode: str, user: User) -> tuple[str, types.CallToolResult]:
    async with Client(url, mode=mode, elicitation_callback=user) as client:  # type: ignore[arg-type]
        result = await client.call_tool("schedule_delivery", {"order": "A-17"})
        return client.protocol_version, result


@pytest.mark.parametrize(
    ("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")], ids=["2025", "2026"]
)
async def test_sessions_with_sse_ask_on_every_era(
    stateful_url: str, mode: str, version: str
) -> None:
    user = User()
    negotiated, result = await _schedule(stateful_url, mode, user)
    assert negotiated == version
    assert not result.is_error
    assert result.content[0].text == DONE  # type: ignore[union-attr]
    assert len(user.forms) == 1
    assert user.forms[0]["message"] == "When should we deliver?"
    assert user.forms[0]["requestedSchema"]["properties"]["day"] == {
        "type": "string",
        "title": "Day",
        "format": "date",
    }


async def test_stateless_json_replays_on_2026(stateless_url: str) -> None:
    user = User()
    negotiated, result = await _schedule(stateless_url, "auto", user)
    assert negotiated == "2026-07-28"
    assert result.content[0].text == DONE  # type: ignore[union-attr]
    assert len(user.forms) == 1


async def test_stateless_json_cannot_ask_mid_call_on_2025(stateless_url: str) -> None:
    # No session and no SSE stream: the server has no way to send elicitation/create. The call
    # must end with an error result (its wording is the hardening issue's), never hang, and
    # the client must never be shown a form.
    user = User()
    negotiated, result = await _schedule(stateless_url, "legacy", user)
    assert negotiated == "2025-11-25"
    assert result.is_error
    assert user.forms == []


async def _round_one_then_retry_elsewhere(first: str, second: str) -> str:
    user = User()
    async with (
        Client(first, elicitation_callback=user) as client_a,
        Client(second, elicitation_callback=user) as client_b,
    ):
        arguments = {"order": "A-17"}
        asked = await client_a.session.call_tool(
            "schedule_delivery", arguments, allow_input_required=True
        )
        assert isinstance(asked, types.InputRequiredResult)
        (key,) = asked.input_requests or {}
        answer = types.ElicitResult(action="accept", content=SLOT)
        try:
            done = await client_b.session.call_tool(
                "schedule_delivery",
                arguments,
                input_responses={key: answer},
                request_state=asked.request_state,
                allow_input_required=True,
            )
        except MCPError as error:
            return f"refused with {error.error.code}"
        assert isinstance(done, types.CallToolResult)
        return done.content[0].text  # type: ignore[union-attr]


async def test_two_workers_with_a_shared_key_and_store_continue_each_others_calls(
    redis_url: str,
) -> None:
    key = secrets.token_hex(32)
    with (
        http_server("--stateless", key=key, redis=redis_url) as one,
        http_server("--stateless", key=key, redis=redis_url) as two,
    ):
        assert await _round_one_then_retry_elsewhere(one, two) == DONE


async def test_two_workers_on_one_machine_with_nothing_set_continue_each_others_calls() -> None:
    """The default: one record file and the key file beside it, for every process."""
    with http_server("--stateless") as one, http_server("--stateless") as two:
        assert await _round_one_then_retry_elsewhere(one, two) == DONE


async def test_two_workers_with_a_shared_key_but_a_store_each_refuse_each_others_calls() -> None:
    """Each keeps its own MemoryStore: the second has no record of the call, so it refuses.

    Before, it ran the call again; a final round resent to it repeated the side effect.
    """
    key = secrets.token_hex(32)
    memory = {"ELICITKIT_STORE": "memory://"}
    with (
        http_server("--stateless", key=key, **memory) as one,
        http_server("--stateless", key=key, **memory) as two,
    ):
        assert await _round_one_then_retry_elsewhere(one, two) == "refused with -32603"


async def test_two_workers_with_their_own_keys_refuse_each_others_state(tmp_path: Path) -> None:
    """Two machines, say: each its own state folder, so its own key file."""
    with (
        http_server("--stateless", XDG_STATE_HOME=str(tmp_path / "one")) as one,
        http_server("--stateless", XDG_STATE_HOME=str(tmp_path / "two")) as two,
    ):
        assert await _round_one_then_retry_elsewhere(one, two) == "refused with -32602"


def _load_example() -> Any:
    import importlib.util  # noqa: PLC0415  (examples/ is not a package)

    if "http_server_example" in sys.modules:
        return sys.modules["http_server_example"]
    spec = importlib.util.spec_from_file_location("http_server_example", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve postponed annotations through it
    spec.loader.exec_module(module)
    return module


def _fastmcp_server(store: MemoryStore | None = None) -> FastMCP[Any]:
    """The example's tool on a fastmcp server (the form class is the example's)."""
    slot_form = _load_example().DeliverySlot
    server = install(FastMCP("deliveries"), store=store)

    @server.tool
    async def schedule_delivery(order: str) -> str:
        """Ask the user for a delivery slot for an order."""
        answer = await ask(slot_form)
        if not answer.is_accepted():
            return f"Delivery of {order} not scheduled."
        slot = answer.unwrap()
        door = ", left at the door" if slot.leave_at_door else ""
        return f"Delivering {order} on {slot.day:%Y-%m-%d} in the {slot.window}{door}."

    return server


def _app(sdk: str, *, stateless_http: bool, json_response: bool) -> Starlette:
    """The delivery tool's ASGI app on ``sdk``, MCP endpoint at /mcp."""
    if sdk == "fastmcp":
        return _fastmcp_server().http_app(
            path="/mcp", stateless_http=stateless_http, json_response=json_response
        )
    server = _load_example().make_server()
    app: Starlette = server.streamable_http_app(
        stateless_http=stateless_http, json_response=json_response
    )
    return app


@asynccontextmanager
async def serving_mcp(app: Starlette) -> AsyncIterator[str]:
    """Serve an ASGI app with uvicorn on a free loopback port; yield its MCP URL."""
    async with serving(app) as base:
        yield f"{base}/mcp"


@pytest.mark.parametrize(
    ("stateless_http", "json_response"),
    [(False, False), (True, False), (False, True), (True, True)],
    ids=["sessions-sse", "stateless-sse", "sessions-json", "stateless-json"],
)
@pytest.mark.parametrize(("mode", "version"), [("legacy", "2025-11-25"), ("auto", "2026-07-28")])
async def test_the_settings_table(
    sdk: str, stateless_http: bool, json_response: bool, mode: str, version: str
) -> None:
    app = _app(sdk, stateless_http=stateless_http, json_response=json_response)
    user = User()
    async with serving_mcp(app) as url:
        negotiated, result = await _schedule(url, mode, user)
    assert negotiated == version
    if version == "2026-07-28" or not (stateless_http or json_response):
        assert result.content[0].text == DONE  # type: ignore[union-attr]
        assert len(user.forms) == 1
    else:  # no way to send elicitation/create mid-call: an error result, no form, no hang
        assert result.is_error
        assert user.forms == []


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param("s" * 48, DONE, id="shared-key"),
        pytest.param(None, "refused with -32602", id="own-keys"),
    ],
)
async def test_fastmcp_workers_seal_with_the_key_install_reads(
    monkeypatch: pytest.MonkeyPatch, key: str | None, expected: str
) -> None:
    """install() makes fastmcp's own RequestStateBoundary seal with MCP_REQUEST_STATE_KEY.

    Two fastmcp servers built alike (as two workers would be), each under its own uvicorn:
    the first round on one, the retry on the other. They share one store, as workers share
    a RedisStore: without it the second would refuse a call it has no record of.
    """
    if key is None:
        monkeypatch.delenv("MCP_REQUEST_STATE_KEY", raising=False)
    else:
        monkeypatch.setenv("MCP_REQUEST_STATE_KEY", key)
    store = MemoryStore()
    one, two = (
        _fastmcp_server(store).http_app(path="/mcp", stateless_http=True, json_response=True)
        for _ in range(2)
    )
    async with serving_mcp(one) as first, serving_mcp(two) as second:
        assert await _round_one_then_retry_elsewhere(first, second) == expected
