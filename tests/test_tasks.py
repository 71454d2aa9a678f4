"""``go_async()`` and the Tasks extension, driven by the real SDK client with raw ``tasks/*``.

One tool serves every test: it asks a name over 2026-07-28 replay rounds, goes async, works,
asks inside the task whether to go on, and reports. The client drives each step by hand
(``tasks/get``, ``tasks/update``, ``tasks/cancel``), in memory on both server SDKs and over
streamable HTTP, and on 2025-11-25 the same tool runs synchronously.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

import anyio
import mcp_types as types
import pytest
from annotated_types import Ge
from fastmcp import FastMCP
from fastmcp.server.extensions import ServerExtension
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from elicitkit import ask, go_async, install
from elicitkit._replay.tasks import MemoryTaskStore, TaskRecord, TaskStore
from elicitkit._runtime.task_engine import MAX_RESUMES, RESUMED_TOO_OFTEN, TaskEngine
from elicitkit._runtime.timeouts import timed_out
from elicitkit.errors import ElicitationTimeout
from elicitkit.testing import FakeClock
from elicitkit.testing._task_wire import (
    CreatedTask,
    TasksExtension,
    cancel_task,
    get_task,
    task_request,
    update_task,
)
from elicitkit.url import ask_url
from tests.loopback import serving
from tests.mrtr import accept, never_called, only_question, text_of
from tests.sdks import in_memory, new_server
from tests.waiting import eventually

pytestmark = pytest.mark.anyio


@dataclass
class Name:
    name: str


@dataclass
class GoOn:
    copies: Annotated[int, Ge(1)]


@dataclass
class Counts:
    """What the tool's body did, counted by the test."""

    after_go_async: int = 0
    finished: int = 0
    cancelled: int = 0
    # Set when the body ends, however it ends (made in the test's event loop).
    ended: anyio.Event = field(default_factory=anyio.Event)
    # Set when a leg of the task gets past go_async() (the task's work runs on a worker).
    working: anyio.Event = field(default_factory=anyio.Event)


def build(
    sdk: str,
    counts: Counts,
    *,
    long_work: bool = False,
    required: bool = False,
    tasks: TaskStore | None = None,
    server: Any = None,
) -> Any:
    if server is not None:  # one built with settings of its own (auth, say)
        install(server)
    elif tasks is None:
        server = new_server(sdk, "tasks")
    else:
        server = install(MCPServer("tasks") if sdk == "mcp" else FastMCP("tasks"), tasks=tasks)

    @server.tool()
    async def render(title: str) -> str:
        """Ask a name, go async, work, ask how many copies, report."""
        who = await ask(Name, "Who is the report for?", key="who")
        name = who.content.name if who.content else "nobody"
        went = await go_async("Rendering the report", required=required)
        counts.after_go_async += 1  # once per leg of the task: it runs the tool again
        counts.working.set()
        try:
            if long_work:  # until the client cancels the task
                await anyio.sleep_forever()
            copies = await ask(GoOn, f"Rendered {title}. How many copies?", key="copies")
        except anyio.get_cancelled_exc_class():
            counts.cancelled += 1
            raise
        finally:
            counts.ended.set()
        counts.finished += 1
        number = copies.content.copies if copies.content else 0
        return f"{title} for {name}: {number} copies ({'task' if went else 'in the call'})."

    return server


@asynccontextmanager
async def tasks_client(target: Any) -> AsyncIterator[Client]:
    async with Client(
        target, elicitation_callback=never_called, extensions=[TasksExtension()]
    ) as client:
        yield client


async def call(client: Client, **extra: Any) -> Any:
    return await client.session.call_tool(
        "render",
        {"title": "Q3"},
        allow_input_required=True,
        allow_claimed=True,
        **extra,
    )


async def until(
    client: Client, task_id: str, *statuses: str, within: float = 5, every: float = 0.02
) -> dict[str, Any]:
    """Poll the task every ``every`` s until its status is one of ``statuses`` (``within`` s)."""

    async def reached() -> dict[str, Any] | None:
        task = await get_task(client, task_id)
        return task if task["status"] in statuses else None

    return await eventually(reached, within=within, every=every, what=f"task in {statuses}")


async def start_task(client: Client) -> tuple[CreatedTask, Any]:
    """Answer the name over a replay round; return the task and the final round's params."""
    key, _, state = only_question(await call(client))
    final = {"input_responses": {key: accept(name="Ada")}, "request_state": state}
    created = await call(client, **final)
    assert isinstance(created, CreatedTask), created
    return created, final


async def test_ask_go_async_work_ask_completed(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    async with tasks_client(in_memory(server)) as client:
        created, _ = await start_task(client)
        assert created.status == "working"
        assert created.status_message == "Rendering the report"
        assert "requestState" not in created.model_dump(by_alias=True)
        asking = await until(client, created.task_id, "input_required")
        assert list(asking["inputRequests"]) == ["copies"]
        request = asking["inputRequests"]["copies"]
        assert request["method"] == "elicitation/create"
        assert request["params"]["message"] == "Rendered Q3. How many copies?"
        assert request["params"]["requestedSchema"]["required"] == ["copies"]
        ack = await update_task(client, created.task_id, {"copies": accept(copies=3).model_dump()})
        assert ack == {"resultType": "complete"}
        done = await until(client, created.task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Q3 for Ada: 3 copies (task)."
    assert "inputRequests" not in done
    # Two legs: the first asks how many copies, the second finishes with the answer.
    assert (counts.after_go_async, counts.finished) == (2, 1)


async def test_a_resent_final_round_returns_the_same_task(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    async with tasks_client(in_memory(server)) as client:
        created, final = await start_task(client)
        again = await call(client, **final)
        assert isinstance(again, CreatedTask)
        assert again.task_id == created.task_id
        await until(client, created.task_id, "input_required")
        await update_task(client, created.task_id, {"copies": accept(copies=1).model_dump()})
        await until(client, created.task_id, "completed")
        late = await call(client, **final)
    assert isinstance(late, CreatedTask)
    assert late.task_id == created.task_id
    assert late.status == "completed"  # as tasks/get says, not as it was created
    assert counts.after_go_async == 2  # the task's two legs; the resent rounds ran nothing


async def test_cancel_during_the_long_work(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts, long_work=True)
    async with tasks_client(in_memory(server)) as client:
        created, _ = await start_task(client)
        await counts.working.wait()  # a leg runs the long work
        assert await cancel_task(client, created.task_id) == {"resultType": "complete"}
        ended = await until(client, created.task_id, "cancelled", "completed", "failed")
        # Idempotent on a terminal task: the same empty acknowledgement.
        assert await cancel_task(client, created.task_id) == {"resultType": "complete"}
    assert ended["status"] == "cancelled"
    assert (counts.cancelled, counts.finished) == (1, 0)


async def test_cancel_during_an_in_task_question(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    async with tasks_client(in_memory(server)) as client:
        created, _ = await start_task(client)
        await until(client, created.task_id, "input_required")
        await cancel_task(client, created.task_id)
        ended = await until(client, created.task_id, "cancelled")
        # The withdrawn question takes no answer, and the task stays cancelled.
        await update_task(client, created.task_id, {"copies": accept(copies=2).model_dump()})
        assert (await get_task(client, created.task_id))["status"] == "cancelled"
    assert "inputRequests" not in ended
    # While the task waited for the answer no worker held it: there was no body to cancel.
    assert (counts.cancelled, counts.finished) == (0, 0)


async def test_an_invalid_in_task_answer_is_asked_again_per_field(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    async with tasks_client(in_memory(server)) as client:
        created, _ = await start_task(client)
        await until(client, created.task_id, "input_required")
        await update_task(client, created.task_id, {"copies": accept(copies=0).model_dump()})
        again = await until(client, created.task_id, "input_required")
        while "copies" in again["inputRequests"]:  # the answer is being decoded
            again = await until(client, created.task_id, "input_required")
        assert list(again["inputRequests"]) == ["copies~1"]
        message = again["inputRequests"]["copies~1"]["params"]["message"]
        assert message == (
            "Rendered Q3. How many copies?\n\nPlease correct your answer. Copies: Must be at "
            "least 1."
        )
        # The answered key is not outstanding any more: an answer to it is ignored.
        await update_task(client, created.task_id, {"copies": accept(copies=5).model_dump()})
        await update_task(client, created.task_id, {"copies~1": accept(copies=2).model_dump()})
        done = await until(client, created.task_id, "completed")
    assert done["result"]["content"][0]["text"] == "Q3 for Ada: 2 copies (task)."


async def test_on_2025_11_25_the_same_tool_runs_in_the_call(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    answers = iter([{"name": "Ada"}, {"copies": 3}])

    async def user(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=next(answers))

    async with Client(in_memory(server), mode="legacy", elicitation_callback=user) as client:
        result = await client.call_tool("render", {"title": "Q3"})
    assert text_of(result) == "Q3 for Ada: 3 copies (in the call)."
    assert counts.after_go_async == 1


async def test_without_the_extension_the_tool_goes_on_over_replay_rounds(sdk: str) -> None:
    counts = Counts()
    server = build(sdk, counts)
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        first = await client.session.call_tool("render", {"title": "Q3"}, allow_input_required=True)
        key, _, state = only_question(first)
        second = await client.session.call_tool(
            "render",
            {"title": "Q3"},
            input_responses={key: accept(name="Ada")},
            request_state=state,
            allow_input_required=True,
        )
        key, _, state = only_question(second)
        assert key == "copies"
        third = await client.session.call_tool(
            "render",
            {"title": "Q3"},
            input_responses={key: accept(copies=4)},
            request_state=state,
            allow_input_required=True,
        )
    assert text_of(third) == "Q3 for Ada: 4 copies (in the call)."


async def test_required_refuses_a_client_without_the_extension(sdk: str) -> None:
    server = build(sdk, Counts(), required=True)
    async with Client(in_memory(server), elicitation_callback=never_called) as client:
        key, _, state = only_question(
            await client.session.call_tool("render", {"title": "Q3"}, allow_input_required=True)
        )
        with pytest.raises(MCPError) as refused:
            await client.session.call_tool(
                "render",
                {"title": "Q3"},
                input_responses={key: accept(name="Ada")},
                request_state=state,
                allow_input_required=True,
            )
    assert refused.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert refused.value.error.data == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }
    assert refused.value.error.message == (
        "The tool 'render' runs only as a task, and this client cannot follow a task (it did "
        "not declare the io.modelcontextprotocol/tasks extension on this request), so it was "
        "not run on. Call it from a client that declares the io.modelcontextprotocol/tasks "
        "extension (MCP 2026-07-28)."
    )


async def test_server_discover_advertises_the_extension() -> None:
    server = build("mcp", Counts())
    async with tasks_client(in_memory(server)) as client:
        discovered = await client.session.discover()
    assert discovered.capabilities.extensions is not None
    assert discovered.capabilities.extensions["io.modelcontextprotocol/tasks"] == {}


async def test_task_requests_without_the_extension_get_32021() -> None:
    server = build("mcp", Counts())
    async with Client(in_memory(server)) as client:
        for method in ("tasks/get", "tasks/update", "tasks/cancel"):
            with pytest.raises(MCPError) as refused:
                await task_request(client, method, "whatever", input_responses={})
            assert refused.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
            assert refused.value.error.message == (
                f"{method} is part of the io.modelcontextprotocol/tasks extension, which the "
                "client did not declare on this request. Declare the extension in the "
                "request's client capabilities."
            )


@pytest.mark.parametrize(
    ("method", "task_id", "params", "message"),
    [
        pytest.param(
            "tasks/get",
            "no-such-task",
            {},
            "tasks/get failed: task not found (it never existed, has expired, was lost by "
            "the server's task store, or belongs to another caller).",
            id="unknown",
        ),
        pytest.param(
            "tasks/cancel",
            "x" * 10_000,
            {},
            "tasks/cancel needs params.taskId: the id of a task, a string.",
            id="huge-id",
        ),
        pytest.param(
            "tasks/update",
            "no-such-task",
            {"input_responses": None},
            "tasks/update needs params.inputResponses: an object of at most 256 answers, "
            "keyed like the task's inputRequests.",
            id="no-responses",
        ),
    ],
)
async def test_hostile_task_requests_are_refused(
    method: str, task_id: str, params: dict[str, Any], message: str
) -> None:
    server = build("mcp", Counts())
    async with tasks_client(in_memory(server)) as client:
        with pytest.raises(MCPError) as refused:
            await task_request(client, method, task_id, **params)
    assert refused.value.error.code == types.INVALID_PARAMS
    assert refused.value.error.message == message


async def test_answers_that_are_not_objects_are_ignored() -> None:
    server = build("mcp", Counts())
    async with tasks_client(in_memory(server)) as client:
        created, _ = await start_task(client)
        await until(client, created.task_id, "input_required")
        await update_task(client, created.task_id, {"copies": "three", "other": {"x": 1}})
        still = await get_task(client, created.task_id)
        assert list(still["inputRequests"]) == ["copies"]
        await cancel_task(client, created.task_id)


async def test_over_http_with_the_routing_header() -> None:
    counts = Counts()
    server = build("mcp", counts)
    async with (
        serving(server.streamable_http_app()) as base,
        tasks_client(f"{base}/mcp") as client,
    ):
        created, _ = await start_task(client)
        await until(client, created.task_id, "input_required")
        await update_task(client, created.task_id, {"copies": accept(copies=2).model_dump()})
        done = await until(client, created.task_id, "completed")
        with pytest.raises(MCPError) as mismatched:
            await client.session.send_request(_misrouted(created.task_id), _raw_result())
    assert done["result"]["content"][0]["text"] == "Q3 for Ada: 2 copies (task)."
    assert mismatched.value.error.code == types.HEADER_MISMATCH


def _misrouted(task_id: str) -> Any:
    """A ``tasks/get`` whose ``Mcp-Name`` header names another task."""
    from elicitkit.testing._task_wire import _TaskParams, _TaskRequest  # noqa: PLC0415

    class Misrouted(_TaskRequest):
        name_param = "decoy"

    return Misrouted(method="tasks/get", params=_TaskParams(task_id=task_id, decoy="other"))


def _raw_result() -> Any:
    from elicitkit.testing._task_wire import _Raw  # noqa: PLC0415

    return _Raw


async def new_task(
    engine: TaskEngine, *, dialogue: str | None = None, principal: str | None = None
) -> TaskRecord:
    """A task as go_async() creates it, its first leg queued."""
    return await engine.create(
        dialogue=dialogue,
        principal=principal,
        message=None,
        call={"name": "render", "arguments": {}},
        state="",
    )


async def test_a_leg_whose_worker_stopped_renewing_is_resumed_by_another(
    elicit_clock: FakeClock,
) -> None:
    engine = TaskEngine(MemoryTaskStore(), lease=10)
    record = await new_task(engine)
    assert await engine.claim(record.task_id, 1, "first") is not None
    elicit_clock.jump(9.9)
    assert await engine.claim(record.task_id, 1, "second") is None  # still held
    found = await engine.get(record.task_id, None)
    assert found is not None
    assert not found.leg_lost
    elicit_clock.jump(0.2)  # nobody renewed it: its worker "died"
    found = await engine.get(record.task_id, None)
    assert found is not None
    assert (found.status, found.leg_lost) == ("working", True)  # not failed: resumable
    resumed = await engine.claim(record.task_id, 1, "second")
    assert resumed is not None
    assert (resumed.runner, resumed.resumes, resumed.leg_lost) == ("second", 1, False)
    # The first worker, back from the dead, records nothing: the leg is not its own now.
    assert not await engine.finish(record.task_id, "first", result={"content": []})
    assert await engine.finish(record.task_id, "second", result={"content": []})
    done = await engine.get(record.task_id, None)
    assert done is not None
    assert done.status == "completed"


async def test_a_leg_that_kills_its_worker_each_time_fails_the_task(
    elicit_clock: FakeClock,
) -> None:
    engine = TaskEngine(MemoryTaskStore(), lease=10)
    record = await new_task(engine)
    for worker in range(MAX_RESUMES + 1):
        assert await engine.claim(record.task_id, 1, f"w{worker}") is not None
        elicit_clock.jump(10.1)
        found = await engine.get(record.task_id, None)
        assert found is not None
        assert found.leg_lost
    assert await engine.claim(record.task_id, 1, "last") is None
    failed = await engine.get(record.task_id, None)
    assert failed is not None
    assert failed.status == "failed"
    assert failed.error == {
        "code": -32603,
        "message": RESUMED_TOO_OFTEN.format(times=MAX_RESUMES + 1),
    }


async def test_a_queued_leg_its_queue_lost_is_queued_again(elicit_clock: FakeClock) -> None:
    engine = TaskEngine(MemoryTaskStore(), lease=10)
    record = await new_task(engine)  # queued, never claimed: its process died
    elicit_clock.jump(10.1)
    found = await engine.get(record.task_id, None)
    assert found is not None
    assert found.leg_lost


async def test_a_task_waiting_for_an_answer_holds_no_lease(elicit_clock: FakeClock) -> None:
    engine = TaskEngine(MemoryTaskStore(), lease=10)
    record = await new_task(engine)
    assert await engine.claim(record.task_id, 1, "w") is not None
    question = {"method": "elicitation/create", "params": {"message": "How many?"}}
    assert await engine.wait_for_answers(record.task_id, "w", {"n": question}, "state", {})
    elicit_clock.jump(3000)  # a person thinking for fifty minutes
    waiting = await engine.get(record.task_id, None)
    assert waiting is not None
    assert (waiting.wire_status, waiting.leg_lost, waiting.leg) == ("input_required", False, 2)
    answered, completed = await engine.answer(record.task_id, None, {"n": {"action": "accept"}})
    assert completed
    assert answered is not None
    assert answered.wants_leg
    assert await engine.claim(record.task_id, 2, "w2") is not None


async def test_a_task_is_forgotten_after_its_ttl(elicit_clock: FakeClock) -> None:
    engine = TaskEngine(MemoryTaskStore(), ttl=60)
    record = await new_task(engine)
    elicit_clock.jump(59.9)
    assert await engine.get(record.task_id, None) is not None
    elicit_clock.jump(0.2)
    assert await engine.get(record.task_id, None) is None


async def test_a_task_is_its_callers_alone() -> None:
    engine = TaskEngine(MemoryTaskStore())
    record = await new_task(engine, principal="alice")
    assert await engine.get(record.task_id, "alice") is not None
    assert await engine.get(record.task_id, "mallory") is None
    assert await engine.get(record.task_id, None) is None
    assert await engine.cancel(record.task_id, "mallory") is None


async def test_one_dialogue_has_one_task() -> None:
    engine = TaskEngine(MemoryTaskStore())
    one = await new_task(engine, dialogue="d1")
    two = await new_task(engine, dialogue="d1")
    assert one.task_id == two.task_id


class _OtherTasks(ServerExtension):
    """Stands in for fastmcp-tasks' TasksExtension (which pins another fastmcp)."""

    identifier = "io.modelcontextprotocol/tasks"


_TWO_TASKS = (
    "Cannot use elicitkit on the FastMCP server 'both' together with another implementation "
    "of the io.modelcontextprotocol/tasks extension (tests.test_tasks._OtherTasks, "
    "registered with add_extension(); fastmcp-tasks' TasksExtension is one): both serve "
    "tasks/get, tasks/update and tasks/cancel, and a client's task requests would reach only "
    "elicitkit. Drop that extension and start tasks with elicitkit's go_async() in the "
    "tools, or do not install elicitkit on this server."
)


def test_fastmcp_with_another_tasks_extension_is_refused_at_install() -> None:
    server = FastMCP("both")
    server.add_extension(_OtherTasks())
    with pytest.raises(TypeError) as refused:
        install(server)
    assert str(refused.value) == _TWO_TASKS


async def test_fastmcp_with_another_tasks_extension_added_later_refuses_each_call() -> None:
    server = new_server("fastmcp", "both")

    @server.tool()
    async def hello() -> str:
        return "hello"

    server.add_extension(_OtherTasks())
    async with Client(in_memory(server)) as client:
        result = await client.call_tool("hello", {})
    assert result.is_error
    assert text_of(result) == _TWO_TASKS


async def test_two_go_async_at_once_make_one_task() -> None:
    store = MemoryTaskStore()
    server = install(MCPServer("twice"), tasks=store)
    went: list[bool] = []

    @server.tool()
    async def both() -> str:
        async def one() -> None:
            went.append(await go_async())

        async with anyio.create_task_group() as group:
            group.start_soon(one)
            group.start_soon(one)
        return "done"

    async with tasks_client(in_memory(server)) as client:
        created = await client.session.call_tool("both", {}, allow_claimed=True)
        assert isinstance(created, CreatedTask)
        done = await until(client, created.task_id, "completed")
    assert done["result"]["content"][0]["text"] == "done"
    assert went == [True, True]
    assert len(store) == 1


async def test_a_url_question_inside_a_task_goes_out_through_the_task(sdk: str) -> None:
    server = new_server(sdk, "urls")

    @server.tool()
    async def pay() -> str:
        await go_async()
        opened = await ask_url("Pay here", "https://pay.example/checkout")
        return f"paid: {opened.action}"

    async with tasks_client(in_memory(server)) as client:
        created = await client.session.call_tool("pay", {}, allow_claimed=True)
        assert isinstance(created, CreatedTask)
        asking = await until(client, created.task_id, "input_required")
        ((key, request),) = asking["inputRequests"].items()
        assert request["method"] == "elicitation/create"
        assert request["params"]["mode"] == "url"
        assert request["params"]["url"] == "https://pay.example/checkout"
        assert request["params"]["message"] == "Pay here"
        await update_task(client, created.task_id, {key: {"action": "accept"}})
        done = await until(client, created.task_id, "completed")
    assert done["result"]["content"][0]["text"] == "paid: accept"


async def test_an_unanswered_in_task_question_times_out_and_is_withdrawn() -> None:
    server = new_server("mcp", "timeouts")

    @server.tool()
    async def wait_for_it() -> str:
        await go_async()
        try:
            await ask(GoOn, "How many?", key="how_many", timeout=0.3)
        except ElicitationTimeout as late:
            return str(late)
        return "answered"

    async with tasks_client(in_memory(server)) as client:
        created = await client.session.call_tool("wait_for_it", {}, allow_claimed=True)
        assert isinstance(created, CreatedTask)
        asking = await until(client, created.task_id, "input_required")
        assert list(asking["inputRequests"]) == ["how_many"]
        done = await until(client, created.task_id, "completed")
        # Too late: the question was withdrawn, its key is not outstanding any more.
        await update_task(client, created.task_id, {"how_many": accept(copies=1).model_dump()})
    assert done["result"]["content"][0]["text"] == timed_out(0.3)
    assert "inputRequests" not in done


def _failing(sdk: str) -> Any:
    """A server whose ``job`` goes async, then fails as ``how`` says."""
    server = new_server(sdk, "failing")

    @server.tool()
    async def job(how: str) -> str:
        """Go async, then fail: a JSON-RPC error, or an exception of the tool's own."""
        await go_async("Running the job")
        if how == "protocol":
            raise MCPError(code=-32001, message="The job's backend is unavailable.")
        raise ValueError("no rows to process")

    return server


async def _job(client: Client, how: str) -> dict[str, Any]:
    created = await client.session.call_tool(
        "job", {"how": how}, allow_input_required=True, allow_claimed=True
    )
    assert isinstance(created, CreatedTask), created
    return await until(client, created.task_id, "completed", "failed", "cancelled")


async def test_a_protocol_error_in_a_task_ends_it_failed_with_that_error(sdk: str) -> None:
    """On fastmcp too: fastmcp makes an ``MCPError`` a tool error, which read ``completed``."""
    async with tasks_client(in_memory(_failing(sdk))) as client:
        ended = await _job(client, "protocol")
    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32001, "message": "The job's backend is unavailable."}
    assert ended["statusMessage"] == "The job's backend is unavailable."


async def test_a_tool_error_in_a_task_ends_it_completed_with_is_error(sdk: str) -> None:
    async with tasks_client(in_memory(_failing(sdk))) as client:
        ended = await _job(client, "tool")
    assert ended["status"] == "completed"
    assert ended["result"]["isError"] is True
    assert ended["result"]["content"][0]["text"] == (
        "Error executing tool job"
        if sdk == "mcp"
        else "Error calling tool 'job': no rows to process"
    )
