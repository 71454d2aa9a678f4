"""Sealed at rest: no answer, result or step value sits in a store in plaintext.

Every record `AtMostOnce` writes (a call's outcome, a durable step's value) is sealed with
the server's ``requestState`` key and bound to its entry before it reaches the store. A call
on 2026-07-28 whose answer carries a canary string is run to the end on a real SQLite file and
a real redis-server; the canary is then looked for in every byte the store holds (the SQLite
file, its WAL and shared-memory files; every Redis value). And a record written without the
key, or copied from another entry, is refused: nothing runs again, and the client is told.
"""

from __future__ import annotations

import dataclasses
import secrets
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import AESGCMRequestStateCodec
from redis.asyncio import Redis

import elicitkit
from elicitkit import ask, go_async, step
from elicitkit._replay.once import UNREADABLE_RECORD
from elicitkit._replay.sealed_tasks import UNREADABLE, SealedTaskStore
from elicitkit._replay.tasks import MemoryTaskStore, TaskRecord
from elicitkit.stores import (
    OutcomeStore,
    RedisStore,
    RedisTaskStore,
    SqliteStore,
    SqliteTaskStore,
    TaskStore,
)
from elicitkit.testing import FakeClock
from elicitkit.testing._task_wire import CreatedTask, TasksExtension, update_task
from tests.mrtr import accept, never_called, only_question, retry, text_of
from tests.redis_server import ON_REDIS
from tests.test_tasks import until

pytestmark = pytest.mark.anyio

CANARY = f"canary-{secrets.token_hex(8)}"


@dataclasses.dataclass
class Note:
    text: str


class Notebook:
    """A tool that asks a note, keeps it in a durable step, asks to confirm, then returns it."""

    def __init__(self, store: OutcomeStore) -> None:
        self.server = elicitkit.install(MCPServer("notebook"), store=store)
        self.kept: list[str] = []

        def keep(text: str) -> str:
            self.kept.append(text)
            return f"kept {text}"

        @self.server.tool()
        async def note(title: str) -> str:
            text = (await ask(Note, f"The note for {title}?")).unwrap().text
            kept = await step("keep", keep, text)  # round two: recorded in the store
            sure = (await ask(bool, "Done?")).unwrap()
            return f"{title}: {kept} ({sure})"


async def three_rounds(client: Client, title: str) -> tuple[Any, list[tuple[str, str]]]:
    """The call to its end: its result, and each later round's question key and state."""
    arguments = {"title": title}
    key, _, first = only_question(await retry(client, "note", arguments))
    second_round = ({key: accept(text=CANARY)}, first)
    then, _, second = only_question(await retry(client, "note", arguments, *second_round))
    final = await retry(client, "note", arguments, {then: accept(value=True)}, second)
    return final, [(key, first), (then, second)]


@pytest.fixture(params=["sqlite", ON_REDIS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[OutcomeStore]:
    if request.param == "sqlite":
        yield SqliteStore(tmp_path / "records.sqlite3")
        return
    client = Redis.from_url(request.getfixturevalue("redis_url"))
    await client.flushall()
    yield RedisStore(client)
    await client.aclose()


async def stored_bytes(store: OutcomeStore) -> bytes:
    """Every byte the store holds: its files, or every key and value in Redis."""
    if isinstance(store, SqliteStore):
        folder = store.path.parent
        return b"".join(path.read_bytes() for path in sorted(folder.glob("records.sqlite3*")))
    assert isinstance(store, RedisStore)
    redis: Any = store._redis  # pyright: ignore[reportPrivateUsage]
    found = [key async for key in redis.scan_iter()]
    return b"".join([*found, *[await _value(redis, key) for key in found]])


async def _value(redis: Any, key: bytes) -> bytes:
    """What a key holds, of any type the stores and Docket use (strings, sets, hashes...)."""
    kind = await redis.type(key)
    if kind == b"string":
        return await redis.get(key) or b""
    if kind == b"set":
        return b"".join(await redis.smembers(key))
    if kind == b"hash":  # Docket's records of a task's legs, among others
        return b"".join(b"".join(pair) for pair in (await redis.hgetall(key)).items())
    if kind == b"stream":  # Docket's queue of legs
        entries = await redis.xrange(key)
        return b"".join(
            b"".join(b"".join(pair) for pair in fields.items()) for _, fields in entries
        )
    if kind == b"list":
        return b"".join(await redis.lrange(key, 0, -1))
    assert kind == b"zset", f"{key!r} is a {kind!r}: read it here too"
    return b"".join(await redis.zrange(key, 0, -1))


async def test_a_canary_in_an_answer_and_a_result_never_reaches_the_store(
    store: OutcomeStore,
) -> None:
    notebook = Notebook(store)
    async with Client(notebook.server, elicitation_callback=never_called) as client:
        final, _ = await three_rounds(client, "ada")
    assert text_of(final) == f"ada: kept {CANARY} (True)"
    held = await stored_bytes(store)
    assert len(held) > 0
    assert CANARY.encode() not in held
    assert b"kept" not in held  # the step's value and the result, sealed too


def _entries(store: SqliteStore) -> dict[str, str]:
    with sqlite3.connect(store.path) as db:
        return dict(db.execute("SELECT id, value FROM entries WHERE kind = 'record'").fetchall())


async def test_a_record_written_without_the_key_is_refused_and_nothing_runs(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3")
    notebook = Notebook(store)
    async with Client(notebook.server, elicitation_callback=never_called) as client:
        final, [_, (key, second)] = await three_rounds(client, "ada")
        (dialogue,) = (entry for entry in _entries(store) if "/" not in entry)
        forged = '{"m":"tools/call","r":{"content":[{"type":"text","text":"forged"}]}}'
        await store.record(dialogue, forged, keep=60)  # someone with write access, no key
        again = await retry(client, "note", {"title": "ada"}, {key: accept(value=True)}, second)
    assert text_of(final) == f"ada: kept {CANARY} (True)"
    assert getattr(again, "is_error", False)
    assert text_of(again).startswith(UNREADABLE_RECORD.split(":", 1)[0])
    assert notebook.kept == [CANARY]


@pytest.mark.parametrize(
    "hostile",
    [
        pytest.param("A" * 8_000_000, id="8MB-of-base64"),
        pytest.param("\u00e9\U0001f600" * 2_000_000, id="8MB-of-unicode"),
        pytest.param("gAAAAA" + "=" * 8_000_000, id="8MB-of-padding"),
    ],
)
async def test_a_huge_hostile_record_is_refused_as_unreadable_and_nothing_runs(
    tmp_path: Path, hostile: str
) -> None:
    """Megabytes of the worst text in place of every record of a call (its outcome's and its
    step's): the resent final round, which reads the outcome's, is refused as not this
    server's (opening a record is linear in its size), and nothing runs again."""
    store = SqliteStore(tmp_path / "records.sqlite3")
    notebook = Notebook(store)
    async with Client(notebook.server, elicitation_callback=never_called) as client:
        final, [_, (key, second)] = await three_rounds(client, "ada")
        for entry in _entries(store):  # the call's record and its step's
            await store.record(entry, hostile, keep=60)
        again = await retry(client, "note", {"title": "ada"}, {key: accept(value=True)}, second)
    assert text_of(final) == f"ada: kept {CANARY} (True)"
    assert getattr(again, "is_error", False)
    assert text_of(again).startswith(UNREADABLE_RECORD.split(":", 1)[0])
    assert notebook.kept == [CANARY]


async def test_a_step_record_copied_from_another_call_is_refused(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3")
    notebook = Notebook(store)
    arguments = {"ada": {"title": "ada"}, "bob": {"title": "bob"}}
    async with Client(notebook.server, elicitation_callback=never_called) as client:
        second_rounds = {}
        for title in ("ada", "bob"):  # two calls, each left at its last question
            key, _, first = only_question(await retry(client, "note", arguments[title]))
            second_rounds[title] = ({key: accept(text=CANARY)}, first)
            await retry(client, "note", arguments[title], *second_rounds[title])
        steps = {entry: value for entry, value in _entries(store).items() if "/" in entry}
        (one, other) = steps
        await store.record(one, steps[other], keep=60)  # each call's step, the other's record
        await store.record(other, steps[one], keep=60)
        again = await retry(client, "note", arguments["bob"], *second_rounds["bob"])
    assert getattr(again, "is_error", False), again
    assert "its record does not open with this server's key" in text_of(again)
    assert notebook.kept == [CANARY, CANARY]  # neither step ran again


@dataclasses.dataclass
class Remark:
    remark: str


async def test_a_canary_in_a_task_never_reaches_the_task_store(
    store: OutcomeStore, tmp_path: Path
) -> None:
    """go_async(): the in-task question names the canary, the answer and the result carry it;
    none of it sits in the task records (SQLite's file or Redis), at any point."""
    tasks: TaskStore = (
        SqliteTaskStore(store.path)
        if isinstance(store, SqliteStore)
        else RedisTaskStore(cast("RedisStore", store).client)
    )
    server = elicitkit.install(MCPServer("sealed-tasks"), store=store, tasks=tasks)

    @server.tool()
    async def report(title: str) -> str:
        note = (await ask(Note, "The note?")).unwrap().text
        await go_async(f"Writing {note}")
        remark = (await ask(Remark, f"A remark on {note}?", key="remark")).unwrap().remark
        return f"{title}: {note}, {remark}"

    async with Client(
        server, elicitation_callback=never_called, extensions=[TasksExtension()]
    ) as client:
        key, _, state = only_question(
            await client.session.call_tool(
                "report", {"title": "q3"}, allow_input_required=True, allow_claimed=True
            )
        )
        created = await client.session.call_tool(
            "report",
            {"title": "q3"},
            input_responses={key: accept(text=CANARY)},
            request_state=state,
            allow_input_required=True,
            allow_claimed=True,
        )
        assert isinstance(created, CreatedTask), created
        asking = await until(client, created.task_id, "input_required")
        assert asking["inputRequests"]["remark"]["params"]["message"] == f"A remark on {CANARY}?"
        waiting = await stored_bytes(store)
        await update_task(
            client, created.task_id, {"remark": accept(remark=f"{CANARY}-r").model_dump()}
        )
        done = await until(client, created.task_id, "completed")
    assert done["result"]["content"][0]["text"] == f"q3: {CANARY}, {CANARY}-r"
    for held in (waiting, await stored_bytes(store)):
        assert len(held) > 0
        assert CANARY.encode() not in held


async def test_a_task_part_copied_to_another_task_does_not_open_there() -> None:
    codec = AESGCMRequestStateCodec([secrets.token_bytes(32)])
    inner = MemoryTaskStore()
    store = SealedTaskStore(inner, codec)
    with FakeClock() as clock:
        one, two = (
            TaskRecord(f"task-{n}", "working", clock.now(), clock.now(), None, 50) for n in (1, 2)
        )
        await store.create(one, dialogue=None)
        await store.create(two, dialogue=None)

        def answer(record: TaskRecord) -> bool:
            record.answers["remark"] = {"action": "accept", "content": {"remark": CANARY}}
            return True

        await store.change("task-1", answer)
        kept = await inner.get("task-1")
        assert kept is not None
        assert CANARY not in repr(kept)  # what the backend holds
        opened = await store.get("task-1")
        assert opened is not None
        assert opened.answers["remark"]["content"] == {"remark": CANARY}

        # Someone with write access to the backend copies task 1's answer into task 2.
        def copy_answer(record: TaskRecord) -> bool:
            record.answers["remark"] = kept.answers["remark"]
            return True

        assert await inner.change("task-2", copy_answer) is not None
        refused = await store.get("task-2")
    assert refused is not None
    assert refused.answers == {}
    assert refused.message == UNREADABLE
