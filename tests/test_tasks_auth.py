"""Tasks bound to the authenticated caller, end to end: the official SDK's bearer auth.

An ``MCPServer`` with a token verifier and auth settings, served by uvicorn on loopback
over streamable HTTP; two principals (two bearer tokens, two subjects) with the official
client. A task is its creator's alone: another principal's ``tasks/get``, ``tasks/update``
and ``tasks/cancel`` on its id are refused with the extension's "not found", word for word
what an id that never existed gets, and change nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from elicitkit import go_async, install
from elicitkit.testing._task_wire import (
    CreatedTask,
    TasksExtension,
    cancel_task,
    get_task,
    update_task,
)
from tests.loopback import serving
from tests.mrtr import accept, never_called
from tests.test_router import middleware_of
from tests.test_tasks import Counts, build, start_task, until

pytestmark = pytest.mark.anyio

TOKENS = {"token-ada": "ada", "token-bob": "bob"}


class Verifier:
    """Two fixed bearer tokens, each for its own subject, of one OAuth client."""

    async def verify_token(self, token: str) -> AccessToken | None:
        subject = TOKENS.get(token)
        if subject is None:
            return None
        return AccessToken(token=token, client_id="reports", scopes=[], subject=subject)


def not_found(method: str) -> tuple[int, str]:
    message = (
        f"{method} failed: task not found (it never existed, has expired, was lost by the "
        "server's task store, or belongs to another caller)."
    )
    return -32602, message


@asynccontextmanager
async def as_principal(base: str, token: str) -> AsyncIterator[Client]:
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(
            streamable_http_client(f"{base}/mcp", http_client=http),
            elicitation_callback=never_called,
            extensions=[TasksExtension()],
        ) as client,
    ):
        yield client


def auth_server() -> MCPServer:
    """An ``MCPServer`` that takes the two bearer tokens of `Verifier`."""
    return MCPServer(
        "tasks",
        token_verifier=Verifier(),
        auth=AuthSettings(
            issuer_url="https://auth.example",
            resource_server_url="http://127.0.0.1/mcp",
            validate_token_resource=False,
        ),
    )


@asynccontextmanager
async def ada_and_bob(server: MCPServer) -> AsyncIterator[tuple[Client, Client]]:
    """``server`` on loopback, and a client of each principal."""
    async with (
        serving(server.streamable_http_app()) as base,
        as_principal(base, "token-ada") as ada,
        as_principal(base, "token-bob") as bob,
    ):
        yield ada, bob


async def _refusal(request: Awaitable[object]) -> tuple[int, str]:
    with pytest.raises(MCPError) as raised:
        await request
    return raised.value.error.code, raised.value.error.message


async def test_another_principal_cannot_see_answer_or_cancel_a_task() -> None:
    counts = Counts()
    server = auth_server()
    build("mcp", counts, server=server)
    async with ada_and_bob(server) as (ada, bob):
        created, _ = await start_task(ada)
        task_id = created.task_id
        asking = await until(ada, task_id, "input_required")
        refusals = [
            await _refusal(get_task(bob, task_id)),
            await _refusal(update_task(bob, task_id, {"copies": accept(copies=9).model_dump()})),
            await _refusal(cancel_task(bob, task_id)),
        ]
        never = await _refusal(get_task(bob, "no-such-task"))
        # Bob changed nothing: the question is still Ada's to answer, and she does.
        still = await get_task(ada, task_id)
        await update_task(ada, task_id, {"copies": accept(copies=2).model_dump()})
        done = await until(ada, task_id, "completed")
    assert list(asking["inputRequests"]) == ["copies"]
    assert refusals == [
        not_found("tasks/get"),
        not_found("tasks/update"),
        not_found("tasks/cancel"),
    ]
    assert never == not_found("tasks/get")  # told apart from no task at all: never
    assert (still["status"], list(still["inputRequests"])) == ("input_required", ["copies"])
    assert done["result"]["content"][0]["text"] == "Q3 for Ada: 2 copies (task)."
    # Two legs of Ada's task (one asked the copies, one finished); Bob's requests ran none.
    assert (counts.after_go_async, counts.finished, counts.cancelled) == (2, 1, 0)


def _subject() -> str:
    token = get_access_token()
    return "nobody" if token is None else str(token.subject)


class _Forgets:
    """Stands in for the legs this process queued, as on a worker that queued none."""

    def put(self, key: object, value: object) -> None:
        pass

    def pop(self, key: object) -> None:
        return None


def whoami_server() -> MCPServer:
    """A tool that says who it runs as, before and after ``go_async()``."""
    server = install(auth_server())

    @server.tool()
    async def whoami() -> str:
        before = _subject()
        await go_async("Looking")
        return f"{before}, then {_subject()}"

    return server


async def as_a_task(client: Client) -> str:
    created = await client.session.call_tool("whoami", {}, allow_claimed=True)
    assert isinstance(created, CreatedTask), created
    done = await until(client, created.task_id, "completed")
    return str(done["result"]["content"][0]["text"])


async def test_each_leg_runs_as_its_tasks_owner_never_as_another_caller() -> None:
    """A leg runs the tool again, after the request that queued it was answered: what the
    tool reads of the caller (the SDK's `get_access_token()`) is the task's owner's. Before,
    every leg of the process ran as whoever's request had started its task worker (here
    Bob's task ran as Ada)."""
    async with ada_and_bob(whoami_server()) as (ada, bob):
        first = await as_a_task(ada)  # starts the worker, inside Ada's request
        second = await as_a_task(bob)
    assert (first, second) == ("ada, then ada", "bob, then bob")


async def test_a_leg_from_another_worker_runs_as_nobody_never_as_another_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a shared Docket a leg may reach a worker whose process did not queue it, so no
    request of its owner is at hand: it runs as nobody. Here every leg looks so (the
    process forgets what it queued). Before, both ran as Bob, whose request started the
    worker."""
    server = whoami_server()
    monkeypatch.setattr(middleware_of(server).legs, "_queued", _Forgets())
    async with ada_and_bob(server) as (ada, bob):
        first = await as_a_task(bob)  # starts the worker, inside Bob's request
        second = await as_a_task(ada)
    assert (first, second) == ("nobody, then nobody", "nobody, then nobody")
