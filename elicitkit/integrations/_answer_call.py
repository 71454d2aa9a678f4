"""The router's handler of a call of ``answer_form``: the model's answers, run as a round.

The companion tool's own function never runs (see `_answer_form`): this handler opens the
ticket, refuses a bad one before anything runs, and runs the ticket's tool again through
the replay with the answers, through the asking call's round (`AskingCall.run_round`), so
the same form checks them and the dialogue completes at most once.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit._replay.once import AFRESH, RoundLease
from elicitkit._replay.state import Replay
from elicitkit._replay.ticket import TicketRefused
from elicitkit._runtime.context import current_run
from elicitkit._runtime.model_listing import ANSWER_TOOL
from elicitkit.integrations._asking_call import AskingCall
from elicitkit.integrations._outcomes import OUTCOMES, RoundOutcomes, error_outcome


class AnswerFormCall:
    """Serves ``answer_form`` for a server installed with ``on_unsupported="ask_model"``."""

    def __init__(self, asking: AskingCall) -> None:
        """Run the ticket's tool through ``asking``, which holds the server's companion."""
        self._asking = asking

    def claims(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """A ``tools/call`` of ``answer_form``, on a server that registered it."""
        return (
            self._asking.companion is not None
            and ctx.method == "tools/call"
            and ctx.request_id is not None
            and (ctx.params or {}).get("name") == ANSWER_TOOL
        )

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Answer ``answer_form``: run the ticket's tool again with the model's answers.

        Everything about the ticket is checked before anything runs. The tool then runs as
        a later round of its dialogue (`AtMostOnce.run`): a completed dialogue gets its
        recorded result back, so a ticket sent twice does not run the tool twice.
        """
        asking = self._asking
        companion = asking.companion
        assert companion is not None  # noqa: S101  (claims() checked it)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        try:
            ticket, responses = companion.open(ctx)
        except TicketRefused as refused:
            return error_outcome("tools/call", str(refused))
        replay = Replay.from_request(responses, ticket.state, asking.limits)
        if replay.dialogue is None or replay.dialogue != ticket.dialogue:
            return error_outcome("tools/call", _NOT_A_DIALOGUE)
        kept = {
            key: value
            for key, value in (ctx.params or {}).items()
            if key not in ("name", "arguments", "requestState", "inputResponses")
        }
        inner = replace(ctx, params={**kept, "name": ticket.tool, "arguments": ticket.arguments})
        run = asking.new_run(inner, replay, modern=modern)
        run.keys.for_the_model.update(ticket.model_keys)
        outcomes = RoundOutcomes(OUTCOMES["tools/call"])
        token = current_run.set(run)
        run.lease = RoundLease(asking.once, replay.dialogue)
        try:
            result = await asking.once.run(
                replay.dialogue,
                functools.partial(
                    asking.run_round, inner, call_next, run, outcomes, answering=True
                ),
                outcomes,
                known=replay.known,
                lease=run.lease,
            )
        except MCPError as error:
            # A protocol error means nothing to a model (an interrupted or forgotten call,
            # an error the tool raised): it gets a tool error it can act on.
            return error_outcome("tools/call", for_the_model(error.error.message, ticket.tool))
        finally:
            current_run.reset(token)
        if isinstance(result, types.CallToolResult) and result.is_error:
            return _rewritten(result, ticket.tool)
        return result


def for_the_model(message: str, tool: str) -> str:
    """``message`` with its advice to resend "without requestState" made a model's next move.

    A model never holds a ``requestState``: to start afresh it calls the tool itself again,
    which gives it a fresh form and ticket.
    """
    return message.replace(
        AFRESH, f"the call afresh: call the tool {tool!r} again (not {ANSWER_TOOL}) for a new form"
    )


def _rewritten(result: types.CallToolResult, tool: str) -> types.CallToolResult:
    content = [
        block.model_copy(update={"text": for_the_model(block.text, tool)})
        if isinstance(block, types.TextContent)
        else block
        for block in result.content
    ]
    return result.model_copy(update={"content": content})


_NOT_A_DIALOGUE = (
    f"The ticket passed to {ANSWER_TOOL} carries no dialogue this server can continue, so "
    "nothing was run. Call the tool again to get a fresh ticket."
)
