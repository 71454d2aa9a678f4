"""Durable steps across two worker processes behind a round-robin proxy, with a real Redis.

The scale-out harness of tests/test_scaleout.py (two uvicorn workers sharing a state key
and a redis-server store, a round-robin proxy, raw 2026-07-28 ``tools/call`` POSTs, one
connection each, so consecutive rounds reach different workers) drives the worker's
``trip`` tool: ask, step ``reserve``, ask, step ``pay``. Each step's function adds one to a
counter in Redis, so the tests count its runs across both processes: each runs exactly
once, however rounds are resent, replayed from an older state or spread over workers; a
payment that raises is raised again, as the same type, by the other worker without a second
payment; a worker killed inside a step fails the dialogue closed, and the step does not run
again, unless the step is ``retry_safe``: then the next round runs it again, and the call
completes once. Every test runs on both server SDKs.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
import urllib.error
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from elicitkit._replay.once import INTERRUPTED
from tests.loopback import free_port, listening
from tests.sdks import SDKS
from tests.test_scaleout import KEY_A, PROXY, WORKER, post
from tests.waiting import wait_until

ROOT = Path(__file__).parent.parent
# Short leases so a killed worker's dialogue reads as interrupted within about a second.
LEASE = 1.0
TIMEOUT = 1.0


@contextmanager
def cluster(redis_url: str, sdk: str) -> Iterator[tuple[str, list[Any]]]:
    """Two ``sdk`` workers sharing a key and a store; yields the proxy's URL and the workers."""
    # The workers must import this checkout's elicitkit, not the one installed in the venv
    # (an editable install of another worktree): its directory goes first on their path.
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {
        **os.environ,
        "PYTHONPATH": path,
        "MCP_REQUEST_STATE_KEY": KEY_A,
        "ELICITKIT_REDIS_URL": redis_url,
        "TEST_LEASE": str(LEASE),
        "TEST_STORE_TIMEOUT": str(TIMEOUT),
    }
    ports = [free_port(), free_port()]
    proxy_port = free_port()
    with ExitStack() as stack:
        workers = [
            stack.enter_context(
                listening([sys.executable, str(WORKER), str(port), sdk], port, env=env)
            )
            for port in ports
        ]
        command = [sys.executable, str(PROXY), str(proxy_port), *map(str, ports)]
        stack.enter_context(listening(command, proxy_port))
        yield f"http://127.0.0.1:{proxy_port}/mcp", workers


@pytest.fixture
def redis(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    client.close()


def trip(url: str, item: str, *, safe: bool = False, **params: Any) -> dict[str, Any]:
    return post(url, tool="trip", arguments={"item": item, "safe": safe}, **params)


def replies(result: dict[str, Any]) -> dict[str, Any]:
    """Two seats, and yes to anything else: the answers to the round's one question."""
    ((key, question),) = result["inputRequests"].items()
    message = question["params"]["message"]
    content = {"count": 2} if message.startswith("How many") else {"ok": True}
    return {key: {"action": "accept", "content": content}}


def next_round(result: dict[str, Any]) -> dict[str, Any]:
    """The params of the round that answers ``result``'s question."""
    return {"inputResponses": replies(result), "requestState": result["requestState"]}


def question_of(result: dict[str, Any]) -> str:
    ((question,),) = [[asked["params"]["message"] for asked in result["inputRequests"].values()]]
    return str(question)


def counts(redis: Redis, item: str) -> tuple[Any, Any]:
    return redis.get(f"reserve:{item}"), redis.get(f"pay:{item}")


@pytest.mark.parametrize("sdk", SDKS)
def test_each_step_runs_once_across_workers_resends_and_older_states(
    redis_url: str, redis: Redis, sdk: str
) -> None:
    item = f"train-{uuid.uuid4().hex}"
    with cluster(redis_url, sdk) as (url, _):
        first = trip(url, item)["result"]
        round_two = next_round(first)
        # Round two runs the reservation (a later round: recorded in the store) ...
        second = trip(url, item, **round_two)["result"]
        # ... and the same round resent with the older state, which lacks the step, on
        # the other worker: the reservation recorded in the shared store, not a new one.
        second_again = trip(url, item, **round_two)["result"]
        round_three = next_round(second)
        done = trip(url, item, **round_three)["result"]
        resent = trip(url, item, **round_three)["result"]  # the final round resent
        other_branch = trip(url, item, **next_round(second_again))["result"]
        older = trip(url, item, **round_two)["result"]  # an older state, after the end
    (question,) = (asked["params"]["message"] for asked in second["inputRequests"].values())
    assert question == "Pay for reservation 1?"
    assert second_again["inputRequests"] == second["inputRequests"]
    assert done["content"] == [{"type": "text", "text": f"{item}: reservation 1, receipt 1"}]
    assert resent == other_branch == older == done
    assert counts(redis, item) == (b"1", b"1")
    # The body ran in rounds one to three and in the resent round two, each time on the
    # other worker; the final round's resends were answered from the record.
    rounds = [int(pid) for pid in redis.lrange(f"rounds:{item}", 0, -1)]  # type: ignore[union-attr]
    assert len(rounds) == 4
    assert len(set(rounds)) == 2, "the rounds did not reach both workers"
    assert all(a != b for a, b in itertools.pairwise(rounds))


@pytest.mark.parametrize("sdk", SDKS)
def test_a_step_that_raises_is_raised_again_by_the_other_worker_without_running_again(
    redis_url: str, redis: Redis, sdk: str
) -> None:
    item = f"declined-{uuid.uuid4().hex}"
    with cluster(redis_url, sdk) as (url, _):
        first = trip(url, item)["result"]
        second = trip(url, item, **next_round(first))["result"]
        round_three = next_round(second)
        # Round three pays, the card is declined, and the tool asks about later ...
        third = trip(url, item, **round_three)["result"]
        # ... and the same round resent reaches the other worker: the recorded failure
        # is raised again there, as a CardDeclinedError, and the payment is not retried.
        third_again = trip(url, item, **round_three)["result"]
        done = trip(url, item, **next_round(third_again))["result"]
    assert question_of(third) == "card declined for reservation 1. Try again later?"
    assert third_again["inputRequests"] == third["inputRequests"]
    assert done["content"] == [
        {
            "type": "text",
            "text": f"{item}: CardDeclinedError: card declined for reservation 1; later: True",
        }
    ]
    assert counts(redis, item) == (b"1", b"1")
    rounds = [int(pid) for pid in redis.lrange(f"rounds:{item}", 0, -1)]  # type: ignore[union-attr]
    assert len(rounds) == 5
    assert all(a != b for a, b in itertools.pairwise(rounds)), "a round stayed on one worker"


def post_until_answered(url: str, item: str, **params: Any) -> dict[str, Any]:
    """Post until a worker answers: the proxy drops a connection to a dead worker."""
    for _ in range(10):
        try:
            return trip(url, item, **params)
        except (urllib.error.URLError, ConnectionError):  # noqa: PERF203  (ten tries at most)
            continue
    raise AssertionError("no worker answered 10 tries")


def pay_and_kill(
    url: str, redis: Redis, workers: list[Any], item: str, safe: bool, round_three: dict[str, Any]
) -> threading.Thread:
    """Send the paying round, and SIGKILL the worker that runs it once it has paid."""
    lost: list[BaseException] = []

    def doomed() -> None:
        try:
            trip(url, item, safe=safe, **round_three)
        except (urllib.error.URLError, ConnectionError) as error:
            lost.append(error)

    thread = threading.Thread(target=doomed)
    thread.start()
    wait_until(  # the payment step took effect, then blocks
        lambda: counts(redis, item)[1] == b"1",
        within=10,
        every=0.02,
        what="the final round reaching its payment",
    )
    holder = int(redis.lrange(f"rounds:{item}", 0, -1)[-1])  # type: ignore[index]
    (victim,) = (worker for worker in workers if worker.pid == holder)
    os.kill(victim.pid, signal.SIGKILL)
    thread.join(timeout=10)
    assert lost, "the killed worker answered"
    return thread


@pytest.mark.parametrize("sdk", SDKS)
def test_a_worker_killed_inside_a_step_fails_the_dialogue_closed(
    redis_url: str, redis: Redis, sdk: str
) -> None:
    item = f"slow-{uuid.uuid4().hex}"
    with cluster(redis_url, sdk) as (url, workers):
        first = trip(url, item)["result"]
        round_two = next_round(first)
        second = trip(url, item, **round_two)["result"]
        round_three = next_round(second)
        pay_and_kill(url, redis, workers, item, False, round_three)
        retried = post_until_answered(url, item, **round_three)
        older = post_until_answered(url, item, **round_two)
    assert retried["error"] == {"code": -32603, "message": INTERRUPTED}
    assert older["error"] == {"code": -32603, "message": INTERRUPTED}
    assert counts(redis, item) == (b"1", b"1")


@pytest.mark.parametrize("sdk", SDKS)
def test_a_worker_killed_inside_a_retry_safe_step_leaves_the_call_to_the_next_round(
    redis_url: str, redis: Redis, sdk: str
) -> None:
    item = f"slow-{uuid.uuid4().hex}"
    with cluster(redis_url, sdk) as (url, workers):
        first = trip(url, item, safe=True)["result"]
        round_two = next_round(first)
        second = trip(url, item, safe=True, **round_two)["result"]
        round_three = next_round(second)
        pay_and_kill(url, redis, workers, item, True, round_three)
        # The next round waits for the dead worker's lease to lapse (1 s), takes it, and
        # pays again: the reservation is replayed, the payment runs a second time.
        retried = post_until_answered(url, item, safe=True, **round_three)
        resent = post_until_answered(url, item, safe=True, **round_three)
        older = post_until_answered(url, item, safe=True, **round_two)
    assert retried["result"]["content"] == [
        {"type": "text", "text": f"{item}: reservation 1, receipt 2"}
    ]
    assert resent == older == retried  # completed once: the record answers
    assert counts(redis, item) == (b"1", b"2")
