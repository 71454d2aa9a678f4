"""`connect`: the real SDK client on a chosen protocol era, behaving like a client profile."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext

from elicitkit._client_facts import ClientProfile
from elicitkit._protocol import LATEST_PROTOCOL, ProtocolVersion, check_protocol
from elicitkit._sdk_client import TunedClient
from elicitkit.integrations import client_target
from elicitkit.testing._spec_keys import unknown_key
from elicitkit.testing._user import FormRequest, ScriptedUser, ScriptError

REQUEST_TIMEOUT = -32001  # the SDKs' "Request timed out" code
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
) -> AsyncGenerator[Client]:
    """Connect the real SDK client (``mcp.Client``) to ``server``, answering forms with ``user``.

    Args:
        server: An ``MCPServer`` or a ``fastmcp.FastMCP`` (connected in memory), or
            anything ``mcp.Client`` accepts.
        protocol: The version to speak. 2025-06-18 is negotiated by the initialize
            handshake, which ``mcp.Client`` alone cannot do (it always offers 2025-11-25).
        user: Who answers the forms; by default a `ScriptedUser` with no answers, so any
            form fails the test.
        profile: How the client behaves (`PROFILES`, `KNOWN_CLIENTS`); by default a client
            that does everything right. A profile that does not speak ``protocol`` speaks the
            newest version it has, as a real client would.
        hang_seconds: How long a profile that never renders keeps the form open; then the
            request fails with "Request timed out" (-32001).

    Yields:
        The connected client; ``client.protocol_version`` is the version spoken.

    Raises:
        ScriptError: On leaving, when a form arrived that the script had no answer for, or
            an ``accept`` named a field the form does not have.
    """
    wanted = check_protocol(protocol)
    version = _spoken(wanted, profile)
    scripted = user if user is not None else ScriptedUser()
    behaviour = _Behaviour(scripted, profile, version, hang_seconds)
    elicits = profile is None or profile.elicitation
    client = TunedClient(
        client_target(server),
        mode="legacy" if version != LATEST_PROTOCOL else version,
        elicitation_callback=behaviour.on_elicit if elicits else None,
    )
    client.tune(version, url_mode=profile is None or profile.url_mode)
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


class _Behaviour:
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
        answer = await self._answer(request)
        if isinstance(answer, types.ErrorData):
            request.sent = {"error": answer.model_dump(mode="json", exclude_none=True)}
        else:
            request.sent = answer.model_dump(mode="json", exclude_none=True)
        return answer

    async def _answer(self, request: FormRequest) -> types.ElicitResult | types.ErrorData:
        schema = request.schema
        profile = self._profile
        if profile is not None:
            refusal = await self._before_user(profile, request)
            if refusal is not None:
                return refusal
        reply = await self._user.answer(request)
        if reply is None:
            return types.ElicitResult(action="cancel")
        if reply.action != "accept":
            return types.ElicitResult(action=reply.action)
        content = dict(reply.content or {})
        if profile is not None and not _has_widgets(profile, schema):
            # No input for a field: the client falls back to approve/decline, no content.
            return types.ElicitResult(action="accept")
        if profile is None or profile.applies_defaults:
            content = _with_defaults(schema, content)
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


def _with_defaults(schema: Mapping[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """Send back every prefilled default the user did not change, as form clients do."""
    for key, field in schema.get("properties", {}).items():
        if key not in content and isinstance(field, Mapping) and "default" in field:
            content[key] = field["default"]
    return content
