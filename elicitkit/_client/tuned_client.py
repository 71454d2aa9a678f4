"""`TunedClient`: the SDK's ``mcp.Client``, able to offer 2025-06-18 and form mode only.

The SDK has no public switch for either: its initialize handshake always offers the newest
handshake version (2025-11-25), and its elicitation capability always includes URL mode.
Both are adjusted on the session object the client builds, and nowhere else; the testing
kit and ``elicitkit try`` use it.
"""

from __future__ import annotations

from contextlib import AsyncExitStack

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientSession

from elicitkit.protocol import FIRST_PROTOCOL, LATEST_PROTOCOL, ProtocolVersion


class TunedClient(Client):
    """``mcp.Client`` with `tune`: the handshake version offered, and URL mode on or off."""

    _version: ProtocolVersion = LATEST_PROTOCOL
    _url_mode: bool = True

    def tune(self, version: ProtocolVersion, *, url_mode: bool = True) -> None:
        """Offer ``version`` in the handshake (only 2025-06-18 differs from the SDK's own).

        Call before entering the client. ``url_mode=False`` declares
        ``elicitation: {form: {}}``.
        """
        self._version = version
        self._url_mode = url_mode

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        session.__class__ = _TunedSession
        tuned: _TunedSession = session  # type: ignore[assignment]  # (just re-classed)
        tuned.elicitkit_version = self._version
        tuned.elicitkit_url_mode = self._url_mode
        return tuned


class _TunedSession(ClientSession):
    elicitkit_version: ProtocolVersion = LATEST_PROTOCOL
    elicitkit_url_mode: bool = True

    def _build_capabilities(self, version: str) -> types.ClientCapabilities:
        capabilities = super()._build_capabilities(version)
        if capabilities.elicitation is None or self.elicitkit_url_mode:
            return capabilities
        form_only = types.ElicitationCapability(form=types.FormElicitationCapability())
        return capabilities.model_copy(update={"elicitation": form_only})

    async def initialize(self) -> types.InitializeResult:
        if self.elicitkit_version != FIRST_PROTOCOL:
            return await super().initialize()
        # The SDK's initialize(), with the version it cannot be told to offer.
        result = await self.send_request(
            types.InitializeRequest(
                params=types.InitializeRequestParams(
                    protocol_version=FIRST_PROTOCOL,
                    capabilities=self._build_capabilities(FIRST_PROTOCOL),
                    client_info=self._client_info,
                ),
            ),
            types.InitializeResult,
        )
        self.adopt(result)
        await self.send_notification(types.InitializedNotification())
        return result
