"""The SDK's outcomes of the methods that may ask, as `AtMostOnce` records and replays them.

On 2026-07-28 a dialogue completes at most once (`elicitkit._replay.once.AtMostOnce` keeps
the books); this module tells it how the SDK's results and errors become records and
back, and which results end a round without ending the dialogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn, cast

import mcp_types as types
from mcp.server.context import HandlerResult
from mcp.shared.exceptions import MCPError
from mcp_types.methods import is_input_required
from pydantic import BaseModel

from elicitkit._runtime.model_listing import HandedToModel

# The methods whose handlers may ask: the multi-round carriers of 2026-07-28.
ASKING_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
_RESULT_TYPES: dict[str, type[BaseModel]] = {
    "tools/call": types.CallToolResult,
    "prompts/get": types.GetPromptResult,
    "resources/read": types.ReadResourceResult,
}


class RoundOutcomes:
    """A method's outcomes for one request, knowing whether its round issued a ticket.

    A round that hands its questions to the model ends with a normal tool result, but its
    dialogue goes on (like an ``InputRequiredResult``): it is opened or released in the
    store, never recorded as the dialogue's outcome.
    """

    def __init__(self, base: SdkOutcomes) -> None:
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


class SdkOutcomes:
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
        return error_outcome(self._method, message)


OUTCOMES = {method: SdkOutcomes(method) for method in ASKING_METHODS}


def error_outcome(method: str, message: str) -> HandlerResult:
    """Report a problem of the dialogue itself: a tool error, or a JSON-RPC error elsewhere."""
    if method == "tools/call":
        text = types.TextContent(type="text", text=message)
        return types.CallToolResult(content=[text], is_error=True)
    raise MCPError(code=types.INTERNAL_ERROR, message=message)


def handed_result(handed: HandedToModel) -> types.CallToolResult:
    """``@fill_missing``'s result for the model: text, and ``result`` beside the structure.

    ``result`` holds the text, as the tool's wrapped output schema (widened to admit text)
    expects of a normal result.
    """
    text = types.TextContent(type="text", text=handed.text)
    structured = {"result": handed.text, **handed.structured}
    return types.CallToolResult(
        content=[text], structured_content=structured, is_error=handed.error
    )
