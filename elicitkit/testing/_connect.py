"""`connect`: the real SDK client on a chosen protocol era, behaving like a client profile."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from pydantic import TypeAdapter

from elicitkit._client.facts import ClientProfile
from elicitkit._client.spec_keys import unknown_key
from elicitkit._client.tuned_client import TunedClient
from elicitkit._client.untouched import filled_when_untouched, input_value, untouched_value
from elicitkit.integrations import client_target
from elicitkit.protocol import LATEST_PROTOCOL, ProtocolVersion, check_protocol
from elicitkit.testing._task_wire import FollowingTasks
from elicitkit.testing._user import CLEARED, FormRequest, ScriptedUser, ScriptError

_ELICIT_PARAMS: TypeAdapter[types.ElicitRequestParams] = TypeAdapter(types.ElicitRequestParams)

REQUEST_TIMEOUT = -32001  # the SDKs' "Request timed out" code
CLIENT_SIDE_SCHEMA_FAILURE = "Protocol value failed schema validation"
"""What the MCP Inspector shows when its own SDK refuses its answer on 2026-07-28."""
USER_CANCELLED = "User cancelled elicitation request"
"""What the mcp-use Inspector answers (error -32603) or shows when its Cancel is pressed."""
URL_MODE_FAILED = "URL mode elicitation failed"
"""The message of a ``url_mode_fails`` profile's error -32603 (the real words were not recorded)."""
HANG_SECONDS = 1.0
"""How long a ``never-renders`` client keeps a form open before timing out, by default."""


@asynccontextmanager
async def connect(
    server: Any,
    *,
    protocol: str = LATEST_PROTOCOL,
    user: ScriptedUser | None = None,
    profile: ClientProfile | None = None,
    hang_seconds: float = HANG_SECONDS,
    tasks: bool = True,
) -> AsyncGenerator[Client]:
    """Connect the real SDK client (``mcp.Client``) to ``server``, answering forms with ``user``.

    Args:
        server: An ``MCPServer`` or a ``fastmcp.FastMCP`` (connected in memory), or
            anything ``mcp.Client`` accepts: a ``StdioServerParameters`` (a server process
            over stdio), a URL (streamable HTTP), a ``Transport``.
        protocol: The version to speak. 2025-06-18 is negotiated by the initialize
            handshake, which ``mcp.Client`` alone cannot do (it always offers 2025-11-25).
        user: Who answers the forms; by default a `ScriptedUser` with no answers, so any
            form fails the test.
        profile: How the client behaves (`PROFILES`, `KNOWN_CLIENTS`); by default a client
            that does everything right. A profile that does not speak ``protocol`` speaks the
            newest version it has, as a real client would.
        hang_seconds: How long a profile that never renders keeps the form open; then the
            request fails with "Request timed out" (-32001).
        tasks: On 2026-07-28, declare the Tasks extension and follow a task to its end:
            ``call_tool`` polls it, answers its questions through ``user``, sends
            ``tasks/cancel`` if the call is cancelled, and returns the tool's result (a
            failed task raises its JSON-RPC error; a cancelled one is an error result).

    Yields:
        The connected client; ``client.protocol_version`` is the version spoken.

    Raises:
        ScriptError: On leaving, when a form arrived that the script had no answer for, or
            an ``accept`` named a field the form does not have.
    """
    wanted = check_protocol(protocol)
    version = _spoken(wanted, profile)
    scripted = user if user is not None else ScriptedUser()
    behaviour = ClientBehaviour(scripted, profile, version, hang_seconds)
    elicits = profile is None or profile.elicitation
    client = TunedClient(
        client_target(server),
        mode="legacy" if version != LATEST_PROTOCOL else version,
        elicitation_callback=behaviour.on_elicit if elicits else None,
        # On 2026-07-28 the client follows a task a tool goes on as (go_async()) to its end.
        extensions=[FollowingTasks(behaviour.on_task_question)]
        if version == LATEST_PROTOCOL and tasks
        else None,
        version=version,
        url_mode=profile is None or profile.url_mode,
    )
    try:
        async with client:
            yield client
    except Exception as error:
        if scripted.problems:
            raise ScriptError(scripted.problems[0]) from error
        raise
    if scripted.problems:
        raise ScriptError(scripted.problems[0])


def _spoken(wanted: ProtocolVersion, profile: ClientProfile | None) -> ProtocolVersion:
    if profile is None or wanted in profile.protocols:
        return wanted
    return profile.protocols[-1]


class ClientBehaviour:
    """The client side of a form: what the profile does before and after the user."""

    def __init__(
        self,
        user: ScriptedUser,
        profile: ClientProfile | None,
        protocol: ProtocolVersion,
        hang_seconds: float,
    ) -> None:
        self._user = user
        self._profile = profile
        self._protocol = protocol
        self._hang = hang_seconds

    async def on_elicit(
        self,
        context: ClientRequestContext,  # noqa: ARG002  (the SDK's callback signature)
        params: types.ElicitRequestParams,
    ) -> types.ElicitResult | types.ErrorData:
        raw = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        schema = raw.get("requestedSchema", {})
        request = FormRequest(self._protocol, str(raw.get("message", "")), schema, raw)
        if raw.get("mode") == "url" and self._profile is not None and self._profile.url_mode_fails:
            self._user.requests.append(request)
            answer: types.ElicitResult | types.ErrorData = types.ErrorData(
                code=types.INTERNAL_ERROR, message=URL_MODE_FAILED
            )
        else:
            answer = await self._answer(request)
        if isinstance(answer, types.ErrorData):
            request.sent = {"error": answer.model_dump(mode="json", exclude_none=True)}
        else:
            request.sent = answer.model_dump(mode="json", exclude_none=True)
        return answer

    async def on_task_question(self, params: dict[str, Any]) -> dict[str, Any]:
        """Answer an ``elicitation/create`` asked inside a task (its ``inputRequests``).

        The user sees it as any form; an error answer (a profile that times out) cannot
        travel in ``tasks/update``, so it goes as a cancel.
        """
        model = _ELICIT_PARAMS.validate_python(params)
        answer = await self.on_elicit(cast("ClientRequestContext", None), model)
        if isinstance(answer, types.ErrorData):
            return {"action": "cancel"}
        return answer.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def _answer(self, request: FormRequest) -> types.ElicitResult | types.ErrorData:
        schema = request.schema
        profile = self._profile
        if profile is not None:
            refusal = await self._before_user(profile, request)
            if refusal is not None:
                return refusal
        reply = await self._user.answer(request)
        while True:
            if reply is None:
                return types.ElicitResult(action="cancel")
            if reply.action != "accept":
                return _not_accepted(profile, reply.action)
            if profile is not None and not _has_widgets(profile, schema):
                # No input for a field: the client falls back to approve/decline, no content.
                return types.ElicitResult(action="accept")
            content = dict(reply.content or {})
            stop = _too_short(schema, content) if profile and profile.checks_min_length else None
            if stop is None:
                break
            # The form stays open with the error shown: the user's next reply answers it.
            request.stopped.append(stop)
            reply = await self._user.answer(request, again=True)
        if profile is None or profile.applies_defaults:
            content = _with_defaults(schema, content)
        if profile is not None and profile.fills_untouched:
            content = _filled(schema, content)
        if profile is not None and profile.fills_inputs:
            content = _filled(schema, content, input_value)
        if profile is not None and profile.must_answer_flags:
            skipped = _unanswered_flags(schema, content)
            if skipped is not None:
                self._user.problems.append(
                    f"The scripted answer to {request.message!r} leaves the optional field "
                    f"{skipped!r} unanswered, but the {profile.name} profile cannot leave an "
                    "optional yes/no or number empty. Give the field a value."
                )
                return types.ElicitResult(action="cancel")
        if profile is not None and profile.multi_select_as_text:
            content = _as_text(schema, content)
        return self._cleared(profile, request, content)

    def _cleared(
        self, profile: ClientProfile | None, request: FormRequest, content: dict[str, Any]
    ) -> types.ElicitResult | types.ErrorData:
        """The answer after the fields the user emptied (`CLEARED`) had their effect."""
        cleared = [key for key, value in content.items() if value is CLEARED]
        for key in cleared:
            del content[key]
        if profile is None or not profile.breaks_on_cleared or not cleared:
            return types.ElicitResult(action="accept", content=content)
        properties: Mapping[str, Any] = request.schema.get("properties", {})
        for key in cleared:
            kind = _cleared_kind(properties.get(key))
            if kind is None:
                self._user.problems.append(
                    f"The scripted answer to {request.message!r} clears field {key!r}, but "
                    f"the {profile.name} profile knows only what clearing an optional choice "
                    "or number does in that client. Give the field a value, or leave it out."
                )
                return types.ElicitResult(action="cancel")
            if self._protocol != LATEST_PROTOCOL:
                # The Inspector's own SDK refuses the answer its form built, and says so to
                # the server (docs/clients.json: cleared_optional_select/number, legacy).
                received = "null" if kind == "choice" else "undefined"
                return types.ErrorData(
                    code=types.INVALID_PARAMS,
                    message="Invalid elicitation result: Invalid input: expected string, "
                    f"received {received}",
                )
            if kind == "choice":
                # On 2026-07-28 the call fails inside the client and the tool is never
                # called again (docs/clients.json: cleared_optional_select, modern).
                return types.ErrorData(
                    code=types.INVALID_PARAMS, message=CLIENT_SIDE_SCHEMA_FAILURE
                )
        # 2026-07-28: a cleared number arrives absent (cleared_optional_number, modern).
        return types.ElicitResult(action="accept", content=content)

    async def _before_user(
        self, profile: ClientProfile, request: FormRequest
    ) -> types.ElicitResult | types.ErrorData | None:
        """What the profile answers without the user, or ``None`` to show the form."""
        if profile.strict_keys:
            key = unknown_key(request.schema, self._protocol)
            if key is not None:
                self._user.requests.append(request)
                return types.ErrorData(
                    code=types.INVALID_PARAMS,
                    message=f"Invalid requestedSchema: unknown field {key!r}",
                )
        if not profile.renders:
            self._user.requests.append(request)
            await anyio.sleep(self._hang)
            return types.ErrorData(code=REQUEST_TIMEOUT, message="Request timed out")
        if profile.declines_all:
            self._user.requests.append(request)
            return types.ElicitResult(action="decline")
        return None


def _not_accepted(
    profile: ClientProfile | None, action: str
) -> types.ElicitResult | types.ErrorData:
    """What the client sends when the user declines or cancels."""
    if profile is not None and action == "cancel" and profile.cancel_fails:
        # The mcp-use Inspector's Cancel (docs/clients.json: cancelled_form): an error on
        # the 2025 eras; on 2026-07-28 the call then fails inside the client.
        return types.ErrorData(code=types.INTERNAL_ERROR, message=USER_CANCELLED)
    if profile is not None and action == "decline" and profile.decline_as_cancel:
        return types.ElicitResult(action="cancel")
    return types.ElicitResult(action=cast("Any", action))


def _unanswered_flags(schema: Mapping[str, Any], content: Mapping[str, Any]) -> str | None:
    """The first optional yes/no or number without a default that the answer leaves out."""
    required = set(schema.get("required", ()))
    for key, field in schema.get("properties", {}).items():
        if key in required or key in content or not isinstance(field, Mapping):
            continue
        field = cast("Mapping[str, Any]", field)
        if "default" not in field and field.get("type") in ("boolean", "integer", "number"):
            return str(key)
    return None


def _as_text(schema: Mapping[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Send each multi-select as one plain string, as mcp-agent does."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    for key, field in properties.items():
        value = content.get(key)
        kind = cast("Mapping[str, Any]", field).get("type") if isinstance(field, Mapping) else None
        if kind == "array" and isinstance(value, list):
            content[key] = ", ".join(str(item) for item in cast("list[object]", value))
    return content


def _has_widgets(profile: ClientProfile, schema: Mapping[str, Any]) -> bool:
    properties: dict[str, Any] = schema.get("properties", {})
    kinds = {
        cast("Mapping[str, Any]", field).get("type")
        for field in properties.values()
        if isinstance(field, Mapping)
    }
    if not profile.number_widgets and kinds & {"integer", "number"}:
        return False
    return profile.multi_select_widgets or "array" not in kinds


def _too_short(schema: Mapping[str, Any], content: Mapping[str, Any]) -> str | None:
    """The error a client that checks ``minLength`` shows for the first short text, if any."""
    for key, field in schema.get("properties", {}).items():
        value = content.get(key)
        if not isinstance(field, Mapping) or not isinstance(value, str):
            continue
        minimum = cast("Mapping[str, Any]", field).get("minLength")
        if isinstance(minimum, int) and len(value) < minimum:
            title = cast("Mapping[str, Any]", field).get("title", key)
            # fast-agent's words under the form: "Error: 'Guest': Need 1 more char".
            return f"'{title}': Need {minimum - len(value)} more char"
    return None


def _filled(
    schema: Mapping[str, Any],
    content: dict[str, Any],
    value_of: Callable[[Mapping[str, Any]], Any] = untouched_value,
) -> dict[str, Any]:
    """Send the optional fields left alone that the client's rule ``value_of`` fills."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    for key in filled_when_untouched(schema, value_of):
        if key not in content:
            content[key] = value_of(properties[key])
    return content


def _cleared_kind(field: Any) -> str | None:
    """``choice`` or ``number`` for a field the Inspector observations cover, else ``None``."""
    if not isinstance(field, Mapping):
        return None
    field = cast("Mapping[str, Any]", field)
    if field.get("type") == "string" and ("enum" in field or "oneOf" in field):
        return "choice"
    if field.get("type") in ("integer", "number"):
        return "number"
    return None


def _with_defaults(schema: Mapping[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Send back every prefilled default the user did not change, as form clients do."""
    for key, field in schema.get("properties", {}).items():
        if key not in content and isinstance(field, Mapping) and "default" in field:
            content[key] = field["default"]
    return content
