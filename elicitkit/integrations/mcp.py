"""elicitkit on the official MCP Python SDK (``mcp`` 2.3+): ``install(MCPServer)``.

One server middleware does everything:

* it records the call in elicitkit's context variable, so ``ask()`` needs no ``ctx``
  parameter (the SDK has no context variable of its own);
* on handshake eras (2025-06-18, 2025-11-25) ``ask()`` sends ``elicitation/create`` on the
  call's own stream and waits for the answer;
* on 2026-07-28 it turns the run-ending `NeedInput` into an ``InputRequiredResult`` and
  reads the answers back on the client's retry. The SDK's ``RequestStateBoundary`` (installed
  by every ``MCPServer``) seals the ``requestState`` with AES-GCM and binds it to the tool
  name, the arguments, the server and the principal, with a 10-minute expiry; this
  middleware sits inside it, so it only ever sees state the server itself minted.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import new_class
from typing import Any, Literal, cast

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.request_state import RequestStateBoundary
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from elicitkit._compat import BaseExceptionGroup
from elicitkit._errors import (
    ClientDisconnected,
    ElicitationFailed,
    ElicitationUnsupported,
    ElicitError,
    FormDefinitionError,
)
from elicitkit._replay import NeedInput, Replay
from elicitkit._run import ToolRun, current_run
from elicitkit._wire_values import sendable_text

logger = logging.getLogger(__name__)


def install(server: MCPServer[Any]) -> None:
    """Add elicitkit's middleware to ``server`` (once).

    Raises:
        TypeError: The server has no ``RequestStateBoundary`` (someone removed it), so the
            answers carried between rounds on 2026-07-28 would travel unsealed.
    """
    chain = server.middleware
    if any(middleware is elicitkit_middleware for middleware in chain):
        return
    if not any(isinstance(middleware, RequestStateBoundary) for middleware in chain):
        raise TypeError(
            "Cannot install elicitkit on this MCPServer: its middleware has no "
            "RequestStateBoundary, so answers carried between rounds would travel unsealed. "
            "Keep the boundary MCPServer installs by default."
        )
    # Appended, so it runs inside the boundary: it sees requestState already verified.
    chain.append(elicitkit_middleware)


async def elicitkit_middleware(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """Run a ``tools/call`` with elicitkit's per-call state; pass everything else through."""
    if ctx.method != "tools/call" or ctx.request_id is None:
        return await call_next(ctx)
    modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
    params = ctx.params or {}
    replay = (
        Replay.from_request(params.get("inputResponses"), params.get("requestState"))
        if modern
        else None
    )
    token = current_run.set(ToolRun(_Channel(ctx, modern=modern), replay))
    try:
        return await call_next(ctx)
    except BaseException as signal:  # noqa: BLE001  (our question, else re-raised by _failure)
        need = _need_input(signal)
        if need is None or replay is None:
            return _failure(signal, tool=str(params.get("name")))
        return types.InputRequiredResult(
            input_requests={
                need.key: types.ElicitRequest.model_validate(
                    {"method": "elicitation/create", "params": need.params}
                )
            },
            request_state=replay.next_state(pending=need.key),
        )
    finally:
        current_run.reset(token)


def _failure(signal: BaseException, *, tool: str) -> types.CallToolResult:
    """Report a run that failed beside an unanswered ask() in a task group, or re-raise.

    A task group that holds a `NeedInput` is a `BaseExceptionGroup`, which the SDK's tool
    runner lets through. Without the question it is an ordinary crash: report it as the SDK
    reports one, with only the tool's name for the client and the traceback in the log.
    """
    if not isinstance(signal, BaseExceptionGroup):
        raise signal
    group = cast("BaseExceptionGroup[BaseException]", signal)
    questions, others = group.split(NeedInput)
    if questions is None or others is None or not isinstance(others, Exception):
        raise signal  # no question in it, or a cancellation: not ours to handle
    logger.error("Error executing tool %s", tool, exc_info=others)
    text = types.TextContent(type="text", text=f"Error executing tool {tool}")
    return types.CallToolResult(content=[text], is_error=True)


def _need_input(signal: BaseException) -> NeedInput | None:
    """The question that ended the run, also from inside task groups (only if alone)."""
    if isinstance(signal, NeedInput):
        return signal
    if isinstance(signal, BaseExceptionGroup):
        group = cast("BaseExceptionGroup[BaseException]", signal)
        questions, others = group.split(NeedInput)
        if questions is not None and others is None:
            first: BaseException = questions
            while isinstance(first, BaseExceptionGroup):
                first = cast("BaseExceptionGroup[BaseException]", first).exceptions[0]
            return cast("NeedInput", first)
    return None


class _ElicitationCreate(BaseModel):
    """``elicitation/create`` with the params exactly as rendered for the version.

    The SDK's own request model always writes ``mode``, which 2025-06-18 does not have.
    """

    method: Literal["elicitation/create"] = "elicitation/create"
    params: dict[str, Any]


class _Channel:
    """``ask()``'s view of one ``tools/call`` on the official SDK."""

    def __init__(self, ctx: ServerRequestContext[Any, Any], *, modern: bool) -> None:
        self._ctx = ctx
        self._modern = modern

    @property
    def protocol(self) -> str:
        return self._ctx.protocol_version

    def why_no_forms(self) -> str | None:
        """Say why the client cannot show a form (see `Channel.why_no_forms`).

        Raises:
            ElicitationUnsupported: The server's own transport setting forbids a request
                mid-call; the message names the setting rather than blaming the client.
        """
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

    async def send(self, params: dict[str, Any]) -> Mapping[str, Any]:
        request = cast("types.ServerRequest", _ElicitationCreate(params=params))
        try:
            result = await self._ctx.session.send_request(
                request,
                types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id),
            )
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED:
                raise self.surface(ClientDisconnected(_DISCONNECTED)) from None
            raise self.surface(
                ElicitationFailed(
                    f"The client answered the form with an error instead of an answer: "
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
                    f"The client's answer to the form is not an elicitation result ({problems})."
                )
            ) from None
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    def surface(self, error: ElicitError | FormDefinitionError) -> BaseException:
        """Make ``error`` reach the client readably if the tool does not catch it.

        The SDK shows the model a crash as a bare "Error executing tool NAME"; only a
        ``ToolError`` keeps its text. So the error's class becomes a subclass of both its
        own class (``except InvalidContent`` still works) and ``ToolError``.

        On 2026-07-28 a client without the capability gets the spec's
        MissingRequiredClientCapability error instead (-32021): an uncaught
        `ElicitationUnsupported` means the tool required a capability the client lacks.
        """
        if self._modern and isinstance(error, ElicitationUnsupported):
            error.__class__ = _MissingCapability
            missing = cast("_MissingCapability", error)
            missing.error = types.ErrorData(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=str(error.args[0]),
                data={"requiredCapabilities": {"elicitation": {"form": {}}}},
            )
            return error
        _become_tool_error(error)
        return error


class _MissingCapability(ElicitationUnsupported, MCPError):
    """`ElicitationUnsupported` that the SDK sends as a -32021 JSON-RPC error."""

    def __str__(self) -> str:
        return self.error.message


_MAX_CLIENT_TEXT = 300  # characters of a client's error message passed on to the model


def _client_text(text: str) -> str:
    """A client's own words, sendable and of bounded length (a client may send a megabyte)."""
    text = sendable_text(text[: _MAX_CLIENT_TEXT + 1])
    return text if len(text) <= _MAX_CLIENT_TEXT else text[: _MAX_CLIENT_TEXT - 3] + "..."


_DISCONNECTED = (
    "The client disconnected while the form was open, so there is no answer, and nothing "
    "more can reach that client on this call. Clean up and return."
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


_TOOL_ERRORS: dict[type[Exception], type[Exception]] = {}


def _become_tool_error(error: Exception) -> None:
    kind = type(error)
    if issubclass(kind, ToolError):
        return
    if kind not in _TOOL_ERRORS:
        module = {"__module__": kind.__module__}
        _TOOL_ERRORS[kind] = new_class(
            kind.__name__, (kind, ToolError), {}, lambda ns: ns.update(module)
        )
    error.__class__ = _TOOL_ERRORS[kind]
