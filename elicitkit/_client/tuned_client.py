"""`TunedClient`: the SDK's ``mcp.Client``, able to offer 2025-06-18 and form mode only.

The SDK has no switch for either: its initialize handshake always offers the newest
handshake version (2025-11-25), and its elicitation capability always includes URL mode.
So the client is given a transport (``mcp.Client`` takes any ``Transport``, its public
seam) that rewrites what the SDK writes, before it leaves: the ``initialize`` request's
``protocolVersion`` and ``capabilities.elicitation``, and on 2026-07-28 the capabilities
each request carries in ``_meta``. The server answers 2025-06-18 to a 2025-06-18 offer,
and the SDK's own handshake adopts it. The testing kit and ``elicitkit try`` use it.

One private SDK name remains: connecting in memory, ``mcp.Client`` builds its
``InMemoryTransport`` itself, from the private module ``mcp.client._memory``; a tuned
client that connects in memory builds that transport here, to wrap it
(``tests/test_sdk_assumptions.py`` fails loudly if the SDK moves it).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from types import TracebackType
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.client._memory import InMemoryTransport  # the one private SDK name (see the module)
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp_types import CLIENT_CAPABILITIES_META_KEY, JSONRPCRequest
from typing_extensions import Self

from elicitkit.protocol import FIRST_PROTOCOL, LATEST_PROTOCOL, ProtocolVersion

_FORM_ONLY: dict[str, Any] = {"form": {}}


@dataclass
class TunedClient(Client):
    """``mcp.Client`` that offers ``version`` in the handshake and URL mode or not.

    Attributes:
        version: The handshake version to offer (only 2025-06-18 differs from the SDK's).
        url_mode: ``False`` declares ``elicitation: {form: {}}``.
    """

    _: KW_ONLY
    version: ProtocolVersion = LATEST_PROTOCOL
    url_mode: bool = True

    def __post_init__(self) -> None:
        """Wrap the server's transport when the SDK's own offer is not the one wanted."""
        if self.version == FIRST_PROTOCOL or not self.url_mode:
            self.server = _Rewriting(
                _transport_to(self.server, raise_exceptions=self.raise_exceptions),
                version=FIRST_PROTOCOL if self.version == FIRST_PROTOCOL else None,
                url_mode=self.url_mode,
            )
        super().__post_init__()


def _transport_to(target: Any, *, raise_exceptions: bool) -> Any:
    """The transport ``mcp.Client`` would use for ``target``, built here to be wrapped."""
    if isinstance(target, MCPServer | Server):
        server: MCPServer[Any] | Server[Any] = target  # pyright: ignore[reportUnknownVariableType]
        return InMemoryTransport(server, raise_exceptions=raise_exceptions)
    if isinstance(target, StdioServerParameters):
        return stdio_client(target)
    if isinstance(target, str):
        return streamable_http_client(target)
    return target  # already a Transport


class _Rewriting:
    """A ``Transport`` whose outgoing requests declare the tuned version and capabilities."""

    def __init__(self, inner: Any, *, version: str | None, url_mode: bool) -> None:
        self._inner = inner
        self._version = version
        self._url_mode = url_mode

    async def __aenter__(self) -> tuple[Any, _RewritingWrite]:
        read, write = await self._inner.__aenter__()
        return read, _RewritingWrite(write, self._rewrite)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        exited: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return exited

    def _rewrite(self, item: SessionMessage) -> SessionMessage:
        message = item.message
        if not isinstance(message, JSONRPCRequest) or message.params is None:
            return item
        params = dict(message.params)
        if message.method == "initialize":
            if self._version is not None:
                params["protocolVersion"] = self._version
            params["capabilities"] = self._capabilities(params.get("capabilities"))
        else:
            meta = params.get("_meta")
            if not isinstance(meta, dict) or CLIENT_CAPABILITIES_META_KEY not in meta:
                return item
            params["_meta"] = {
                **meta,
                CLIENT_CAPABILITIES_META_KEY: self._capabilities(
                    meta[CLIENT_CAPABILITIES_META_KEY]
                ),
            }
        return SessionMessage(
            message=message.model_copy(update={"params": params}), metadata=item.metadata
        )

    def _capabilities(self, declared: Any) -> Any:
        """``declared`` with form mode only, when URL mode is off and elicitation declared."""
        if self._url_mode or not isinstance(declared, dict):
            return declared
        capabilities: dict[str, Any] = dict(declared)  # pyright: ignore[reportUnknownArgumentType]
        if "elicitation" in capabilities:
            capabilities["elicitation"] = _FORM_ONLY
        return capabilities


class _RewritingWrite:
    """The SDK's write stream, each outgoing message rewritten first."""

    def __init__(self, inner: Any, rewrite: Any) -> None:
        self._inner = inner
        self._rewrite = rewrite

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(self._rewrite(item))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        exited: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return exited
