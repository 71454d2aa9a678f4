"""URL-mode completions across processes: `RedisUrlRouter` on a real redis-server, and
`SqliteUrlRouter` on a real file.

The unit tests run two routers in one event loop (each is one "process": its own channel
and listener, or its own owner token and poller). The end-to-end tests run two real uvicorn
workers (tests/servers/url_worker.py, stateful streamable HTTP, configured by
``ELICITKIT_STORE`` only, or by nothing at all for the default file): the clients are on
worker A, the OAuth-style callback lands on worker B.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from redis.asyncio import Redis

from elicitkit.integrations._machine_records import default_database
from elicitkit.testing import FakeClock
from elicitkit.url import RedisUrlRouter, SqliteUrlRouter
from tests.loopback import free_port, listening
from tests.redis_clock import elapse_on_redis
from tests.redis_server import ON_REDIS
from tests.waiting import eventually

pytestmark = pytest.mark.anyio
WORKER = Path(__file__).parent / "servers" / "url_worker.py"
Shared = RedisUrlRouter | SqliteUrlRouter


@pytest.fixture(params=["sqlite", ON_REDIS])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the routers meet: a redis-server's URL, or an SQLite file's ``sqlite:///`` URL."""
    if request.param == "redis":
        return str(request.getfixturevalue("redis_url"))
    return f"sqlite:///{tmp_path}/records.sqlite3"


@asynccontextmanager
async def routers(where: str, count: int) -> AsyncIterator[list[Shared]]:
    """``count`` routers (one per simulated process) sharing a fresh key prefix or a file."""
    if where.startswith("sqlite:///"):
        in_file: list[Shared] = [SqliteUrlRouter(where[10:]) for _ in range(count)]
        try:
            yield in_file
        finally:
            for router in in_file:
                await router.aclose()
        return
    client = Redis.from_url(where)
    prefix = f"test:{uuid.uuid4().hex}:"
    made: list[Shared] = [RedisUrlRouter(client, prefix=prefix) for _ in range(count)]
    try:
        yield made
    finally:
        for router in made:
            await router.aclose()
        await client.aclose()


class Session:
    """A client session as a router sees it: ``end()`` runs what was hooked on its end."""

    def __init__(self) -> None:
        self.hooks: dict[object, Callable[[], Awaitable[None]]] = {}

    def at_end(self, key: object, callback: Callable[[], Awaitable[None]]) -> None:
        self.hooks.setdefault(key, callback)

    async def end(self) -> None:
        for callback in self.hooks.values():
            await callback()


class Counter:
    """A notifier that counts how often it was called."""

    def __init__(self) -> None:
        self.calls = 0
        self.called = asyncio.Event()

    async def __call__(self) -> None:
        self.calls += 1
        self.called.set()


async def test_completing_an_unknown_id_returns_false(where: str) -> None:
    async with routers(where, 1) as [router]:
        assert await router.complete("never-registered") is False


@pytest.mark.parametrize("place", ["other-process", "same-process"])
async def test_a_double_completion_is_delivered_once(where: str, place: str) -> None:
    async with routers(where, 2) as [owner, other]:
        notify = Counter()
        await owner.register("eid-1", notify, keep=60, session=Session())
        caller = other if place == "other-process" else owner
        first, second = await asyncio.gather(caller.complete("eid-1"), other.complete("eid-1"))
        with anyio.fail_after(5):
            await notify.called.wait()
            # A later completion through the same channel arrives after any second (wrong)
            # delivery would have: Redis delivers a subscriber's messages in order, and the
            # SQLite poller takes its queue in order.
            marker = Counter()
            await owner.register("eid-marker", marker, keep=60, session=Session())
            assert await other.complete("eid-marker") is True
            await marker.called.wait()
    assert sorted([first, second]) == [False, True]
    assert notify.calls == 1


async def test_an_expired_id_is_not_completed(where: str) -> None:
    async with routers(where, 2) as [owner, other]:
        notify = Counter()
        await owner.register("eid-2", notify, keep=0.05, session=Session())
        with FakeClock() as fake:  # past its time by both clocks: elicitkit's and Redis's
            fake.jump(0.06)
            if isinstance(owner, RedisUrlRouter):
                clock = Redis.from_url(where)
                try:
                    await elapse_on_redis(clock, 0.06)
                finally:
                    await clock.aclose()
            assert await other.complete("eid-2") is False
    assert notify.calls == 0


async def test_an_id_whose_process_has_gone_is_not_completed(where: str) -> None:
    async with routers(where, 2) as [owner, other]:
        notify = Counter()
        await owner.register("eid-3", notify, keep=60, session=Session())
        await owner.aclose()  # the process stops: its listener and routes go with it
        assert await other.complete("eid-3") is False
    assert notify.calls == 0


async def test_the_listener_is_started_once_and_restarted_after_close(where: str) -> None:
    async with routers(where, 2) as [owner, other]:
        notify = Counter()
        assert await owner.complete("eid-4") is False  # complete() alone starts no listener
        await owner.register("eid-4", Counter(), keep=60, session=Session())
        if isinstance(owner, SqliteUrlRouter):
            poller = owner._poller  # pyright: ignore[reportPrivateUsage]
            assert poller is not None
            await owner.register("eid-5", Counter(), keep=60, session=Session())
            assert owner._poller is poller  # pyright: ignore[reportPrivateUsage]
            assert other._poller is None  # pyright: ignore[reportPrivateUsage]
        else:
            await owner.register("eid-5", Counter(), keep=60, session=Session())
            channels: Any = await owner._redis.pubsub_channels(f"{owner._prefix}*")  # pyright: ignore[reportPrivateUsage]
            assert len(channels) == 1  # one channel for the owner; the other never listened
        await owner.aclose()
        await owner.register("eid-6", notify, keep=60, session=Session())
        assert await other.complete("eid-6") is True
        with anyio.fail_after(5):
            await notify.called.wait()


@pytest.fixture(params=["default", ON_REDIS])
def fleet(request: pytest.FixtureRequest, starts_processes: None) -> dict[str, str]:
    """What the workers' environment says: nothing (the default file), or a Redis URL."""
    if request.param == "redis":
        return {"ELICITKIT_STORE": str(request.getfixturevalue("redis_url"))}
    return {}  # tests/conftest.py gave the session its own XDG_STATE_HOME: the file is there


@contextmanager
def worker(fleet: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """One url_worker.py process; yields its base URL and the process."""
    port = free_port()
    env = {**os.environ, **fleet}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).parent.parent), env.get("PYTHONPATH", "")]
    )
    with listening([sys.executable, str(WORKER), str(port)], port, env=env) as process:
        yield f"http://127.0.0.1:{port}", process


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as page:  # noqa: S310  (loopback only)
        return page.read().decode()


async def test_a_callback_on_another_worker_notifies_only_the_initiating_client(
    fleet: dict[str, str],
) -> None:
    with worker(fleet) as (a, _), worker(fleet) as (b, _):
        seen: list[types.ElicitRequestURLParams] = []
        completed: dict[str, list[str]] = {"asker": [], "bystander": []}
        done = anyio.Event()

        def listener(name: str) -> Any:
            async def on_message(message: Any) -> None:
                if isinstance(message, types.ElicitCompleteNotification):
                    completed[name].append(message.params.elicitation_id)
                    done.set()

            return on_message

        async def browser(context: Any, params: Any) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            seen.append(params)
            # The user's browser follows the page to the callback, on worker B.
            assert await anyio.to_thread.run_sync(_get, params.url) == "signed in"
            return types.ElicitResult(action="accept")

        async def never(context: Any, params: Any) -> types.ElicitResult:
            raise AssertionError("the bystander is never asked")

        async with (
            Client(
                f"{a}/mcp",
                mode="legacy",
                elicitation_callback=browser,
                message_handler=listener("asker"),
            ) as asker,
            Client(
                f"{a}/mcp",
                mode="legacy",
                elicitation_callback=never,
                message_handler=listener("bystander"),
            ) as bystander,
        ):
            assert asker.protocol_version == bystander.protocol_version == "2025-11-25"
            with anyio.fail_after(20):
                result = await asker.call_tool("connect", {"callback": f"{b}/callback"})
                await done.wait()
            await bystander.list_tools()  # the bystander's session has processed its inbox
            [params] = seen
            eid = params.elicitation_id
            assert eid is not None
            # At most once, wherever the callback lands again; an unknown id is refused.
            assert await anyio.to_thread.run_sync(_get, f"{b}/callback?state={eid}") == "unknown"
            assert await anyio.to_thread.run_sync(_get, f"{a}/callback?state={eid}") == "unknown"
            assert await anyio.to_thread.run_sync(_get, f"{b}/callback?state=nope") == "unknown"
    assert isinstance(result.content[0], types.TextContent)
    assert result.content[0].text == "accept:True"
    assert params.url == f"{b}/callback?state={eid}"
    assert completed == {"asker": [eid], "bystander": []}


async def test_a_page_finished_after_the_call_is_told_and_a_closed_session_is_not(
    fleet: dict[str, str],
) -> None:
    """2025-11-25 over real HTTP: the completion may come after ask_url returned accept.

    The user agrees and the call ends; the page's callback lands on worker B later, and
    the client (on worker A) is told. A second page, whose client closed its session first,
    completes nowhere: the session's end dropped the route, and its key in Redis or its row
    in the file.
    """
    with worker(fleet) as (a, _), worker(fleet) as (b, _):
        pages: list[str] = []
        told: list[str] = []
        arrived = anyio.Event()

        async def agree(context: Any, params: Any) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            pages.append(params.url)  # opened later, after the call has returned
            return types.ElicitResult(action="accept")

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ElicitCompleteNotification):
                told.append(message.params.elicitation_id)
                arrived.set()

        def session() -> Client:
            return Client(
                f"{a}/mcp", mode="legacy", elicitation_callback=agree, message_handler=on_message
            )

        callback = {"callback": f"{b}/callback"}
        async with session() as stays:
            with anyio.fail_after(20):
                assert text_of(await stays.call_tool("connect", callback)) == "accept:True"
                assert await anyio.to_thread.run_sync(_get, pages[0]) == "signed in"
                await arrived.wait()
        async with session() as leaves:
            with anyio.fail_after(20):
                assert text_of(await leaves.call_tool("connect", callback)) == "accept:True"
        await eventually(  # worker A ends the route in its own time
            lambda: _route_gone(fleet, pages[1].rsplit("=", 1)[1]),
            within=10,
            every=0.05,
            what="the second page's route gone",
        )
        assert await anyio.to_thread.run_sync(_get, pages[1]) == "unknown"
    assert told == [pages[0].rsplit("=", 1)[1]]


async def test_a_callback_for_a_killed_worker_is_refused(fleet: dict[str, str]) -> None:
    """The worker that holds the session is killed: its routes went with it, and the page's
    callback on another worker answers that it reached nobody (a dead process's id, whose
    route has not expired, is not counted as delivered)."""
    with worker(fleet) as (b, _):
        pages: list[str] = []

        async def agree(context: Any, params: Any) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            pages.append(params.url)
            return types.ElicitResult(action="accept")

        with worker(fleet) as (a, process):
            user = Client(f"{a}/mcp", mode="legacy", elicitation_callback=agree)
            await user.__aenter__()
            try:
                with anyio.fail_after(20):
                    callback = {"callback": f"{b}/callback"}
                    assert text_of(await user.call_tool("connect", callback)) == "accept:True"
                process.send_signal(signal.SIGKILL)  # the session is still open
                process.wait()
                assert await anyio.to_thread.run_sync(_get, pages[0]) == "unknown"
            finally:
                # The client cannot end its session with a server that is gone: whatever
                # it says about that is not what this test is about.
                with contextlib.suppress(Exception):
                    await user.__aexit__(None, None, None)


async def _route_gone(fleet: dict[str, str], eid: str) -> bool:
    if "ELICITKIT_STORE" in fleet:
        redis = Redis.from_url(fleet["ELICITKIT_STORE"])
        try:
            return not await redis.exists(f"elicitkit:url:{eid}")
        finally:
            await redis.aclose()
    with contextlib.closing(sqlite3.connect(default_database("url-worker"))) as db:
        return db.execute("SELECT 1 FROM url_routes WHERE id = ?", (eid,)).fetchone() is None


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text
