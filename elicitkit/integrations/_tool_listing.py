"""The router's handler of ``tools/list`` on a server with ``answer_form``: who sees it.

``answer_form`` is for clients that cannot show forms; a client that can is never offered
it (see `_answer_form`). Whether it can is what ``ask()`` would find out on this request:
the channel's own answer, so the listing and the asking never disagree.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from elicitkit.errors import ElicitationUnsupported
from elicitkit.integrations._answer_form import Companion, without_answer_tool
from elicitkit.integrations._channel import SdkChannel
from elicitkit.integrations._host import Host


class ToolListing:
    """Leaves ``answer_form`` out of ``tools/list`` for a client that can show forms."""

    def __init__(self, host: Host, companion: Companion | None) -> None:
        """List for ``host``; ``companion``: the server's ``answer_form`` (``None``: none)."""
        self._host = host
        self._companion = companion

    def claims(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """A ``tools/list`` of a server that registered ``answer_form``."""
        return self._companion is not None and ctx.method == "tools/list"

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """List the tools; leave ``answer_form`` out for a client that can show forms."""
        result = await call_next(ctx)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        try:
            can_show_forms = SdkChannel(ctx, modern=modern, host=self._host).why_no_forms() is None
        except ElicitationUnsupported:  # the server's transport: no question mid-call
            can_show_forms = False
        return without_answer_tool(result) if can_show_forms else result
