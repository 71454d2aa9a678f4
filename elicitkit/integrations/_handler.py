"""What one handler of elicitkit's request router is (see `_router.ElicitkitMiddleware`)."""

from __future__ import annotations

from enum import Enum
from typing import Any, Protocol

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext


class Pass(Enum):
    """A handler's answer when the request is not its to finish: the next handler's turn."""

    ON = "on"


class Handler(Protocol):
    """One feature of elicitkit's middleware, asked in the router's order."""

    def claims(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        """Whether this request is this handler's (cheap: the method, the tool's name)."""
        ...

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult | Pass:
        """Serve a request it claims, with the SDK's own handling as ``call_next``.

        ``Pass.ON`` hands the request to the next handler, as if this one had not claimed it.
        """
        ...
