"""Zero configuration is multi-process: records in the default SQLite file, the key beside it.

A server that sets nothing (tests/servers/zero_config.py: a bare ``install()``, no key, no
store, no variable) run as several processes on one machine, as users run it:

* a stdio server killed and started again between the rounds of a 2026-07-28 call;
* a client that starts a new stdio server for every call (langchain-mcp-adapters' default
  tools, the MCP Inspector's ``--cli``), on 2025-11-25 without elicitation, finishing the
  form through ``answer_form`` across three processes;
* two HTTP workers behind a round-robin proxy, so consecutive rounds reach different
  processes, and ``uvicorn --workers 2`` itself.

Each step's effect and each round is a row in the test's ledger (an SQLite file of the test,
not elicitkit's), so the counts span every process. Before this, each process sealed with a
key of its own and kept its records in its memory: the second process called the state
"malformed or altered" and the ticket's call could not finish.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import urllib.error
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from elicitkit._replay.once import INTERRUPTED
from tests.interop._ledger import count, round_pids
from tests.loopback import free_port, listening
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.sdks import SDKS
from tests.test_scaleout import post
from tests.test_stdio import REPO, SERVER_ENV, TIMEOUT, server_stderr
from tests.test_tasks_redis import _one_task_across as one_task_across  # pyright: ignore[reportPrivateUsage]
from tests.waiting import wait_until

__all__ = ["server_stderr"]  # a fixture, used by name

SCRIPT = REPO / "tests" / "servers" / "zero_config.py"
PROXY = REPO / "tests" / "round_robin_proxy.py"


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


def stdio_params(sdk: str, ledger: Path) -> StdioServerParameters:
    env = {**SERVER_ENV, "SERVER_SDK": sdk, "LEDGER": str(ledger)}
    return StdioServerParameters(
        command=sys.executable, args=[str(SCRIPT), "stdio"], cwd=REPO, env=env
    )


async def in_a_new_process(
    params: StdioServerParameters, errlog: IO[str], *, mode: str, forms: bool, call: Any
) -> Any:
    """Start a server process, make one ``call`` on it, stop it (a client of that kind)."""
    callback = never_called if forms else None
    with anyio.fail_after(TIMEOUT):
        async with Client(
            stdio_client(params, errlog=errlog), mode=mode, elicitation_callback=callback
        ) as client:
            return await call(client)


@pytest.mark.parametrize("sdk", SDKS)
def test_a_stdio_server_restarted_between_every_round_continues_the_call(
    sdk: str, ledger: Path, server_stderr: IO[str]
) -> None:
    """2026-07-28, four server processes for one call: each round reaches a new one."""
    params = stdio_params(sdk, ledger)
    arguments = {"item": "oslo"}

    async def main() -> list[Any]:
        def round_(answers: types.InputResponses | None = None, state: str | None = None) -> Any:
            async def call(client: Client) -> Any:
                return await retry(client, "trip", arguments, answers, state)

            return in_a_new_process(params, server_stderr, mode="auto", forms=True, call=call)

        first = await round_()
        key, _, state = only_question(first)
        second = await round_({key: accept(count=2)}, state)
        key, asked, state = only_question(second)
        assert asked["message"] == "Pay for reservation 1?"
        final = await round_({key: accept(ok=True)}, state)
        again = await round_({key: accept(ok=True)}, state)  # resent to yet another process
        return [final, again]

    final, again = anyio.run(main)
    assert text_of(final) == "oslo: 2 seats, reservation 1, receipt 1"
    assert again == final  # the recorded outcome: nothing ran again
    assert (count(ledger, "oslo", "reserve"), count(ledger, "oslo", "pay")) == (1, 1)
    assert len(round_pids(ledger, "oslo")) == 3  # the resent round did not even start the tool


@pytest.mark.parametrize("sdk", SDKS)
def test_a_client_that_starts_a_server_per_call_finishes_the_form_through_the_model(
    sdk: str, ledger: Path, server_stderr: IO[str]
) -> None:
    """2025-11-25 without elicitation: the listing, then answer_form, each in a new process."""
    params = stdio_params(sdk, ledger)

    def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        async def call(client: Client) -> types.CallToolResult:
            return await client.call_tool(name, arguments)

        return in_a_new_process(params, server_stderr, mode="legacy", forms=False, call=call)

    def ticket(result: types.CallToolResult) -> str:
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None
        return str(result.structured_content["ticket"])

    async def main() -> list[types.CallToolResult]:
        listing = await call_tool("trip", {"item": "bergen"})
        confirm = await call_tool(
            "answer_form", {"ticket": ticket(listing), "answers": {"count": 3}}
        )
        answers = {"ticket": ticket(confirm), "answers": {"ok": True}}
        paid = await call_tool("answer_form", answers)
        again = await call_tool("answer_form", answers)
        return [confirm, paid, again]

    confirm, paid, again = anyio.run(main)
    assert "Pay for reservation 1?" in text_of(confirm)
    assert text_of(paid) == "bergen: 3 seats, reservation 1, receipt 1"
    assert text_of(again) == text_of(paid)
    assert (count(ledger, "bergen", "reserve"), count(ledger, "bergen", "pay")) == (1, 1)


def dialogue(url: str, item: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A trip's every round as raw POSTs, each on its own connection; then the final again."""
    arguments = {"item": item}
    response = post(url, tool="trip", arguments=arguments)
    extra: dict[str, Any] = {}
    while True:
        result = response["result"]
        if result.get("resultType") != "input_required":
            break
        ((key, question),) = result["inputRequests"].items()
        message = question["params"]["message"]
        content = {"ok": True} if message.startswith("Pay") else {"count": 2}
        extra = {
            "inputResponses": {key: {"action": "accept", "content": content}},
            "requestState": result["requestState"],
        }
        response = post(url, tool="trip", arguments=arguments, **extra)
    return result, post(url, tool="trip", arguments=arguments, **extra)["result"]


def uvicorn(port: int, *, workers: int = 1) -> list[str]:
    app = "tests.servers.zero_config:app"
    return [sys.executable, "-m", "uvicorn", app, "--port", str(port), "--workers", str(workers),
            "--log-level", "warning"]  # fmt: skip


def worker_env(sdk: str, ledger: Path) -> dict[str, str]:
    return {**os.environ, "SERVER_SDK": sdk, "LEDGER": str(ledger), "PYTHONPATH": str(REPO)}


@contextmanager
def behind_a_proxy(sdk: str, ledger: Path, **variables: str) -> Iterator[str]:
    """Two single-worker servers behind the round-robin proxy: the proxy's MCP URL."""
    ports = [free_port(), free_port()]
    proxy_port = free_port()
    env = worker_env(sdk, ledger) | variables
    with ExitStack() as stack:
        for port in ports:
            stack.enter_context(listening(uvicorn(port), port, env=env))
        command = [sys.executable, str(PROXY), str(proxy_port), *map(str, ports)]
        stack.enter_context(listening(command, proxy_port))
        yield f"http://127.0.0.1:{proxy_port}/mcp"


@pytest.mark.parametrize("sdk", SDKS)
def test_two_http_workers_with_no_configuration_share_every_call(
    sdk: str, ledger: Path, starts_processes: None
) -> None:
    with behind_a_proxy(sdk, ledger) as url:
        results = [dialogue(url, f"trip-{number}") for number in range(3)]
    for number, (final, again) in enumerate(results):
        item = f"trip-{number}"
        assert final["content"][0]["text"] == f"{item}: 2 seats, reservation 1, receipt 1"
        assert again == final
        assert (count(ledger, item, "reserve"), count(ledger, item, "pay")) == (1, 1)
        assert len(round_pids(ledger, item)) == 2, "the rounds did not reach both workers"


@pytest.mark.parametrize("sdk", SDKS)
def test_a_worker_killed_inside_a_step_fails_the_call_closed_on_the_other(
    sdk: str, ledger: Path, starts_processes: None
) -> None:
    """SIGKILL mid-step with nothing configured: the lease in the file lapses, the other
    worker says the call was interrupted, and the payment never runs a second time."""
    item = f"slow-{secrets.token_hex(4)}"
    env = {**worker_env(sdk, ledger), "TEST_LEASE": "1"}
    with ExitStack() as stack:
        ports = [free_port(), free_port()]
        (victim, _) = (stack.enter_context(listening(uvicorn(p), p, env=env)) for p in ports)
        one, two = (f"http://127.0.0.1:{port}/mcp" for port in ports)
        arguments = {"item": item}
        first = post(one, tool="trip", arguments=arguments)["result"]
        ((key, _),) = first["inputRequests"].items()
        second = post(two, tool="trip", arguments=arguments, inputResponses={
            key: {"action": "accept", "content": {"count": 2}}}, requestState=first["requestState"]
        )["result"]  # fmt: skip
        ((key, _),) = second["inputRequests"].items()
        final = {
            "inputResponses": {key: {"action": "accept", "content": {"ok": True}}},
            "requestState": second["requestState"],
        }
        lost: list[BaseException] = []

        def doomed() -> None:
            try:
                post(one, tool="trip", arguments=arguments, **final)
            except (urllib.error.URLError, ConnectionError) as error:
                lost.append(error)

        thread = threading.Thread(target=doomed)
        thread.start()
        wait_until(lambda: count(ledger, item, "pay") == 1, within=20, every=0.02,
                   what="the final round reaching its payment")  # fmt: skip
        os.kill(victim.pid, signal.SIGKILL)
        thread.join(timeout=20)
        retried = post(two, tool="trip", arguments=arguments, **final)
    assert lost, "the killed worker answered"
    assert retried["error"] == {"code": -32603, "message": INTERRUPTED}
    assert (count(ledger, item, "reserve"), count(ledger, item, "pay")) == (1, 1)


@pytest.mark.anyio
@pytest.mark.parametrize("sdk", SDKS)
async def test_a_task_started_on_one_worker_is_answered_and_finished_through_the_other(
    sdk: str, ledger: Path, starts_processes: None
) -> None:
    """go_async() with no configuration: the task lives in the default file, so tasks/get and
    tasks/update on the other worker find it, and the body on the first sees the answer."""
    with ExitStack() as stack:
        workers = []
        for port in (free_port(), free_port()):
            process = stack.enter_context(
                listening(uvicorn(port), port, env=worker_env(sdk, ledger))
            )
            workers.append((f"http://127.0.0.1:{port}/mcp", process))
        await one_task_across(workers)


@pytest.mark.parametrize("sdk", SDKS)
def test_two_http_workers_with_the_one_setting_on_redis_share_every_call(
    sdk: str, ledger: Path, redis_url: str, tmp_path: Path
) -> None:
    """Several machines: ELICITKIT_STORE=redis://... and one shared key, nothing in code.
    (A state folder each, as two machines have: only Redis and the key are shared.)"""
    shared = {"ELICITKIT_STORE": redis_url, "MCP_REQUEST_STATE_KEY": secrets.token_hex(32)}
    folder = tmp_path / "state"
    with behind_a_proxy(sdk, ledger, XDG_STATE_HOME=str(folder), **shared) as url:
        results = [dialogue(url, f"redis-{number}") for number in range(2)]
    for number, (final, again) in enumerate(results):
        item = f"redis-{number}"
        assert final["content"][0]["text"] == f"{item}: 2 seats, reservation 1, receipt 1"
        assert again == final
        assert (count(ledger, item, "reserve"), count(ledger, item, "pay")) == (1, 1)
        assert len(round_pids(ledger, item)) == 2, "the rounds did not reach both workers"
    assert not folder.exists()  # no record file, no key file: Redis and the key hold it all


@pytest.mark.parametrize("sdk", SDKS)
def test_uvicorn_with_two_workers_and_no_configuration_completes_every_call_once(
    sdk: str, ledger: Path, starts_processes: None
) -> None:
    """The first thing anyone does to scale: ``uvicorn --workers 2``, nothing else set.

    Which worker takes a connection is the kernel's choice; the calls must complete once
    wherever their rounds land (the proxy test above makes them cross for certain).
    """
    port = free_port()
    with listening(uvicorn(port, workers=2), port, env=worker_env(sdk, ledger)):
        results = [dialogue(f"http://127.0.0.1:{port}/mcp", f"many-{n}") for n in range(8)]
    for number, (final, again) in enumerate(results):
        item = f"many-{number}"
        assert final["content"][0]["text"] == f"{item}: 2 seats, reservation 1, receipt 1"
        assert again == final
        assert (count(ledger, item, "reserve"), count(ledger, item, "pay")) == (1, 1)


@pytest.mark.anyio
async def test_one_stdio_process_with_no_configuration_runs_a_task_with_a_question(
    starts_processes: None,
) -> None:
    """The tasks extra installed and nothing set: Docket embedded, records in the SQLite file."""
    from elicitkit.testing import ScriptedUser, connect  # noqa: PLC0415
    from elicitkit.testing import accept as accepting  # noqa: PLC0415

    params = StdioServerParameters(
        command=sys.executable, args=[str(REPO / "examples" / "long_report.py")], env=SERVER_ENV
    )
    user = ScriptedUser(accepting(name="Ada"), accepting(copies=2))
    with anyio.fail_after(TIMEOUT):
        async with connect(params, protocol="2026-07-28", user=user) as client:
            result = await client.call_tool("render", {"title": "Q3", "seconds": 0.1})
    assert text_of(result) == "REPORT Q3 for Ada: 2 copies, as a task."
    assert user.messages == ["Who is the report for?", "Q3 is rendered. How many copies?"]
