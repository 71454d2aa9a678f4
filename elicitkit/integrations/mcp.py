"""elicitkit on the official MCP Python SDK (``mcp`` 2.3+): ``install(MCPServer)``.

One middleware in the SDK's server layer does everything. fastmcp 4 serves through that same
layer (its low-level server is the SDK's), so `elicitkit.integrations.fastmcp` installs this
very middleware, described by another `Host`. The middleware:

* it records the call in elicitkit's context variable, so ``ask()`` needs no ``ctx``
  parameter (the SDK has no context variable of its own);
* on handshake eras (2025-06-18, 2025-11-25) ``ask()`` sends ``elicitation/create`` on the
  call's own stream and waits for the answer;
* on 2026-07-28 it turns the run-ending `NeedInput` into an ``InputRequiredResult`` and
  reads the answers back on the client's retry. The SDK's ``RequestStateBoundary`` (installed
  by every ``MCPServer``) seals the ``requestState`` with AES-GCM and binds it to the tool
  name, the arguments, the server and the principal, with a 10-minute expiry; this
  middleware sits inside it, so it only ever sees state the server itself minted;
* on 2026-07-28 it also completes each dialogue at most once, through an `OutcomeStore`
  (`elicitkit._replay.once.AtMostOnce` keeps the books; this module tells it how the SDK's
  results and errors become records and back).

It serves ``tools/call``, ``prompts/get`` and ``resources/read``: the methods whose handlers
may ask (the SDK's multi-round carriers).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field, replace
from types import new_class
from typing import Any, Literal, NoReturn, cast

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.request_state import (
    RequestStateBoundary,
    RequestStateSecurity,
    authenticated_principal,
)
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.methods import is_input_required
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from elicitkit._compat import BaseExceptionGroup
from elicitkit._compiler.wire_formats import sendable_text
from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.once import AtMostOnce, RoundLease
from elicitkit._replay.state import NeedInput, Replay, WireQuestion
from elicitkit._replay.store import MemoryStore, OutcomeStore
from elicitkit._replay.tasks import TASKS_EXTENSION, MemoryTaskStore, TaskStore
from elicitkit._replay.ticket import TicketRefused
from elicitkit._runtime import missing_arguments as fill
from elicitkit._runtime.context import AskingSession, CompletionRouter, ToolRun, current_run
from elicitkit._runtime.missing_arguments import ARGUMENTS_CHECK
from elicitkit._runtime.model_listing import ANSWER_TOOL, ANSWER_TOOL_DESCRIPTION, HandedToModel
from elicitkit._runtime.steps import CALL_TAG, observe, observers
from elicitkit._runtime.tasks import Detachable, TaskEngine
from elicitkit._runtime.timeouts import timed_out
from elicitkit._runtime.unsupported import OnUnsupported, check_policy
from elicitkit._runtime.url_mode import installed_with
from elicitkit.errors import (
    ClientDisconnected,
    ElicitationFailed,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitError,
    FormDefinitionError,
    InvalidContent,
    TasksUnsupported,
)
from elicitkit.integrations._answer_form import (
    Companion,
    answer_form,
    corrections_of,
    without_answer_tool,
)
from elicitkit.integrations._environment import (
    completions_from_environment,
    seal_with_environment_key,
    split_memory,
    store_from_environment,
)
from elicitkit.integrations._quiet_log import withhold_answer_values
from elicitkit.integrations._sdk_private import (
    connection_of,
    state_security,
    state_ttl,
    tool_function,
    tool_uses_resolve,
)
from elicitkit.integrations._task_requests import (
    TASK_METHODS,
    declares_tasks,
    serve_task_request,
    task_created,
    task_result,
    why_no_tasks,
    with_tasks_extension,
)

logger = logging.getLogger(__name__)


def install(
    server: MCPServer[Any],
    *,
    store: OutcomeStore | None = None,
    limits: ReplayLimits | None = None,
    completions: CompletionRouter | None = None,
    tasks: TaskStore | None = None,
    on_unsupported: OnUnsupported = "raise",
) -> None:
    """Add elicitkit's middleware to ``server`` (once).

    Args:
        server: The server.
        store: Where completed dialogues are recorded (default: a `MemoryStore` of this
            process). Servers that run in several processes share one, e.g. a `RedisStore`.
        limits: The caps on one dialogue (default: `ReplayLimits()`).
        completions: Where this server's URL-mode completions are routed (default: see
            `elicitkit.install`).
        tasks: Where the tasks of ``go_async()`` are kept (default: see
            `elicitkit.install`).
        on_unsupported: What ``ask()`` does when the client cannot show forms (see
            `elicitkit.install`); ``"ask_model"`` registers the ``answer_form`` tool.

    Raises:
        TypeError: The server has no ``RequestStateBoundary`` (someone removed it), so the
            answers carried between rounds on 2026-07-28 would travel unsealed.
    """
    host = Host(
        name="MCPServer",
        tool_error=ToolError,
        crash_text=lambda tool: f"Error executing tool {tool}",
        refusal=functools.partial(_resolve_refusal, server),
        output_schema=functools.partial(_mcp_output_schema, server),
        tool_function=functools.partial(_mcp_tool_function, server),
    )
    policy = check_policy(on_unsupported, "install()")
    added = install_in_chain(
        server.middleware,
        host,
        store=store,
        limits=limits,
        completions=completions,
        audience=server.name,
        tasks=tasks,
        on_unsupported=policy,
    )
    if added and policy == "ask_model":
        server.add_tool(
            answer_form,
            name=ANSWER_TOOL,
            description=ANSWER_TOOL_DESCRIPTION,
            # It returns the result of the tool it answers for, whatever that tool's shape.
            structured_output=False,
        )


async def _mcp_tool_function(server: MCPServer[Any], name: str) -> object:
    return tool_function(server, name)


async def _mcp_output_schema(server: MCPServer[Any], name: str) -> Mapping[str, Any] | None:
    for tool in await server.list_tools():
        if tool.name == name:
            return tool.output_schema
    return None


@dataclass(frozen=True)
class Host:
    """What differs between the servers that run on the SDK's server layer.

    Attributes:
        name: What the server is called in messages ("MCPServer").
        tool_error: The exception whose text the server passes on to the client when a
            tool raises it (the text of any other exception may be hidden).
        crash_text: The tool error the server shows for a crashed tool, given its name.
        refusal: Why ``ask()`` cannot be used in this request at all, or ``None``. Called
            by the first ``ask()`` of a request only, never for a request that does not ask.
        tool_error_fields: Attributes the host's code reads on its ``tool_error`` that its
            ``__init__`` would have set (an elicitkit error becomes a ``tool_error`` after
            it is made, so that ``__init__`` never runs for it).
        masks_mcp_errors: The host reports an ``MCPError`` raised by a tool as a crashed
            tool (traceback in the log) rather than as that JSON-RPC error, so elicitkit's
            -32042 error is raised as its ``tool_error`` and the host's integration sends it
            on as -32042.
        output_schema: The output schema the server lists for a tool, or ``None``; read
            only when a question goes to the model.
        tool_function: The function a tool runs (``None``: unknown); read only in a
            process where a tool uses ``@fill_missing``, for the check of its arguments.
    """

    name: str
    tool_error: type[Exception]
    crash_text: Callable[[str], str]
    refusal: Callable[[ServerRequestContext[Any, Any]], str | None]
    tool_error_fields: Mapping[str, object] = field(default_factory=dict[str, object])
    masks_mcp_errors: bool = False
    output_schema: Callable[[str], Awaitable[Mapping[str, Any] | None]] | None = None
    tool_function: Callable[[str], Awaitable[object]] | None = None


def install_in_chain(
    chain: list[ServerMiddleware[Any]],
    host: Host,
    *,
    store: OutcomeStore | None,
    limits: ReplayLimits | None,
    completions: CompletionRouter | None = None,
    audience: str | None = None,
    tasks: TaskStore | None = None,
    on_unsupported: OnUnsupported = "raise",
) -> bool:
    """Append elicitkit's middleware to a server's SDK middleware ``chain`` (once).

    Args:
        chain: The server's SDK middleware list, holding its ``RequestStateBoundary``.
        host: What the server is.
        store: See `install`.
        limits: See `install`.
        completions: See `install`.
        audience: The server's name: the audience the SDK's boundary seals for by default.
        tasks: See `install`.
        on_unsupported: See `install`.

    Returns:
        Whether the middleware was added (``False``: it was already installed).

    Raises:
        TypeError: The chain has no ``RequestStateBoundary``, or elicitkit is already in it
            with another store, limits, completion router or policy.
    """
    installed = next((m for m in chain if isinstance(m, ElicitkitMiddleware)), None)
    if installed is not None:
        if (
            (store is not None and store is not installed.store)
            or (limits is not None and limits != installed.limits)
            or (completions is not None and completions is not installed.router)
            or (tasks is not None and tasks is not installed.tasks.store)
        ):
            # Silently keeping the first store would break at-most-once across workers.
            raise TypeError(
                f"Cannot install elicitkit on this {host.name} again with another store or "
                "limits: it is already installed, and its dialogues are recorded in the first "
                "store. Call install(server, store=..., limits=...) once, before serving."
                if completions is None or completions is installed.router
                else f"Cannot install elicitkit on this {host.name} again with another "
                "completion router: it is already installed, and the URL elicitations it "
                "opened are routed through the first. Call install(server, completions=...) "
                "once, before serving."
            )
        if on_unsupported not in ("raise", installed.on_unsupported):
            raise TypeError(
                f"Cannot install elicitkit on this {host.name} again with "
                f"on_unsupported={on_unsupported!r}: it is already installed with "
                f"{installed.on_unsupported!r}. Call install(server, on_unsupported=...) once, "
                "before serving."
            )
        return False
    boundary = next(
        (middleware for middleware in chain if isinstance(middleware, RequestStateBoundary)),
        None,
    )
    if boundary is None:
        raise TypeError(
            f"Cannot install elicitkit on this {host.name}: its middleware has no "
            "RequestStateBoundary, so answers carried between rounds would travel unsealed. "
            f"Keep the boundary {host.name} installs by default."
        )
    # Configuration shared by every worker: the sealing key, the dialogue store, the router.
    boundary = seal_with_environment_key(chain, boundary, audience=audience)
    if store is None:
        store = store_from_environment()
    if completions is None:
        completions = completions_from_environment()
    if completions is not None:
        installed_with(completions)
    # The record must outlive every state minted before it: the state's lifetime, plus the
    # minute of clock skew the boundary tolerates.
    keep = state_ttl(boundary, _DEFAULT_STATE_TTL) + 60.0
    if store is None:
        store = MemoryStore()
    split = split_memory(store)
    if split is not None:
        logger.warning("%s", split)
    companion = None
    if on_unsupported == "ask_model":
        companion = _companion(boundary, host, audience=audience, ttl=keep - 60.0)
    # Appended, so it runs inside the boundary: it sees requestState already verified.
    chain.append(
        ElicitkitMiddleware(
            host,
            store=store,
            limits=ReplayLimits() if limits is None else limits,
            keep=keep,
            completions=completions,
            tasks=TaskEngine.of(MemoryTaskStore() if tasks is None else tasks),
            on_unsupported=on_unsupported,
            companion=companion,
        )
    )
    return True


def _companion(
    boundary: RequestStateBoundary, host: Host, *, audience: str | None, ttl: float
) -> Companion:
    """``answer_form``'s tickets, sealed as the server seals its ``requestState``.

    The server's own codec (its key, or ``MCP_REQUEST_STATE_KEY`` shared by every worker)
    when the policy can be read; else a key of this process, which serves one process.
    A ticket lives as long as a state, so the outcome store outlives it (``keep``).
    """
    security = state_security(boundary)
    codec = security.codec if security is not None else RequestStateSecurity.ephemeral().codec
    audience = security.audience if security is not None and security.audience else audience

    async def no_schema(_name: str) -> Mapping[str, Any] | None:
        return None

    return Companion(
        codec,
        ttl=ttl,
        audience=audience,
        security=security,
        output_schema=host.output_schema or no_schema,
    )


_DEFAULT_STATE_TTL = 600.0
# The methods whose handlers may ask: the multi-round carriers of 2026-07-28.
_ASKING_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_RESULT_TYPES: dict[str, type[BaseModel]] = {
    "tools/call": types.CallToolResult,
    "prompts/get": types.GetPromptResult,
    "resources/read": types.ReadResourceResult,
}


class ElicitkitMiddleware:
    """Runs tool, prompt and resource handlers with elicitkit's per-call state.

    On 2026-07-28 it also makes each dialogue complete at most once: the later rounds of a
    dialogue run through `AtMostOnce` (``self.once``), which claims, records and replays.
    """

    def __init__(
        self,
        host: Host,
        *,
        store: OutcomeStore,
        limits: ReplayLimits,
        keep: float,
        wait: float = 30.0,
        completions: CompletionRouter | None = None,
        tasks: TaskEngine | None = None,
        on_unsupported: OnUnsupported = "raise",
        companion: Companion | None = None,
    ) -> None:
        """Serve ``host``'s requests, recording outcomes in ``store`` for ``keep`` seconds.

        ``completions`` is the server's URL-mode router; ``None``: the process default.
        ``tasks`` keeps the tasks of ``go_async()`` (default: in this process's memory).
        ``on_unsupported`` is the server's policy for clients that cannot show forms, and
        ``companion`` its ``answer_form`` (with ``"ask_model"``).
        """
        self.host = host
        self.limits = limits
        self.once = AtMostOnce(store, keep=keep, wait=wait)
        self.router = completions
        self.tasks = TaskEngine.of(MemoryTaskStore()) if tasks is None else tasks
        self.on_unsupported: OnUnsupported = on_unsupported
        self.companion = companion

    @property
    def store(self) -> OutcomeStore:
        """Where this server's dialogues are recorded."""
        return self.once.store

    @property
    def keep(self) -> float:
        """Seconds a dialogue's outcome is kept."""
        return self.once.keep

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Run one request; serve the Tasks extension; pass through what cannot ask."""
        if ctx.method in TASK_METHODS:
            return await serve_task_request(ctx, self.tasks)
        if ctx.method == "server/discover":
            return with_tasks_extension(await call_next(ctx))
        companion = self.companion
        if companion is not None and ctx.method == "tools/list":
            return await self._list_tools(ctx, call_next)
        if ctx.method not in _ASKING_METHODS or ctx.request_id is None:
            return await call_next(ctx)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        params = ctx.params or {}
        answering = ctx.method == "tools/call" and params.get("name") == ANSWER_TOOL
        if companion is not None and answering:
            return await self._answer(ctx, call_next, companion, modern=modern)
        if ctx.method == "tools/call" and params.get("name") in fill.checked_tools:
            refused = await self._check_arguments(params)
            if refused is not None:
                return refused
        replay = (
            Replay.from_request(
                params.get("inputResponses"), params.get("requestState"), self.limits
            )
            if modern
            else None
        )
        run = self._new_run(ctx, replay, modern=modern)
        if modern and ctx.method == "tools/call" and replay is not None and declares_tasks(ctx):
            run.detacher = Detachable(
                self.tasks,
                dialogue=lambda: replay.dialogue,
                principal=authenticated_principal(ctx),
                created=task_created,
                result_json=task_result,
                error_json=_OUTCOMES["tools/call"].error_data,
            )
        else:
            run.no_tasks = why_no_tasks(ctx, modern=modern)
        outcomes = _RoundOutcomes(_OUTCOMES[ctx.method])
        token = current_run.set(run)
        try:
            round_ = functools.partial(self._run, ctx, call_next, run, outcomes)
            if replay is None:
                if companion is None:
                    return await round_()
                # A question handed to the model starts a dialogue on a 2025 era too: it is
                # opened in the store before its ticket leaves the server.
                return await self.once.begin(
                    round_, lambda: None if run.replay is None else run.replay.dialogue, outcomes
                )
            if replay.dialogue is None:
                # Round one: a round that asks mints the dialogue, opened in the store
                # before its state leaves the server.
                return await self.once.begin(round_, lambda: replay.dialogue, outcomes)
            run.lease = RoundLease(self.once, replay.dialogue)
            return await self.once.run(
                replay.dialogue, round_, outcomes, known=replay.known, lease=run.lease
            )
        finally:
            current_run.reset(token)

    async def _check_arguments(self, params: Mapping[str, Any]) -> HandlerResult | None:
        """The form's refusal of a ``@fill_missing`` tool's arguments, before the SDK checks."""
        if self.host.tool_function is None:
            return None
        function = await self.host.tool_function(str(params.get("name")))
        check: object = getattr(function, ARGUMENTS_CHECK, None)
        if not callable(check):
            return None
        handed: object = check(params.get("arguments"))
        return _handed(handed) if isinstance(handed, HandedToModel) else None

    def _new_run(
        self, ctx: ServerRequestContext[Any, Any], replay: Replay | None, *, modern: bool
    ) -> ToolRun:
        host = self.host
        return ToolRun(
            _Channel(ctx, modern=modern, host=host),
            replay,
            # Worked out by the first ask() only: a call that never asks never reads it.
            refuses=functools.partial(host.refusal, ctx),
            target=_target(ctx),
            completions=self.router,
            steps=self.once if modern or replay is not None else None,
            call_tag=_call_tag(ctx.params or {}) if observers else None,
            on_unsupported=self.on_unsupported,
            # A listing for the model is a tool's result: prompts and resources cannot.
            answer_tool=self.companion is not None and ctx.method == "tools/call",
            limits=self.limits,
        )

    async def _answer(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
        companion: Companion,
        *,
        modern: bool,
    ) -> HandlerResult:
        """Answer ``answer_form``: run the ticket's tool again with the model's answers.

        Everything about the ticket is checked before anything runs. The tool then runs as
        a later round of its dialogue (`AtMostOnce.run`): a completed dialogue gets its
        recorded result back, so a ticket sent twice does not run the tool twice.
        """
        try:
            ticket, responses = companion.open(ctx)
        except TicketRefused as refused:
            return _error_outcome("tools/call", str(refused))
        replay = Replay.from_request(responses, ticket.state, self.limits)
        if replay.dialogue is None or replay.dialogue != ticket.dialogue:
            return _error_outcome("tools/call", _NOT_A_DIALOGUE)
        kept = {
            key: value
            for key, value in (ctx.params or {}).items()
            if key not in ("name", "arguments", "requestState", "inputResponses")
        }
        inner = replace(ctx, params={**kept, "name": ticket.tool, "arguments": ticket.arguments})
        run = self._new_run(inner, replay, modern=modern)
        run.model_keys.update(ticket.model_keys)
        outcomes = _RoundOutcomes(_OUTCOMES["tools/call"])
        token = current_run.set(run)
        run.lease = RoundLease(self.once, replay.dialogue)
        try:
            return await self.once.run(
                replay.dialogue,
                functools.partial(self._run, inner, call_next, run, outcomes, answering=True),
                outcomes,
                known=replay.known,
                lease=run.lease,
            )
        finally:
            current_run.reset(token)

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """List the tools; leave ``answer_form`` out for a client that can show forms."""
        result = await call_next(ctx)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        try:
            can_show_forms = _Channel(ctx, modern=modern, host=self.host).why_no_forms() is None
        except ElicitationUnsupported:  # the server's transport: no question mid-call
            can_show_forms = False
        return without_answer_tool(result) if can_show_forms else result

    async def _run(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
        run: ToolRun,
        outcomes: _RoundOutcomes,
        *,
        answering: bool = False,
    ) -> HandlerResult:
        """Run the handler; turn its question(s) into an ``InputRequiredResult``.

        Questions handed to the model become its listing with a ticket instead.
        """
        if observers:  # the testing kit counts the rounds that run the body
            observe("body", _target(ctx), run.call_tag)
        detacher = run.detacher
        try:
            if isinstance(detacher, Detachable):
                # The body runs in the background from the start, so go_async() can answer
                # the call with a task while the body goes on.
                return await cast("Detachable[HandlerResult]", detacher).run(
                    functools.partial(call_next, ctx)
                )
            return await call_next(ctx)
        except HandedToModel as handed:  # @fill_missing's listing, for a tool call only
            return _handed(handed)
        except BaseException as signal:  # noqa: BLE001  (our question, else re-raised by _failure)
            questions = _questions(signal)
            replay = run.replay
            if not questions or replay is None:
                return _failure(signal, crash_text=self.host.crash_text(_target(ctx)))
            state = questions[0].state if len(questions) == 1 else None
            asked = _merged(questions)
            if state is None:  # several concurrent ask()s ended the run together
                try:
                    state = replay.next_state(asked)
                except ElicitError as error:
                    return _error_outcome(ctx.method, str(error))
            if run.model_keys and self.companion is not None and replay.dialogue is not None:
                outcomes.ticketed = True
                params = ctx.params or {}
                arguments: object = params.get("arguments")
                return await self.companion.ticket_result(
                    ctx,
                    tool=str(params.get("name")),
                    arguments=cast("dict[str, Any]", arguments)
                    if isinstance(arguments, dict)
                    else {},
                    dialogue=replay.dialogue,
                    state=state,
                    questions=asked,
                    model_keys=run.model_keys,
                    corrections=corrections_of(replay.answers, asked),
                    answering=answering,
                )
            return types.InputRequiredResult(
                input_requests={question.key: _elicit_request(question) for question in asked},
                request_state=state,
            )


def _handed(handed: HandedToModel) -> types.CallToolResult:
    """``@fill_missing``'s result for the model: text, and ``result`` beside the structure.

    ``result`` holds the text, as the tool's wrapped output schema (widened to admit text)
    expects of a normal result.
    """
    text = types.TextContent(type="text", text=handed.text)
    structured = {"result": handed.text, **handed.structured}
    return types.CallToolResult(
        content=[text], structured_content=structured, is_error=handed.error
    )


_NOT_A_DIALOGUE = (
    f"The ticket passed to {ANSWER_TOOL} carries no dialogue this server can continue, so "
    "nothing was run. Call the tool again to get a fresh ticket."
)


class _RoundOutcomes:
    """A method's outcomes for one request, knowing whether its round issued a ticket.

    A round that hands its questions to the model ends with a normal tool result, but its
    dialogue goes on (like an ``InputRequiredResult``): it is opened or released in the
    store, never recorded as the dialogue's outcome.
    """

    def __init__(self, base: _SdkOutcomes) -> None:
        self._base = base
        self.ticketed = False

    def dump(self, result: HandlerResult) -> tuple[str | None, Any]:
        return self._base.dump(result)

    def load(self, kind: str | None, data: Any) -> HandlerResult:
        return self._base.load(kind, data)

    def error_data(self, error: BaseException) -> Mapping[str, Any] | None:
        return self._base.error_data(error)

    def raise_error(self, data: Mapping[str, Any]) -> NoReturn:
        self._base.raise_error(data)

    def needs_input(self, result: HandlerResult) -> bool:
        return self.ticketed or self._base.needs_input(result)

    def refused(self, message: str) -> HandlerResult:
        return self._base.refused(message)


def _resolve_refusal(server: MCPServer[Any], ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Refuse ask() in a tool that also uses the SDK's Resolve (they cannot share a call)."""
    if ctx.method != "tools/call":
        return None
    name = str((ctx.params or {}).get("name"))
    if not tool_uses_resolve(server, name):
        return None
    return (
        f"The tool {name!r} uses both the SDK's Resolve(...) parameters and elicitkit's "
        "ask(), which cannot share one call: on MCP 2026-07-28 both carry their progress "
        "in the one requestState, and the user would be asked the same questions over "
        "and over. Ask every question with ask() or ask_all() in the tool body, or only "
        "with Resolve(...)."
    )


def _call_tag(params: Mapping[str, Any]) -> str | None:
    """The testing kit's tag of this call, from the request's ``_meta``, or ``None``."""
    meta: object = params.get("_meta")
    tag = cast("dict[str, object]", meta).get(CALL_TAG) if isinstance(meta, dict) else None
    return tag if isinstance(tag, str) else None


def _target(ctx: ServerRequestContext[Any, Any]) -> str:
    params = ctx.params or {}
    return str(params.get("uri") if ctx.method == "resources/read" else params.get("name"))


def _elicit_request(question: WireQuestion) -> types.ElicitRequest:
    """The SDK's request model of a question.

    Built afresh each time: it takes 2 to 4 microseconds (4 to 20 fields, measured with
    timeit), less than dumping the result it goes into, so a cache would only add state.
    """
    return types.ElicitRequest.model_validate(
        {"method": "elicitation/create", "params": question.params}
    )


def _merged(questions: list[NeedInput]) -> tuple[WireQuestion, ...]:
    """All questions of the run's `NeedInput` signal(s), each key once, in order."""
    seen: dict[str, WireQuestion] = {}
    for need in questions:
        for question in need.questions:
            seen.setdefault(question.key, question)
    return tuple(seen.values())


class _SdkOutcomes:
    """The SDK's outcomes of one method, as `AtMostOnce` records and replays them.

    The records keep the format of every earlier version (see `elicitkit._replay.once`):
    a result model is dumped by alias in JSON mode without nulls, under its method.
    """

    def __init__(self, method: str) -> None:
        self._method = method

    def dump(self, result: HandlerResult) -> tuple[str | None, Any]:
        if isinstance(result, BaseModel):
            return self._method, result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return None, result

    def load(self, kind: str | None, data: Any) -> HandlerResult:
        result_type = _RESULT_TYPES.get(kind or "")
        if result_type is None:
            return cast("HandlerResult", data)
        return cast("HandlerResult", result_type.model_validate(data))

    def error_data(self, error: BaseException) -> Mapping[str, Any] | None:
        if isinstance(error, MCPError):
            return error.error.model_dump(mode="json", exclude_none=True)
        return None

    def raise_error(self, data: Mapping[str, Any]) -> NoReturn:
        raise MCPError.from_error_data(types.ErrorData.model_validate(data))

    def needs_input(self, result: HandlerResult) -> bool:
        return is_input_required(result)

    def refused(self, message: str) -> HandlerResult:
        return _error_outcome(self._method, message)


_OUTCOMES = {method: _SdkOutcomes(method) for method in _ASKING_METHODS}


def _error_outcome(method: str, message: str) -> HandlerResult:
    """Report a problem of the dialogue itself: a tool error, or a JSON-RPC error elsewhere."""
    if method == "tools/call":
        text = types.TextContent(type="text", text=message)
        return types.CallToolResult(content=[text], is_error=True)
    raise MCPError(code=types.INTERNAL_ERROR, message=message)


def _failure(signal: BaseException, *, crash_text: str) -> types.CallToolResult:
    """Report a run that failed beside an unanswered ask() in a task group, or re-raise.

    A task group that holds a `NeedInput` is a `BaseExceptionGroup`, which the SDK's tool
    runner lets through. Without the question it is an ordinary crash: report it as the SDK
    reports one (``crash_text``, naming only the tool), with the traceback in the log.
    """
    if not isinstance(signal, BaseExceptionGroup):
        raise signal
    group = cast("BaseExceptionGroup[BaseException]", signal)
    questions, others = group.split(NeedInput)
    if questions is None or others is None or not isinstance(others, Exception):
        raise signal  # no question in it, or a cancellation: not ours to handle
    logger.error("%s", crash_text, exc_info=others)
    text = types.TextContent(type="text", text=crash_text)
    return types.CallToolResult(content=[text], is_error=True)


def _questions(signal: BaseException) -> list[NeedInput]:
    """The question signal(s) that ended the run, also from task groups (only if alone)."""
    if isinstance(signal, NeedInput):
        return [signal]
    if isinstance(signal, BaseExceptionGroup):
        group = cast("BaseExceptionGroup[BaseException]", signal)
        questions, others = group.split(NeedInput)
        if questions is not None and others is None:
            return list(_leaves(questions))
    return []


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[NeedInput]:
    found: list[NeedInput] = []
    for inner in group.exceptions:
        if isinstance(inner, BaseExceptionGroup):
            found.extend(_leaves(cast("BaseExceptionGroup[BaseException]", inner)))
        elif isinstance(inner, NeedInput):
            found.append(inner)
    return found


class _ElicitationCreate(BaseModel):
    """``elicitation/create`` with the params exactly as rendered for the version.

    The SDK's own request model always writes ``mode``, which 2025-06-18 does not have.
    """

    method: Literal["elicitation/create"] = "elicitation/create"
    params: dict[str, Any]


_CONNECTION_END = "elicitkit.connection_end"


class _ConnectionEnd:
    """One client connection as URL routes see it: the SDK unwinds its exit stack on close."""

    def __init__(self, exit_stack: AsyncExitStack | None) -> None:
        self._exit_stack = exit_stack
        self._keys: set[object] = set()

    def at_end(self, key: object, callback: Callable[[], Awaitable[None]]) -> None:
        if self._exit_stack is not None and key not in self._keys:
            self._keys.add(key)  # one callback per router, however often the session asks
            self._exit_stack.push_async_callback(callback)


class _Channel:
    """``ask()``'s view of one ``tools/call`` on the official SDK."""

    def __init__(self, ctx: ServerRequestContext[Any, Any], *, modern: bool, host: Host) -> None:
        self._ctx = ctx
        self._modern = modern
        self._host = host
        self._why_not: tuple[str | None] | None = None  # the capabilities of a call are fixed

    def why_no_forms(self) -> str | None:
        """Say why the client cannot show a form (see `Channel.why_no_forms`).

        Raises:
            ElicitationUnsupported: The server's own transport setting forbids a request
                mid-call; the message names the setting rather than blaming the client.
        """
        if self._why_not is None:
            self._why_not = (self._why_no_forms(),)
        return self._why_not[0]

    @property
    def protocol(self) -> str:
        return self._ctx.protocol_version

    def _why_no_forms(self) -> str | None:
        session = self._ctx.session
        if not self._modern and not session.can_send_request:
            raise self.surface(
                ElicitationUnsupported(_no_back_channel(session.client_params, self.protocol))
            )
        capabilities = session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        # A bare `elicitation: {}` (the only form before modes existed) means form mode;
        # a client that declares only `url` cannot show forms.
        if elicitation is None:
            return "it did not declare the elicitation capability"
        if elicitation.form is None and elicitation.url is not None:
            return "it declared elicitation in URL mode only"
        return None

    async def send(
        self,
        params: dict[str, Any],
        within: float | None,
        *,
        key: str | None = None,  # noqa: ARG002  (a mid-call request has its own JSON-RPC id)
    ) -> Mapping[str, Any]:
        request = cast("types.ServerRequest", _ElicitationCreate(params=params))
        # What the user was shown, for the messages: a URL-mode question shows a link.
        link = params.get("mode") == "url"
        shown = "link" if link else "form"
        try:
            # The SDK applies no timeout of its own to a server's request (it waits for
            # ever), so elicitkit's clock is the only one. It is a cancel scope rather than
            # the SDK's request timeout, so a client's own "timed out" error (-32001) is not
            # mistaken for ours; cancelled, the SDK tells the client (notifications/cancelled)
            # that the request is withdrawn.
            with anyio.fail_after(within):
                result = await self._ctx.session.send_request(
                    request,
                    types.ElicitResult,
                    metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id),
                )
        except TimeoutError:
            raise self.surface(ElicitationTimeout(timed_out(within or 0.0, link=link))) from None
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED:
                raise self.surface(ClientDisconnected(_disconnected(shown))) from None
            raise self.surface(
                ElicitationFailed(
                    f"The client answered the {shown} with an error instead of an answer: "
                    f"{_client_text(error.message)} (code {error.code})."
                )
            ) from None
        except ValidationError as error:  # the SDK checks the result's shape
            problems = "; ".join(
                f"{'.'.join(map(str, problem['loc'])) or 'result'}: {problem['msg']}"
                for problem in error.errors(include_url=False)
            )
            raise self.surface(
                ElicitationFailed(
                    f"The client's answer to the {shown} is not an elicitation result ({problems})."
                )
            ) from None
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    def why_no_url(self) -> str | None:
        """Say why the client cannot open a URL (see `Channel.why_no_url`)."""
        session = self._ctx.session
        if not self._modern and not session.can_send_request:
            return "the server cannot send it a request during this call"
        capabilities = session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        if elicitation is None:
            return "it did not declare the elicitation capability"
        if elicitation.url is None:
            return "it declared elicitation without URL mode"
        return None

    def completion_notifier(self, elicitation_id: str) -> Callable[[], Awaitable[None]]:
        """Notify this call's session only (see `Channel.completion_notifier`)."""
        session = self._ctx.session

        async def notify() -> None:
            await session.send_elicit_complete(elicitation_id)

        return notify

    @property
    def session(self) -> AskingSession:
        """This call's connection, told when it closes (see `Channel.session`)."""
        connection = connection_of(self._ctx.session)
        if connection is None:  # an SDK that moved it: bounded per call, ended by expiry
            return _ConnectionEnd(None)
        found = connection.state.get(_CONNECTION_END)
        if not isinstance(found, _ConnectionEnd):
            found = connection.state[_CONNECTION_END] = _ConnectionEnd(connection.exit_stack)
        return found

    def url_required(self, message: str, url: str, elicitation_id: str) -> BaseException:
        """The SDK's -32042 error for one URL (see `Channel.url_required`)."""
        error = UrlRequired(
            [types.ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation_id)]
        )
        if self._host.masks_mcp_errors:
            _become_tool_error(error, self._host)
        return error

    def surface(self, error: ElicitError | FormDefinitionError) -> BaseException:
        """Make ``error`` reach the client readably if the tool does not catch it.

        Servers show the model a crash as a bare "Error executing tool NAME"; only their
        ``ToolError`` keeps its text. So the error's class becomes a subclass of both its
        own class (``except InvalidContent`` still works) and the host's ``ToolError``.

        On 2026-07-28 a client without the capability gets the spec's
        MissingRequiredClientCapability error instead (-32021): an uncaught
        `ElicitationUnsupported` means the tool required a capability the client lacks.

        In a prompt or resource handler the error becomes an ``MCPError`` (-32603) instead:
        there ``MCPServer`` keeps only an ``MCPError``'s text (anything else reads "Error
        rendering prompt NAME" with code 0, or "Internal server error" on 2026-07-28), and
        fastmcp passes both on alike.
        """
        if isinstance(error, TasksUnsupported):
            error.__class__ = _MissingTasks
            missing_tasks = cast("_MissingTasks", error)
            missing_tasks.error = types.ErrorData(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=str(error.args[0]),
                data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
            )
            return error
        if self._modern and isinstance(error, ElicitationUnsupported):
            error.__class__ = _MissingCapability
            missing = cast("_MissingCapability", error)
            missing.error = types.ErrorData(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=str(error.args[0]),
                data={"requiredCapabilities": {"elicitation": {"form": {}}}},
            )
            return error
        if self._ctx.method != "tools/call":
            _become_request_error(error)
            return error
        _become_tool_error(error, self._host)
        return error


class UrlRequired(UrlElicitationRequiredError):
    """The -32042 error of `require_url`, marked as elicitkit's own for the integrations."""


class _MissingTasks(TasksUnsupported, MCPError):
    """`TasksUnsupported` that the SDK sends as the extension's -32021 JSON-RPC error."""

    def __str__(self) -> str:
        return self.error.message


class _MissingCapability(ElicitationUnsupported, MCPError):
    """`ElicitationUnsupported` that the SDK sends as a -32021 JSON-RPC error."""

    def __str__(self) -> str:
        return self.error.message


_MAX_CLIENT_TEXT = 300  # characters of a client's error message passed on to the model


def _client_text(text: str) -> str:
    """A client's own words, sendable and of bounded length (a client may send a megabyte)."""
    text = sendable_text(text[: _MAX_CLIENT_TEXT + 1])
    return text if len(text) <= _MAX_CLIENT_TEXT else text[: _MAX_CLIENT_TEXT - 3] + "..."


def _disconnected(shown: str) -> str:
    """The message of `ClientDisconnected` while a ``shown`` ("form", "link") was open."""
    return (
        f"The client disconnected while the {shown} was open, so there is no answer, and "
        "nothing more can reach that client on this call. Clean up and return."
    )


def _no_back_channel(client_params: object, protocol: str) -> str:
    """Name the server setting that leaves a legacy-era call no way to ask mid-call.

    The SDK marks such a call ``can_send_request=False`` for two server settings of
    streamable HTTP. With ``stateless_http=True`` each request gets a fresh connection that
    never saw ``initialize`` (so it knows no client capabilities either); with
    ``json_response=True`` the connection did see it, but a request is answered with one
    JSON reply, leaving no stream to send a question on.
    """
    setting = "json_response" if client_params is not None else "stateless_http"
    why = (
        "answers each request with a single JSON reply"
        if client_params is not None
        else "keeps no session for the client's answer to come back to"
    )
    return (
        f"The server cannot ask the user anything during this call: it serves streamable HTTP "
        f"with {setting}=True, which {why}, so on MCP {protocol} no question can reach the "
        f"client mid-call. Serve it with {setting}=False; clients on MCP 2026-07-28 are asked "
        "either way."
    )


def _become_request_error(error: Exception) -> None:
    """Make ``error`` an instance of its own class and of ``MCPError`` (-32603) at once."""
    message = str(error)
    if _become(error, MCPError, {}):
        cast("MCPError", error).error = types.ErrorData(code=types.INTERNAL_ERROR, message=message)


def _become_tool_error(error: Exception, host: Host) -> None:
    """Make ``error`` an instance of its own class and of the host's tool error at once.

    The text of an `InvalidContent` quotes what the user sent, for the model to read; the
    server SDK's log must not keep it, so the filter of `_quiet_log` is put in place first.
    """
    _become(error, host.tool_error, host.tool_error_fields)
    if isinstance(error, InvalidContent):
        withhold_answer_values()


def _become(error: Exception, base: type[Exception], fields: Mapping[str, object]) -> bool:
    """Give ``error`` a class that subclasses both its own and ``base``; False if it did.

    ``fields`` are class attributes that ``base.__init__`` would have set, since it never
    runs for ``error``.
    """
    kind = type(error)
    if issubclass(kind, base):
        return False
    both = _BOTH.get((kind, base))
    if both is None:
        namespace = {"__module__": kind.__module__, **fields}
        both = _BOTH[kind, base] = new_class(
            kind.__name__, (kind, base), {}, lambda ns: ns.update(namespace)
        )
    error.__class__ = both
    return True


# (error class, base) -> their subclass; a handful of entries at most.
_BOTH: dict[tuple[type[Exception], type[Exception]], type[Exception]] = {}
