"""Stateless scale-out on 2026-07-28: two worker processes behind a round-robin proxy.

Real processes on loopback: two uvicorn workers (tests/servers/scaleout_worker.py, on the
official SDK's server or on fastmcp's: every test runs on both),
configured only by environment (``MCP_REQUEST_STATE_KEY``, ``ELICITKIT_REDIS_URL``), a
round-robin TCP proxy in front (tests/round_robin_proxy.py), and a real redis-server for
the at-most-once record and for counting side effects across both workers. Each round is a
raw ``tools/call`` POST on its own connection, so consecutive rounds reach different workers.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from tests.loopback import free_port, listening
from tests.sdks import SDKS

HERE = Path(__file__).parent
WORKER = HERE / "servers" / "scaleout_worker.py"
PROXY = HERE / "round_robin_proxy.py"
KEY_A = "a" * 32 + "-shared-state-key"
KEY_B = "b" * 32 + "-another-state-key"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "scaleout-test", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
ANSWERS = {
    "Which size?": {"size": "M"},
    "Place the order?": {"ok": True},
}


@contextmanager
def cluster(redis_url: str, keys: tuple[str, str], sdk: str) -> Iterator[str]:
    """Two ``sdk`` workers (one state key each) behind the proxy; yields the proxy's MCP URL."""
    ports = [free_port(), free_port()]
    proxy_port = free_port()
    with ExitStack() as stack:
        for port, key in zip(ports, keys, strict=True):
            env = {**os.environ, "MCP_REQUEST_STATE_KEY": key, "ELICITKIT_REDIS_URL": redis_url}
            command = [sys.executable, str(WORKER), str(port), sdk]
            stack.enter_context(listening(command, port, env=env))
        command = [sys.executable, str(PROXY), str(proxy_port), *map(str, ports)]
        stack.enter_context(listening(command, proxy_port))
        yield f"http://127.0.0.1:{proxy_port}/mcp"


@pytest.fixture(scope="module", params=SDKS)
def url(redis_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    with cluster(redis_url, (KEY_A, KEY_A), request.param) as proxy:
        yield proxy


@pytest.fixture
def redis(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    client.close()


def post(url: str, *, tool: str = "order", **params: Any) -> dict[str, Any]:
    """One raw ``tools/call`` of ``tool`` on a fresh connection; the JSON-RPC response."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, **params, "_meta": META},
    }
    request = urllib.request.Request(  # noqa: S310  (loopback URL built by this test)
        url,
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
            "Connection": "close",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return json.loads(response.read())
    except urllib.error.HTTPError as error:  # a JSON-RPC error may come with HTTP 400
        return json.loads(error.read())


def answer(question: dict[str, Any]) -> dict[str, Any]:
    message = question["params"]["message"]
    content = ANSWERS.get(message, {"count": 2})
    return {"action": "accept", "content": content}


def dialogue(url: str, item: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every round of one order, then its final round sent once more (to the other worker)."""
    arguments = {"item": item}
    responses = [post(url, arguments=arguments)]
    extra: dict[str, Any] = {}
    while True:
        result = responses[-1]["result"]
        if result.get("resultType") != "input_required":
            break
        replies = {key: answer(value) for key, value in result["inputRequests"].items()}
        extra = {"inputResponses": replies, "requestState": result["requestState"]}
        responses.append(post(url, arguments=arguments, **extra))
    again = post(url, arguments=arguments, **extra) if extra else None
    return responses, [again["result"]] if again else []


def test_a_dialogue_moves_between_workers_and_its_side_effect_happens_once(
    url: str, redis: Redis
) -> None:
    item = f"tea-{uuid.uuid4().hex}"
    responses, finals = dialogue(url, item)
    final = responses[-1]["result"]
    assert final["content"] == [{"type": "text", "text": f"{item}: 2 x M, order number 1"}]
    assert len(responses) == 4  # three questions, then the result
    assert finals == [final]  # the final round again, on the other worker: the record
    assert redis.get(f"effects:{item}") == b"1"
    # The tool ran once per round (the resent final round did not run it), on each
    # worker in turn.
    rounds = [int(pid) for pid in redis.lrange(f"rounds:{item}", 0, -1)]  # type: ignore[union-attr]
    assert len(rounds) == 4
    assert len(set(rounds)) == 2, "the rounds did not reach both workers"
    assert all(a != b for a, b in itertools.pairwise(rounds))


def test_concurrent_dialogues_complete_and_each_side_effect_counts_once(
    url: str, redis: Redis
) -> None:
    items = [f"cup-{index}-{uuid.uuid4().hex}" for index in range(24)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(lambda item: dialogue(url, item), items))
    for item, (responses, finals) in zip(items, outcomes, strict=True):
        final = responses[-1]["result"]
        assert final["content"] == [{"type": "text", "text": f"{item}: 2 x M, order number 1"}]
        assert finals == [final], "the final round sent twice got two different outcomes"
        assert redis.get(f"effects:{item}") == b"1"


def test_a_final_round_sent_to_both_workers_at_once_runs_once(url: str, redis: Redis) -> None:
    item = f"mug-{uuid.uuid4().hex}"
    arguments = {"item": item}
    result = post(url, arguments=arguments)["result"]
    for _ in range(2):
        replies = {key: answer(value) for key, value in result["inputRequests"].items()}
        state = result["requestState"]
        result = post(url, arguments=arguments, inputResponses=replies, requestState=state)[
            "result"
        ]
    replies = {key: answer(value) for key, value in result["inputRequests"].items()}
    extra = {"inputResponses": replies, "requestState": result["requestState"]}
    with ThreadPoolExecutor(max_workers=2) as pool:
        both = list(pool.map(lambda _: post(url, arguments=arguments, **extra), range(2)))
    assert both[0]["result"] == both[1]["result"]
    assert both[0]["result"]["content"][0]["text"] == f"{item}: 2 x M, order number 1"
    assert redis.get(f"effects:{item}") == b"1"


def test_workers_with_different_state_keys_refuse_each_others_state(
    redis_url: str, sdk: str
) -> None:
    with cluster(redis_url, (KEY_A, KEY_B), sdk) as proxy:
        first = post(proxy, arguments={"item": "kettle"})["result"]
        replies = {key: answer(value) for key, value in first["inputRequests"].items()}
        second = post(
            proxy,
            arguments={"item": "kettle"},
            inputResponses=replies,
            requestState=first["requestState"],
        )
    assert second["error"]["code"] == -32602
    assert second["error"]["message"] == "Invalid or expired requestState"
