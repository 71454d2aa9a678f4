"""elicitkit's middleware in the SDK's server layer: a short router over one handler per feature.

Each request goes to the first handler, in `ElicitkitMiddleware.handlers` order, that claims
it; a request no handler claims (or every claimant passes on) goes to the SDK unchanged.
The order matters where two handlers could claim one request: ``answer_form`` is a tool
call, which the asking call would otherwise run as the companion's stub; and the
``@fill_missing`` check must answer before the asking call runs the tool. It is pinned by
tests/test_router.py.

1. `TaskRequests`: the Tasks extension's ``tasks/*`` requests, and its advertisement in
   ``server/discover``.
2. `ToolListing`: ``tools/list`` without ``answer_form`` for a client that can show forms.
3. `AnswerFormCall`: a call of ``answer_form``, the model's answers run as a round.
4. `ArgumentsCheck`: a ``@fill_missing`` tool's arguments, refused by its form.
5. `AskingCall`: a tool, prompt or resource handler that may ask, at most once per dialogue.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types.methods import SERVER_RESULTS, serialize_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.once import AtMostOnce, Codec
from elicitkit._replay.store import OutcomeStore
from elicitkit._runtime.task_engine import TaskEngine
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit._runtime.url_routes import UrlRouter
from elicitkit.integrations._answer_call import AnswerFormCall
from elicitkit.integrations._answer_form import Companion
from elicitkit.integrations._arguments_check import ArgumentsCheck
from elicitkit.integrations._asking_call import AskingCall
from elicitkit.integrations._handler import Handler, Pass
from elicitkit.integrations._host import Host
from elicitkit.integrations._task_legs import TaskLegs
from elicitkit.integrations._task_requests import TaskRequests
from elicitkit.integrations._tool_listing import ToolListing


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
        url_router: UrlRouter | None = None,
        tasks: TaskEngine,
        on_unsupported: OnUnsupported = "raise",
        companion: Companion | None = None,
        codec: Codec | None = None,
        docket_url: str | None = None,
        docket_name: str = "elicitkit",
    ) -> None:
        """Serve ``host``'s requests, recording outcomes in ``store`` for ``keep`` seconds.

        ``url_router`` is the server's URL-mode router; ``None``: the process default.
        ``tasks`` runs and keeps the tasks of ``go_async()``.
        ``on_unsupported`` is the server's policy for clients that cannot show forms, and
        ``companion`` its ``answer_form`` (with ``"ask_model"``). ``codec`` seals every
        record at rest (the server's ``requestState`` codec). The legs of tasks run on a
        Docket: on Redis at ``docket_url`` (named ``docket_name``, shared by every worker),
        or embedded in this process when it is ``None``.
        """
        self.host = host
        self.limits = limits
        self.once = AtMostOnce(store, keep=keep, wait=wait, codec=codec)
        self.router = url_router
        self.tasks = tasks
        self.on_unsupported: OnUnsupported = on_unsupported
        self.companion = companion
        asking = AskingCall(
            host,
            limits=limits,
            once=self.once,
            url_router=url_router,
            tasks=self.tasks,
            on_unsupported=on_unsupported,
            companion=companion,
        )
        task_requests = TaskRequests(self.tasks)
        self.legs = TaskLegs(self.tasks, asking, url=docket_url, name=docket_name)
        asking.legs = task_requests.legs = self.legs
        self.handlers: tuple[Handler, ...] = (
            task_requests,
            ToolListing(host, companion),
            AnswerFormCall(asking),
            ArgumentsCheck(host),
            asking,
        )

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
        """Give the request to the first handler that claims it; else to the SDK."""
        for handler in self.handlers:
            if handler.claims(ctx):
                result = await handler(ctx, call_next)
                if result is not Pass.ON:
                    return _for_the_era(ctx, result)
        return await call_next(ctx)


def _for_the_era(ctx: ServerRequestContext[Any, Any], result: HandlerResult) -> HandlerResult:
    """``result`` as the 2025 era's schema has it, as the SDK shapes its handlers' results.

    A result a middleware returns skips the SDK's per-version sieve, and the SDK's result
    models carry 2026-07-28 fields (``resultType: "complete"`` by default): a listing for
    the model, a tool error or a recorded outcome would reach a 2025 client with them. On
    2026-07-28 the result is sent as built: its fields (``input_required``, a task) are
    that era's.
    """
    version = ctx.protocol_version
    if version in MODERN_PROTOCOL_VERSIONS or (ctx.method, version) not in SERVER_RESULTS:
        return result
    if isinstance(result, BaseModel):
        return serialize_server_result(
            ctx.method, version, result.model_dump(by_alias=True, mode="json", exclude_none=True)
        )
    if isinstance(result, dict):
        return serialize_server_result(ctx.method, version, result)
    return result
