"""The router's handler of ``@fill_missing``'s check of a tool's arguments, before the SDK's.

A ``@fill_missing`` tool's function carries the check (`ARGUMENTS_CHECK`): the values the
model gave are checked by the same form that would ask for the missing ones, so one that
does not fit gets the form's per-field message rather than the server SDK's validation
error. The tool is looked up by the name it is registered under, which need not be its
function's (``@server.tool(name="other")``); only in a process where some tool uses
``@fill_missing``, so no other server reads the SDK's tool table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from elicitkit._runtime import missing_arguments as fill
from elicitkit._runtime.missing_arguments import ARGUMENTS_CHECK
from elicitkit._runtime.model_listing import HandedToModel
from elicitkit.integrations._handler import Pass
from elicitkit.integrations._host import Host
from elicitkit.integrations._outcomes import handed_result


class ArgumentsCheck:
    """Refuses a ``@fill_missing`` tool's arguments that its form would refuse."""

    def __init__(self, host: Host) -> None:
        """Find the called tool's function through ``host``."""
        self.host = host

    def claims(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """A ``tools/call``, in a process where some tool uses ``@fill_missing``.

        Which tool does is known only from its function, found by the name the tool is
        registered under (``@server.tool(name=...)`` need not be the function's).
        """
        return (
            bool(fill.checked_tools)
            and self.host.tool_function is not None
            and ctx.method == "tools/call"
            and ctx.request_id is not None
        )

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult | Pass:
        """The form's refusal of the arguments, or ``Pass.ON`` when they fit."""
        del call_next  # the call itself is the asking call's to run
        refused = await self._check_arguments(ctx.params or {})
        return Pass.ON if refused is None else refused

    async def _check_arguments(self, params: Mapping[str, Any]) -> HandlerResult | None:
        """The form's refusal of a ``@fill_missing`` tool's arguments, before the SDK checks."""
        if self.host.tool_function is None:
            return None
        function = await self.host.tool_function(str(params.get("name")))
        check: object = getattr(function, ARGUMENTS_CHECK, None)
        if not callable(check):
            return None
        handed: object = check(params.get("arguments"))
        return handed_result(handed) if isinstance(handed, HandedToModel) else None
