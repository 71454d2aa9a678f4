"""The companion tool ``answer_form``: how the model hands a user's answers back to a tool.

Registered by ``install(server, on_unsupported="ask_model")`` on either server SDK. Its
function never runs: elicitkit's SDK-layer middleware answers every call of it (see
`Companion` and ``ElicitkitMiddleware``): it opens the ticket, refuses a bad one before
anything runs, and runs the original tool again through the replay with the answers, so
the same form checks them and the dialogue completes at most once.

Hidden from clients that can show forms: ``tools/list`` leaves it out for a request whose
client declares form elicitation. On 2026-07-28 that is decided per request (each request
carries the client's capabilities); on the 2025 eras per session, from the capabilities
the client declared in ``initialize``. A client that cannot be asked mid-call for a reason
of the server's own transport (``stateless_http``/``json_response`` on a 2025 era) sees it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, cast

import mcp_types as types
from mcp.server.context import HandlerResult, ServerRequestContext
from mcp.server.request_state import RequestStateSecurity, authenticated_principal

from elicitkit._replay.state import WireQuestion
from elicitkit._replay.ticket import Codec, Ticket, TicketRefused, Tickets
from elicitkit._runtime.model_listing import ANSWER_TOOL, listing
from elicitkit._runtime.output_fit import admits
from elicitkit._runtime.retries import RETRY_MARK

OutputSchemaOf = Callable[[str], Awaitable[Mapping[str, Any] | None]]
"""The output schema a tool declares (``None``: none), as the server lists it."""

_ACTIONS = ("accept", "decline", "cancel")


async def answer_form(
    ticket: str,
    answers: dict[str, Any] | None = None,
    action: Literal["accept", "decline", "cancel"] = "accept",
) -> str:
    """Give a tool the user's answers, with the ticket it returned.

    Never runs: elicitkit's middleware answers the call before the server's tool runner
    (installing elicitkit is what registers this tool).
    """
    del ticket, answers, action
    raise RuntimeError(
        f"The {ANSWER_TOOL} tool ran without elicitkit's middleware, so the answers cannot "
        "reach the tool that asked. Keep elicitkit installed on the server that serves it."
    )


class Companion:
    """One server's ``answer_form``: its tickets, and what the middleware asks of it."""

    def __init__(
        self,
        codec: Codec,
        *,
        ttl: float,
        audience: str | None,
        security: RequestStateSecurity | None,
        output_schema: OutputSchemaOf,
    ) -> None:
        """Seal tickets with ``codec`` for ``ttl`` seconds, bound like the server's state.

        ``security`` is the server's request-state policy, for its principal binding
        (``None``: the SDK's default, the authenticated principal).
        """
        self.tickets = Tickets(codec, ttl=ttl, audience=audience)
        binding = authenticated_principal if security is None else security.bind_principal
        self._bind_principal = binding
        self._output_schema = output_schema

    def principal(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The principal a ticket of this request is bound to (as the SDK binds state)."""
        return None if self._bind_principal is None else self._bind_principal(ctx)

    async def ticket_result(
        self,
        ctx: ServerRequestContext[Any, Any],
        *,
        tool: str,
        arguments: dict[str, Any],
        dialogue: str,
        state: str,
        questions: tuple[WireQuestion, ...],
        model_keys: set[str],
        corrections: Mapping[str, list[tuple[str | None, str]]],
        answering: bool,
    ) -> types.CallToolResult:
        """The result that hands ``questions`` to the model with a fresh ticket.

        A normal result wherever the client will accept one. A tool called directly that
        declares an output schema gets one only if its schema admits the listing with the
        text under ``result`` (as ``-> str`` does, wrapped by both SDKs): the client checks
        every successful result against that schema and rejects one that does not fit.
        Where it does not fit, the same listing (without ``result``) comes as a tool
        error. From ``answer_form``, which declares no output schema and is the tool the
        client checks against, it is always a normal result.
        """
        ticket = Ticket(
            tool,
            arguments,
            state,
            dialogue,
            tuple(question.key for question in questions),
            tuple(sorted(model_keys)),
        )
        sealed = self.tickets.seal(ticket, principal=self.principal(ctx))
        text, structured = listing(tool, sealed, questions, corrections)
        content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
        schema = None if answering else await self._output_schema(tool)
        if schema is None:
            return types.CallToolResult(content=content, structured_content=structured)
        # result last: a client that prints structuredContent cut short shows the ticket.
        normal = {**structured, "result": text}
        if admits(schema, normal):
            return types.CallToolResult(content=content, structured_content=normal)
        return types.CallToolResult(content=content, structured_content=structured, is_error=True)

    def open(self, ctx: ServerRequestContext[Any, Any]) -> tuple[Ticket, dict[str, Any]]:
        """Read a call of ``answer_form``: its ticket, and the answers as ``inputResponses``.

        Raises:
            TicketRefused: The arguments are malformed, or the ticket cannot be used; the
                message (for the model) says why and what to do. Nothing has run.
        """
        arguments: object = (ctx.params or {}).get("arguments")
        if not isinstance(arguments, Mapping):
            raise TicketRefused(_USAGE)
        given = cast("Mapping[str, object]", arguments)
        action = given.get("action", "accept")
        if action not in _ACTIONS:
            raise TicketRefused(
                f"{ANSWER_TOOL} got action {action!r}, which is not 'accept', 'decline' or "
                "'cancel', so nothing was run. Pass 'accept' with the user's answers, or "
                "'decline' or 'cancel'."
            )
        ticket = self.tickets.open(given.get("ticket"), principal=self.principal(ctx))
        answers = given.get("answers")
        if action != "accept":
            return ticket, {key: {"action": action} for key in ticket.questions}
        if answers is None:  # a link the user is done with; a form: every field missing
            answers = {}
        if not isinstance(answers, Mapping):
            raise TicketRefused(
                f"{ANSWER_TOOL} got answers that are not an object, so nothing was run. Pass "
                "the user's answers as an object of the fields by name, or action 'decline'."
            )
        content = cast("Mapping[str, object]", answers)
        if len(ticket.questions) == 1:
            return ticket, {ticket.questions[0]: {"action": "accept", "content": dict(content)}}
        responses: dict[str, Any] = {}
        for key in ticket.questions:
            part = content.get(key)
            if isinstance(part, Mapping):  # a question left out is listed again
                fields = cast("Mapping[str, object]", part)
                responses[key] = {"action": "accept", "content": dict(fields)}
        return ticket, responses


_USAGE = (
    f"{ANSWER_TOOL} takes an object with ticket (the ticket a tool returned) and answers "
    "(the user's answers, an object), so nothing was run. Call it as the tool's listing says."
)


def corrections_of(
    answers: Mapping[str, Any], questions: tuple[WireQuestion, ...]
) -> dict[str, list[tuple[str | None, str]]]:
    """Per re-asked question, the field problems of the answer that came before it.

    A re-ask's key is its question's key, ``~`` and the attempt (`RETRY_MARK`); the answer
    it corrects was carried as ``"invalid"`` under the previous attempt's key.
    """
    found: dict[str, list[tuple[str | None, str]]] = {}
    for question in questions:
        base, mark, attempt = question.key.rpartition(RETRY_MARK)
        if not mark or not attempt.isdigit():
            continue
        previous = base if attempt == "1" else f"{base}{RETRY_MARK}{int(attempt) - 1}"
        carried = answers.get(previous)
        action: object = getattr(carried, "action", None)
        if action == "invalid":
            values: object = getattr(carried, "values", [])
            pairs = cast("list[object]", values) if isinstance(values, list) else []
            found[question.key] = [
                (_field_name(pair[0]), str(pair[1]))
                for pair in (cast("list[object]", p) for p in pairs if isinstance(p, list))
                if len(pair) == 2
            ]
    return found


def without_answer_tool(result: HandlerResult) -> HandlerResult:
    """A ``tools/list`` result with ``answer_form`` left out."""
    if isinstance(result, types.ListToolsResult):
        tools = [tool for tool in result.tools if tool.name != ANSWER_TOOL]
        return result.model_copy(update={"tools": tools})
    if isinstance(result, Mapping):
        listed = cast("Mapping[str, Any]", result)
        tools_raw: object = listed.get("tools")
        if isinstance(tools_raw, list):
            kept = [tool for tool in cast("list[object]", tools_raw) if not _is_answer_tool(tool)]
            return cast("HandlerResult", {**listed, "tools": kept})
    return result


def _is_answer_tool(tool: object) -> bool:
    return (
        isinstance(tool, Mapping) and cast("Mapping[str, object]", tool).get("name") == ANSWER_TOOL
    )


def _field_name(value: object) -> str | None:
    return value if isinstance(value, str) else None
