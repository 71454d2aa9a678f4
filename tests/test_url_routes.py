"""URL-mode routes cannot be flooded: each is dropped when it is no longer needed (issue 18).

A route is how `complete_url` reaches the session that asked. It is dropped when its
question is declined, cancelled or times out, when the call is cancelled, and when its
session ends; accepted, it is kept the question's ``timeout`` again for the page. One
session holds at most ``max_per_session`` (its own oldest goes), and a full router refuses
a new question rather than push out another session's route.

Every test runs the real SDK client and server in memory, on the three routers:
`LocalUrlRouter`, `SqliteUrlRouter` on a real file and `RedisUrlRouter` on a real
redis-server (whose rows and keys are counted too).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import sqlite3
import tracemalloc
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from redis.asyncio import Redis

import elicitkit._clock as clock
from elicitkit import install
from elicitkit.errors import ElicitationTimeout
from elicitkit.testing import FakeClock
from elicitkit.url import (
    LocalUrlRouter,
    RedisUrlRouter,
    SqliteUrlRouter,
    UrlRouter,
    ask_url,
    complete_url,
    require_url,
)
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS
from tests.sdks import in_memory
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

Answer = Callable[[Any, types.ElicitRequestURLParams], Awaitable[types.ElicitResult]]


class Routes:
    """A router under test and how many routes it holds (for Redis: its keys as well)."""

    def __init__(
        self, router: LocalUrlRouter | RedisUrlRouter | SqliteUrlRouter, redis: Redis | None
    ) -> None:
        self.router: UrlRouter = router
        self._router = router
        self._redis = redis

    async def held(self) -> int:
        """The routes held; for Redis and SQLite, also that exactly as many are there."""
        count = len(self._router)
        if isinstance(self._router, SqliteUrlRouter):
            with contextlib.closing(sqlite3.connect(self._router.path)) as db:
                (rows,) = db.execute(
                    "SELECT count(*) FROM url_routes WHERE until >= ?", (clock.now(),)
                ).fetchone()
            assert rows == count, f"{rows} rows in the file for {count} routes"
        if isinstance(self._router, RedisUrlRouter):
            assert self._redis is not None
            keys: list[bytes] = await self._redis.keys(f"{self._router._prefix}*")  # pyright: ignore[reportPrivateUsage]
            assert len(keys) == count, f"{len(keys)} keys in Redis for {count} routes"
        return count

    async def settled(self, count: int) -> None:
        """Wait (at most 5 s) until ``count`` routes are held: a session ends in its own task."""

        async def reached() -> bool:  # no event tells a route's end
            return await self.held() == count

        await eventually(reached, within=5, every=0.01, what=f"{count} routes held")


@asynccontextmanager
async def routes(kind: str, where: str | None, **limits: int) -> AsyncIterator[Routes]:
    """A router of ``kind`` with ``limits``: Redis's on its own key prefix at ``where``."""
    if kind == "local":
        yield Routes(LocalUrlRouter(**limits), None)
        return
    assert where is not None
    if kind == "sqlite":
        in_file = SqliteUrlRouter(where, **limits)
        try:
            yield Routes(in_file, None)
        finally:
            await in_file.aclose()
        return
    redis_url = where
    client = Redis.from_url(redis_url)
    router = RedisUrlRouter(client, prefix=f"test:{uuid.uuid4().hex}:", **limits)
    try:
        yield Routes(router, client)
    finally:
        await router.aclose()
        await client.aclose()


@pytest.fixture(autouse=True)
def forget_the_servers() -> Iterator[None]:
    """Collect each test's servers after it.

    `complete_url(id)` tries every router a live server was installed with: a later test's
    call would reach this test's closed Redis client (and, collected before too, those of
    other modules' servers: install() puts a router beside every Redis or SQLite store).
    """
    gc.collect()
    yield
    gc.collect()


@pytest.fixture(params=["local", "sqlite", ON_REDIS])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def url_of(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    """Where the router keeps its routes: the redis-server's URL (started only when needed)
    for Redis, a new file for SQLite."""
    if kind == "sqlite":
        return str(tmp_path / "routes.sqlite3")
    return str(request.getfixturevalue("redis_url")) if kind == "redis" else None


def server_for(router: UrlRouter) -> Any:
    """A server whose ``connect`` asks for a URL and ``login`` requires one, via ``router``."""
    server: Any = install(MCPServer("routes"), url_router=router)

    @server.tool()
    async def connect(timeout: float = 600.0) -> str:  # noqa: ASYNC109  (the question's)
        try:
            answer = await ask_url("Sign in", "https://acme.example/login", timeout=timeout)
        except ElicitationTimeout:
            return "timeout"
        return answer.action

    @server.tool()
    async def login() -> str:
        await require_url("Sign in first", "https://acme.example/login")
        return "unreachable"

    return server


def answering(action: str, asked: list[str] | None = None) -> Answer:
    """A client's URL elicitation callback that answers ``action`` (and notes the ids)."""

    async def answer(context: Any, params: types.ElicitRequestURLParams) -> types.ElicitResult:
        if asked is not None:
            assert params.elicitation_id is not None
            asked.append(params.elicitation_id)
        return types.ElicitResult(action=action)  # type: ignore[arg-type]

    return answer


def client(server: Any, answer: Answer, told: list[str] | None = None, **options: Any) -> Client:
    """A 2025-11-25 client of ``server``; ``told`` collects the completions it is sent."""

    async def on_message(message: Any) -> None:
        if told is not None and isinstance(message, types.ElicitCompleteNotification):
            told.append(message.params.elicitation_id)

    return Client(
        in_memory(server),
        mode="legacy",
        elicitation_callback=answer,  # type: ignore[arg-type]
        message_handler=on_message,
        **options,
    )


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_or_cancelled_question_drops_its_route(
    kind: str, url_of: str | None, action: str
) -> None:
    async with routes(kind, url_of) as held:
        during: list[int] = []

        async def answer(context: Any, params: types.ElicitRequestURLParams) -> types.ElicitResult:
            during.append(await held.held())
            return types.ElicitResult(action=action)  # type: ignore[arg-type]

        async with client(server_for(held.router), answer) as user:
            assert text_of(await user.call_tool("connect", {})) == action
            assert await held.held() == 0  # dropped with the answer, the session still open
    assert during == [1]  # held while the question was open


async def test_a_timed_out_question_drops_its_route(kind: str, url_of: str | None) -> None:
    async with routes(kind, url_of) as held:

        async def away(context: Any, params: types.ElicitRequestURLParams) -> types.ElicitResult:
            await anyio.sleep_forever()  # until the server withdraws the question
            raise AssertionError("unreachable")

        async with client(server_for(held.router), away) as user:
            assert text_of(await user.call_tool("connect", {"timeout": 0.1})) == "timeout"
            assert await held.held() == 0


async def test_a_cancelled_call_drops_its_route(kind: str, url_of: str | None) -> None:
    async with routes(kind, url_of) as held:
        asked = anyio.Event()

        async def never(context: Any, params: types.ElicitRequestURLParams) -> types.ElicitResult:
            asked.set()
            await anyio.sleep_forever()
            raise AssertionError("unreachable")

        async with client(server_for(held.router), never) as user:
            async with anyio.create_task_group() as calls:
                calls.start_soon(user.call_tool, "connect", {})
                with anyio.fail_after(5):
                    await asked.wait()
                assert await held.held() == 1
                calls.cancel_scope.cancel()  # the client sends notifications/cancelled
            await held.settled(0)


async def test_session_end_drops_accepted_and_required_routes(
    kind: str, url_of: str | None
) -> None:
    async with routes(kind, url_of) as held:
        server = server_for(held.router)
        async with client(server, answering("accept")) as user:
            assert text_of(await user.call_tool("connect", {})) == "accept"
            with pytest.raises(MCPError) as required:
                await user.call_tool("login", {})
            assert required.value.error.code == -32042
            # The page finishes later (2025-11-25): both routes outlive their calls.
            assert await held.held() == 2
        await held.settled(0)


async def test_an_accepted_route_is_kept_the_questions_timeout_again(
    kind: str, url_of: str | None
) -> None:
    async with routes(kind, url_of) as held:
        asked: list[str] = []
        told: list[str] = []
        async with client(server_for(held.router), answering("accept", asked), told) as user:
            assert text_of(await user.call_tool("connect", {"timeout": 0.3})) == "accept"
            assert text_of(await user.call_tool("connect", {"timeout": 0.3})) == "accept"
            if isinstance(held.router, RedisUrlRouter):
                key = held.router._prefix + asked[1]  # pyright: ignore[reportPrivateUsage]
                ttl: int = await held._redis.pttl(key)  # type: ignore[union-attr]  # pyright: ignore[reportPrivateUsage]
                assert 0 < ttl <= 300  # not the question's 5.3 s, nor an hour more
            if isinstance(held.router, SqliteUrlRouter):
                with contextlib.closing(sqlite3.connect(held.router.path)) as db:
                    (until,) = db.execute(
                        "SELECT until FROM url_routes WHERE id = ?", (asked[1],)
                    ).fetchone()
                assert 0 < until - clock.now() <= 0.3  # the page's time, as in Redis
            assert await complete_url(asked[0], router=held.router) is True
            with FakeClock() as fake:  # the second page's time is up, by the router's clocks
                fake.jump(0.5)  # elicitkit's, which times the routes held in this process
                if held._redis is not None:  # pyright: ignore[reportPrivateUsage]
                    await elapse_on_redis(held._redis, 0.5)  # pyright: ignore[reportPrivateUsage]
                assert await held.held() == 0
                assert await complete_url(asked[1], router=held.router) is False
            await user.list_tools()  # the session has processed its inbox
        assert told == [asked[0]]


async def test_a_session_over_its_cap_loses_its_own_oldest_routes(
    kind: str, url_of: str | None
) -> None:
    async with routes(kind, url_of, max_per_session=3) as held:
        server = server_for(held.router)
        mine: list[str] = []
        theirs: list[str] = []
        async with (
            client(server, answering("accept", mine)) as greedy,
            client(server, answering("accept", theirs)) as other,
        ):
            await other.call_tool("connect", {})
            for _ in range(5):
                await greedy.call_tool("connect", {})
            assert await held.held() == 4
            done = [await complete_url(eid, router=held.router) for eid in mine + theirs]
    assert done == [False, False, True, True, True, True]


async def test_a_full_router_refuses_a_new_question_and_keeps_the_open_ones(
    kind: str, url_of: str | None
) -> None:
    async with routes(kind, url_of, max_routes=2) as held:
        server = server_for(held.router)
        first: list[str] = []
        second: list[str] = []
        third: list[str] = []
        async with (
            client(server, answering("accept", first)) as one,
            client(server, answering("accept", second)) as two,
            client(server, answering("accept", third)) as three,
        ):
            await one.call_tool("connect", {})
            await two.call_tool("connect", {})
            refused = await three.call_tool("connect", {})
            assert refused.is_error
            assert text_of(refused) == (
                "Error executing tool connect: The server already holds 2 open URL "
                "elicitations, the limit of its URL router (max_routes), so it cannot "
                "send the user to this page: the open ones are kept rather than dropped for "
                "this one. Try again once some are done, or give the router a larger "
                "max_routes."
            )
            assert third == []  # nothing was sent
            assert await complete_url(first[0], router=held.router) is True
            assert await complete_url(second[0], router=held.router) is True
            assert text_of(await three.call_tool("connect", {})) == "accept"  # room again


@pytest.mark.parametrize(
    "limits",
    [
        pytest.param({"max_routes": 0}, id="no-routes"),
        pytest.param({"max_per_session": True}, id="bool"),
    ],
)
def test_router_limits_must_be_whole_numbers(limits: dict[str, Any]) -> None:
    name, value = next(iter(limits.items()))
    with pytest.raises(ValueError) as raised:
        LocalUrlRouter(**limits)
    assert str(raised.value) == (
        f"A URL router needs {name} of at least 1 (a whole number), not {value!r}."
    )


FLOOD_SESSIONS = 4
FLOOD_CALLS = 100  # declined or cancelled, per session
FLOOD_ACCEPTED = 20  # accepted and never completed, per session (over the cap of 16)


async def test_a_flood_of_questions_cannot_push_out_another_users_route(
    kind: str, url_of: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    """The issue's fault: 10,000 declined ask_url calls evicted a victim's open route.

    Scaled down (a router of 200 routes, 480 questions) so it runs in seconds: one client
    declines or cancels 400 questions and leaves 80 accepted pages open over four sessions,
    which it closes. The victim's page then completes, the victim is told, and the router
    holds only the victim's route, in as little memory as before the flood.
    """
    # Each automatic decline is logged (a warning): pytest would keep the 480 records.
    caplog.set_level(logging.ERROR, logger="elicitkit")
    async with routes(kind, url_of, max_routes=200) as held:
        server = server_for(held.router)
        victim_ids: list[str] = []
        told: list[str] = []
        async with client(server, answering("accept", victim_ids), told) as victim:
            assert text_of(await victim.call_tool("connect", {})) == "accept"
            # Warm-up: one session of the flood, so what the SDK allocates once is counted
            # in the baseline, not as routes held.
            await flood(server, calls=2, accepted=2)
            await held.settled(1)
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                for _ in range(FLOOD_SESSIONS):
                    await flood(server, calls=FLOOD_CALLS, accepted=FLOOD_ACCEPTED)
                await held.settled(1)

                # A closed session's server task finishes in its own time: let every task
                # run until it waits (50 times at most), then look at what is still held.
                # Routes held would never be freed.
                for _ in range(50):
                    gc.collect()
                    grown = tracemalloc.get_traced_memory()[0] - before
                    if grown < 100_000:
                        break
                    await anyio.wait_all_tasks_blocked()
            finally:
                tracemalloc.stop()
            [victim_id] = victim_ids
            assert await complete_url(victim_id) is True
            await victim.list_tools()  # the victim's session has processed its inbox
            assert told == [victim_id]
            assert await held.held() == 0
    # 200 routes held (the old behaviour) took about 400 KB here; none is held now.
    assert grown < 100_000, f"{grown:,} bytes more after the flood"


async def flood(server: Any, *, calls: int, accepted: int) -> None:
    """One hostile session: ``calls`` declined or cancelled questions, ``accepted`` left open."""
    actions = iter((["decline", "cancel"] * calls)[:calls] + ["accept"] * accepted)

    async def answer(context: Any, params: types.ElicitRequestURLParams) -> types.ElicitResult:
        return types.ElicitResult(action=next(actions))  # type: ignore[arg-type]

    # Bounded in time per session (a scope around the whole flood would itself hold on to
    # every request's cancel scope until it exits, and count as growth).
    with anyio.fail_after(60):
        async with client(server, answer) as hostile:
            for _ in range(calls + accepted):
                await hostile.call_tool("connect", {})
