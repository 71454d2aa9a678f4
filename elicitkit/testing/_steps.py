"""Count how many times a tool's body and its durable steps run, and prove each step runs once.

`count_runs` runs a tool on every protocol era with a scripted user and reports, per era,
how many times the body ran (once per round on 2026-07-28) and how many times each step's
function ran. `assert_steps_run_once` drives the 2026-07-28 rounds by hand, sends them to
the given servers in turn, then resends the final round and replays an older state, and
fails unless every step's function ran exactly once. Both listen on
``elicitkit._runtime.steps.observers``, which the server side tells about every real run,
and count only the runs of their own call: each sends a fresh tag in its requests' ``_meta``
(``CALL_TAG``), so other calls running in the process meanwhile do not count.
"""

from __future__ import annotations

import inspect
import itertools
import secrets
from collections import Counter
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext

from elicitkit._runtime import steps
from elicitkit._runtime.steps import CALL_TAG
from elicitkit.protocol import LATEST_PROTOCOL, PROTOCOL_VERSIONS
from elicitkit.testing._connect import HANG_SECONDS, ClientBehaviour, connect
from elicitkit.testing._task_wire import CreatedTask, follow_task
from elicitkit.testing._user import ScriptedUser

# A dialogue that asks more than this many rounds is taken for a loop: the test fails.
MAX_ROUNDS = 50


@dataclass(frozen=True)
class Runs:
    """What running a tool once did: its result, and how many times each part really ran.

    Attributes:
        protocol: The protocol version the client spoke.
        result: The tool's result.
        body: How many times the tool's body ran (once per round on 2026-07-28).
        steps: How many times each step's function ran, by step key.
    """

    protocol: str
    result: types.CallToolResult
    body: int
    steps: Mapping[str, int] = field(default_factory=dict[str, int])


class StepsRunOnce(Protocol):
    """What the ``steps_run_once`` pytest fixture is: `assert_steps_run_once`'s signature."""

    async def __call__(
        self,
        servers: Any,
        tool: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        user: ScriptedUser,
    ) -> Runs:
        """Fail unless every step of ``tool`` runs exactly once (`assert_steps_run_once`)."""
        ...


@contextmanager
def _counting(tool: str) -> Generator[tuple[Counter[str], types.RequestParamsMeta]]:
    """Count the real runs of ``tool``'s body (as ``""``) and of each step, by key.

    Yields the counts and the ``_meta`` to send with the call's requests: only the runs
    of requests that carry it are counted.
    """
    counts: Counter[str] = Counter()
    call = secrets.token_urlsafe(12)

    def observer(event: str, name: str, tag: str | None) -> None:
        if tag != call:
            return
        if event == "body" and name == tool:
            counts[""] += 1
        elif event == "step":
            counts[name] += 1

    steps.observers.append(observer)
    try:
        yield counts, cast("types.RequestParamsMeta", {CALL_TAG: call})
    finally:
        steps.observers.remove(observer)


def _runs(protocol: str, result: types.CallToolResult, counts: Counter[str]) -> Runs:
    ran = {key: count for key, count in counts.items() if key}
    return Runs(protocol, result, counts[""], ran)


UserFactory = Callable[[str], ScriptedUser] | Callable[[], ScriptedUser]
"""Makes a fresh scripted user; given the era's protocol version if it takes a parameter."""


async def count_runs(
    server: Any,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    user: UserFactory,
    protocols: Sequence[str] = PROTOCOL_VERSIONS,
) -> list[Runs]:
    """Call ``tool`` once on each protocol era, and count what ran each time.

    Args:
        server: An ``MCPServer`` or a ``fastmcp.FastMCP`` with elicitkit installed.
        tool: The tool's name.
        arguments: The tool's arguments.
        user: Makes a fresh scripted user for each era (a user's replies are used up):
            called with the era's protocol version (``user("2025-06-18")``) if it takes
            a positional parameter, else with no argument.
        protocols: The eras to run on; by default every one.

    Returns:
        One `Runs` per era, in the order of ``protocols``.

    Raises:
        ScriptError: A form arrived that the script had no answer for.
    """
    found: list[Runs] = []
    for protocol in protocols:
        with _counting(tool) as (counts, meta):
            async with connect(server, protocol=protocol, user=_user_for(user, protocol)) as client:
                result = await client.call_tool(tool, dict(arguments or {}), meta=meta)
        found.append(_runs(protocol, result, counts))
    return found


def _user_for(user: UserFactory, protocol: str) -> ScriptedUser:
    """A fresh user from ``user``, told ``protocol`` if it takes a positional parameter.

    Not by trying the call: ``ScriptedUser`` itself (``*replies``) is a factory of an
    empty user, and must not get the version as a reply.
    """
    try:
        parameters = inspect.signature(user).parameters.values()
    except (TypeError, ValueError):  # no signature to read: call it as before
        parameters = None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if parameters is not None and any(p.kind in positional for p in parameters):
        return cast("Callable[[str], ScriptedUser]", user)(protocol)
    return cast("Callable[[], ScriptedUser]", user)()


async def assert_steps_run_once(
    servers: Any,
    tool: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    user: ScriptedUser,
) -> Runs:
    """Fail unless every step of ``tool`` runs exactly once, however its rounds are resent.

    Drives the call on MCP 2026-07-28 round by round, sending every round after the first
    twice, to the next of ``servers`` each time (give two servers that share a store and a
    request-state key to cover several workers): the second send, with the same and by
    then older state, must ask the same questions (or give the same result, for the final
    round) and carries on the call. A round that goes on as a task (``go_async()``) is the
    last: sent again, it must give the same task, which is then followed to its end as
    ``connect()`` follows it (``tasks/get``, its questions answered by ``user`` through
    ``tasks/update``), and its result is the call's. After the end, the oldest state that
    carried an answer is sent again and must give the final result (or the same task).
    Each step's function, before and inside the task, must have run exactly once in all.

    Args:
        servers: A server, or a sequence of servers that share one store and state key.
        tool: The tool's name.
        arguments: The tool's arguments.
        user: Answers the forms, once each, the task's questions too.

    Returns:
        The call's `Runs` (the body's count includes the rounds sent again: each middle
        round runs the body twice).

    Raises:
        AssertionError: A step ran more or less than once, a resent round got another
            result than the final round, or the call asked more than 50 rounds.
        MCPError: The task the call went on as failed: its JSON-RPC error.
    """
    pool: list[Any] = (
        list(cast("Sequence[object]", servers)) if isinstance(servers, Sequence) else [servers]
    )
    answering = ClientBehaviour(user, None, LATEST_PROTOCOL, HANG_SECONDS)
    sent: list[tuple[types.InputResponses, str | None]] = []
    with _counting(tool) as (counts, meta):
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(connect(server, user=ScriptedUser()))
                for server in pool
            ]
            turn = itertools.cycle(clients)  # each send goes to the next server

            async def send(answers: types.InputResponses | None, state: str | None) -> Any:
                return await _round(next(turn), tool, arguments, answers, state, meta=meta)

            result = await send(None, None)
            while isinstance(result, types.InputRequiredResult):
                if len(sent) >= MAX_ROUNDS:
                    raise AssertionError(_TOO_MANY.format(tool=tool, rounds=MAX_ROUNDS))
                answers = await _answers(answering, result)
                sent.append((answers, result.request_state))
                first = await send(*sent[-1])
                # The same round again, with the same (now older) state, on the next
                # server: the steps its first run did must be replayed, not run again.
                result = await send(*sent[-1])
                _same_round(tool, len(sent) + 1, first, result)
            ended: object = result  # what the final round answered: the result, or a task
            if isinstance(result, CreatedTask):
                # The round reached go_async(): follow the task to its end, as connect()
                # does, through the next server (a task is read and answered by any worker
                # that shares the store).
                task = result
                final = await follow_task(next(turn), task, answering.on_task_question)
            else:
                task = None
                final = cast("types.CallToolResult", result)
            if len(sent) > 1:  # the oldest state that carried an answer, after the end
                older = await send(*sent[0])
                _same_round(tool, 2, ended, older)
    runs = _runs(LATEST_PROTOCOL, final, counts)
    wrong = {key: count for key, count in runs.steps.items() if count != 1}
    if wrong:
        listed = ", ".join(f"{key!r} {count} times" for key, count in sorted(wrong.items()))
        went_on = ", the task they went on as" if task is not None else ""
        raise AssertionError(
            f"The steps of {tool!r} did not each run once across {len(sent) + 1} rounds, each "
            f"sent twice{went_on}, and an older state sent after the end: {listed}. Check that the "
            "servers share one store and one request-state key, and that each step's key is "
            "the same in every round."
        )
    return runs


async def _round(
    client: Client,
    tool: str,
    arguments: Mapping[str, Any] | None,
    answers: types.InputResponses | None,
    state: str | None,
    *,
    meta: types.RequestParamsMeta,
) -> types.CallToolResult | types.InputRequiredResult | CreatedTask:
    result = await client.session.call_tool(
        tool,
        dict(arguments or {}),
        input_responses=answers,
        request_state=state,
        meta=meta,
        allow_input_required=True,
        # A round that reaches go_async() answers with a task (the client's FollowingTasks
        # claims it): returned here, and followed by the caller.
        allow_claimed=True,
    )
    return cast("types.CallToolResult | types.InputRequiredResult | CreatedTask", result)


async def _answers(
    answering: ClientBehaviour, result: types.InputRequiredResult
) -> types.InputResponses:
    """The scripted user's answer to every question of the round."""
    answers: types.InputResponses = {}
    context = cast("ClientRequestContext", None)  # the callback does not read it
    for key, request in (result.input_requests or {}).items():
        params = cast("types.ElicitRequestParams", getattr(request, "params", None))
        answer = await answering.on_elicit(context, params)
        if isinstance(answer, types.ErrorData):
            raise AssertionError(  # noqa: TRY004  (a failed test, not a wrong type)
                f"The client refused the question {key!r}: {answer.message}"
            )
        answers[key] = answer
    return answers


def _same_round(tool: str, number: int, first: object, again: object) -> None:
    """Fail unless a round sent again got what the round got: the same questions or result."""
    if _outcome(first) != _outcome(again):
        raise AssertionError(
            f"Round {number} of {tool!r} sent again got another outcome than the first time, "
            f"so it was not replayed: {again!r} instead of {first!r}."
        )


def _outcome(result: object) -> object:
    """What a round's client sees: the result's content, or the questions asked."""
    if isinstance(result, types.CallToolResult):
        return ("result", result.content, result.is_error)
    if isinstance(result, types.InputRequiredResult):
        return ("questions", result.input_requests)
    if isinstance(result, CreatedTask):  # the same task, whatever its status by now
        return ("task", result.task_id)
    return ("other", result)


_TOO_MANY = (
    "The tool {tool!r} asked more than {rounds} rounds of questions, so the test stopped it; "
    "check that the scripted user's answers fit the forms."
)
