"""``ask()``'s channel on the official SDK's server layer: the `Channel` of one request.

It sends ``elicitation/create`` on the call's own stream (the 2025 eras), tells why a
client cannot show a form or open a link, notifies a URL-mode completion, and makes an
elicitkit error that escapes the tool reach the client readably (`surface`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from typing import Any, Literal, cast

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from pydantic import BaseModel, ValidationError

from elicitkit._compiler.wire_formats import sendable_text
from elicitkit._replay.tasks import TASKS_EXTENSION
from elicitkit._runtime.timeouts import timed_out
from elicitkit._runtime.url_routes import AskingSession
from elicitkit.errors import (
    ClientDisconnected,
    ElicitationFailed,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitError,
    FormDefinitionError,
    TasksUnsupported,
)
from elicitkit.integrations._host import Host
from elicitkit.integrations._sdk_errors import (
    MissingCapability,
    MissingTasks,
    UrlRequired,
    become_request_error,
    become_tool_error,
)
from elicitkit.integrations._sdk_private import connection_of


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


class SdkChannel:
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
            raise ElicitationTimeout(timed_out(within or 0.0, link=link)) from None
        except MCPError as error:
            if error.code == types.CONNECTION_CLOSED:
                raise ClientDisconnected(_disconnected(shown)) from None
            raise ElicitationFailed(
                f"The client answered the {shown} with an error instead of an answer: "
                f"{_client_text(error.message)} (code {error.code})."
            ) from None
        except ValidationError as error:  # the SDK checks the result's shape
            problems = "; ".join(
                f"{'.'.join(map(str, problem['loc'])) or 'result'}: {problem['msg']}"
                for problem in error.errors(include_url=False)
            )
            raise ElicitationFailed(
                f"The client's answer to the {shown} is not an elicitation result ({problems})."
            ) from None
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    def why_no_url(self) -> str | None:
        """Say why the client cannot open a URL (see `UrlChannel.why_no_url`)."""
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
        """Notify this call's session only (see `UrlChannel.completion_notifier`)."""
        session = self._ctx.session

        async def notify() -> None:
            await session.send_elicit_complete(elicitation_id)

        return notify

    @property
    def session(self) -> AskingSession:
        """This call's connection, told when it closes (see `UrlChannel.session`)."""
        connection = connection_of(self._ctx.session)
        if connection is None:  # an SDK that moved it: bounded per call, ended by expiry
            return _ConnectionEnd(None)
        found = connection.state.get(_CONNECTION_END)
        if not isinstance(found, _ConnectionEnd):
            found = connection.state[_CONNECTION_END] = _ConnectionEnd(connection.exit_stack)
        return found

    def url_required(self, message: str, url: str, elicitation_id: str) -> BaseException:
        """The SDK's -32042 error for one URL (see `UrlChannel.url_required`)."""
        error = UrlRequired(
            [types.ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation_id)]
        )
        if self._host.masks_mcp_errors:
            become_tool_error(error, self._host)
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
            error.__class__ = MissingTasks
            missing_tasks = cast("MissingTasks", error)
            missing_tasks.error = types.ErrorData(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=str(error.args[0]),
                data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
            )
            return error
        if self._modern and isinstance(error, ElicitationUnsupported):
            error.__class__ = MissingCapability
            missing = cast("MissingCapability", error)
            missing.error = types.ErrorData(
                code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=str(error.args[0]),
                data={"requiredCapabilities": {"elicitation": {"form": {}}}},
            )
            return error
        if self._ctx.method != "tools/call":
            become_request_error(error)
            return error
        become_tool_error(error, self._host)
        return error


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
