"""Raw JSON-RPC retries over streamable HTTP against the conformance server (real uvicorn).

No SDK client here: each round is a hand-built ``tools/call`` POST, as a hostile or buggy
client would send it, carrying the stateless 2026-07-28 ``_meta``. Every test runs against
examples/conformance_server.py (the official ``MCPServer``) and against the same scenario
tools on a ``FastMCP`` (tests/servers/fastmcp_conformance.py).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.loopback import free_port, listening

HERE = Path(__file__).parent
SERVERS = [
    pytest.param([str(HERE.parent / "examples" / "conformance_server.py"), "--port"], id="mcp"),
    pytest.param([str(HERE / "servers" / "fastmcp_conformance.py")], id="fastmcp"),
]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


@pytest.fixture(scope="module", params=SERVERS)
def url(request: pytest.FixtureRequest, starts_processes: None) -> Iterator[str]:
    port = free_port()
    with listening([sys.executable, *request.param, str(port)], port, within=20):
        yield f"http://127.0.0.1:{port}/mcp"


def post(url: str, name: str, **params: Any) -> dict[str, Any]:
    """One raw ``tools/call``; returns the JSON-RPC response (from JSON or SSE)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, **params, "_meta": META},
    }
    request = urllib.request.Request(  # noqa: S310  (loopback URL built by this test)
        url,
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": name,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            text, kind = response.read().decode(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as error:  # a JSON-RPC error may come with HTTP 400
        text, kind = error.read().decode(), error.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        events = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return json.loads(events[-1])
    return json.loads(text)


def answer(name: str) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": name}}


def test_raw_rounds_use_the_explicit_key_and_a_replayed_final_round_gets_the_same_result(
    url: str,
) -> None:
    first = post(url, "test_input_required_result_elicitation")["result"]
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["user_name"]
    question = first["inputRequests"]["user_name"]
    assert question["method"] == "elicitation/create"
    assert question["params"]["message"] == "What is your name?"
    state = first["requestState"]

    final = post(
        url,
        "test_input_required_result_elicitation",
        inputResponses={"user_name": answer("Alice")},
        requestState=state,
    )["result"]
    assert final["content"] == [{"type": "text", "text": "Hello, Alice!"}]
    resent = [
        post(
            url,
            "test_input_required_result_elicitation",
            inputResponses={"user_name": answer(name)},
            requestState=state,
        )["result"]
        for name in ("Alice", "Mallory")  # the same final round, then another answer
    ]
    assert resent == [final, final]


def test_two_raw_final_rounds_at_once_get_one_result(url: str) -> None:
    first = post(url, "test_input_required_result_multi_round")["result"]
    step1 = post(
        url,
        "test_input_required_result_multi_round",
        inputResponses={"step1": answer("Ada")},
        requestState=first["requestState"],
    )["result"]
    assert list(step1["inputRequests"]) == ["step2"]

    def final(color: str) -> dict[str, Any]:
        return post(
            url,
            "test_input_required_result_multi_round",
            inputResponses={"step2": {"action": "accept", "content": {"color": color}}},
            requestState=step1["requestState"],
        )["result"]

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(final, ["green", "purple"]))
    assert results[0] == results[1]
    assert results[0]["content"][0]["text"] in {"Ada likes green.", "Ada likes purple."}


def test_a_tampered_raw_state_is_refused(url: str) -> None:
    first = post(url, "test_input_required_result_tampered_state")["result"]
    state = first["requestState"]
    tampered = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
    response = post(
        url,
        "test_input_required_result_tampered_state",
        inputResponses={"user_name": answer("Eve")},
        requestState=tampered,
    )
    assert response["error"]["code"] == -32602
    assert response["error"]["message"] == "Invalid or expired requestState"
