"""At most once when the store forgets, over real HTTP with two workers behind a proxy.

The scale-out harness of tests/test_scaleout.py (two uvicorn workers configured by
environment, a round-robin proxy, raw ``tools/call`` POSTs) with a store Redis that the
test restarts empty or pauses, and a worker it kills mid-round. Side effects are counted in
the session's other Redis, which no test disturbs. Leases and store timeouts are shortened
through the worker's test variables, so each test takes seconds. Official SDK workers only:
the faults are the store's, and tests/test_scaleout.py already runs both SDKs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from redis import Redis

from elicitkit._replay.once import FORGOTTEN, INTERRUPTED, STORE_UNAVAILABLE
from tests.loopback import free_port, listening
from tests.redis_server import RedisProcess, RedisProcessFactory
from tests.test_scaleout import KEY_A, PROXY, WORKER, answer, post
from tests.waiting import wait_until

LEASE = 1.0
TIMEOUT = 1.0


@contextmanager
def cluster(
    store_url: str, effects_url: str
) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """Two workers sharing a key and the store; yields the proxy's URL and the workers."""
    ports = [free_port(), free_port()]
    proxy_port = free_port()
    env = {
        **os.environ,
        "MCP_REQUEST_STATE_KEY": KEY_A,
        "ELICITKIT_REDIS_URL": store_url,
        "EFFECTS_REDIS_URL": effects_url,
        "TEST_LEASE": str(LEASE),
        "TEST_STORE_TIMEOUT": str(TIMEOUT),
    }
    with ExitStack() as stack:
        workers = [
            stack.enter_context(listening([sys.executable, str(WORKER), str(port)], port, env=env))
            for port in ports
        ]
        command = [sys.executable, str(PROXY), str(proxy_port), *map(str, ports)]
        stack.enter_context(listening(command, proxy_port))
        yield f"http://127.0.0.1:{proxy_port}/mcp", workers


@pytest.fixture
def store_redis(redis_process: RedisProcessFactory) -> Iterator[RedisProcess]:
    with redis_process() as server:
        yield server


@pytest.fixture
def effects(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    client.close()


def to_the_final_round(url: str, item: str) -> dict[str, Any]:
    """Every round but the last; returns the last round's params (answers and state)."""
    arguments = {"item": item}
    result = post(url, arguments=arguments)["result"]
    while True:
        replies = {key: answer(value) for key, value in result["inputRequests"].items()}
        extra = {"arguments": arguments, "inputResponses": replies}
        extra["requestState"] = result["requestState"]
        if next(iter(result["inputRequests"].values()))["params"]["message"] == (
            "Place the order?"
        ):
            return extra
        result = post(url, **extra)["result"]


def post_until_answered(url: str, **params: Any) -> dict[str, Any]:
    """Post until a worker answers: the proxy drops a connection to a dead worker."""
    for _ in range(10):
        try:
            return post(url, **params)
        except (urllib.error.URLError, ConnectionError):  # noqa: PERF203  (ten tries at most)
            continue
    raise AssertionError("no worker answered 10 tries")


def test_redis_restarted_empty_refuses_the_resent_final_round(
    store_redis: RedisProcess, redis_url: str, effects: Redis
) -> None:
    """Before: the resent final round found no record and charged again."""
    item = f"tea-{uuid.uuid4().hex}"
    with cluster(store_redis.url, redis_url) as (url, _):
        final = to_the_final_round(url, item)
        first = post(url, **final)["result"]
        store_redis.restart()
        again = post_until_answered(url, **final)
        later = post_until_answered(url, **final)  # and on the other worker
    assert first["content"][0]["text"] == f"{item}: 2 x M, order number 1"
    assert again["error"] == later["error"] == {"code": -32603, "message": FORGOTTEN}
    assert effects.get(f"effects:{item}") == b"1"


def test_a_worker_killed_mid_round_is_reported_interrupted_within_seconds(
    store_redis: RedisProcess, redis_url: str, effects: Redis
) -> None:
    """Before: its lease lasted 660 s: each retry waited 30 s, then heard "still running"."""
    item = f"slow-{uuid.uuid4().hex}"
    with cluster(store_redis.url, redis_url) as (url, workers):
        final = to_the_final_round(url, item)
        lost: list[BaseException] = []

        def doomed() -> None:
            try:
                post(url, **final)
            except (urllib.error.URLError, ConnectionError) as error:
                lost.append(error)

        thread = threading.Thread(target=doomed)
        thread.start()
        wait_until(  # the side effect happened
            lambda: effects.get(f"effects:{item}") == b"1",
            within=10,
            every=0.02,
            what="the final round reaching its effect",
        )
        rounds = effects.lrange(f"rounds:{item}", 0, -1)
        holder = int(rounds[-1])  # type: ignore[index]
        (victim,) = (worker for worker in workers if worker.pid == holder)
        os.kill(victim.pid, signal.SIGKILL)
        started = time.monotonic()
        refused = post_until_answered(url, **final)
        took = time.monotonic() - started
        thread.join(timeout=10)
    assert refused["error"] == {"code": -32603, "message": INTERRUPTED}
    assert took < LEASE + 3  # the lease lapses; the proxy may first try the dead worker
    assert lost, "the killed worker answered"
    assert effects.get(f"effects:{item}") == b"1"


def test_a_paused_store_fails_the_round_within_its_timeout(
    store_redis: RedisProcess, redis_url: str, effects: Redis
) -> None:
    """Before: with Redis stopped (SIGSTOP) every later round hung without a bound."""
    item = f"mug-{uuid.uuid4().hex}"
    with cluster(store_redis.url, redis_url) as (url, _):
        final = to_the_final_round(url, item)
        store_redis.pause()
        started = time.monotonic()
        refused = post(url, **final)["result"]
        took = time.monotonic() - started
        store_redis.resume()
    assert refused["isError"] is True
    assert refused["content"] == [{"type": "text", "text": STORE_UNAVAILABLE}]
    assert took < TIMEOUT + 2
    assert effects.get(f"effects:{item}") is None
