"""install() reads the multi-worker configuration from the environment."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

import elicitkit._runtime.url_routes
from elicitkit import install
from elicitkit.integrations._sdk_private import state_security
from elicitkit.integrations.mcp import ElicitkitMiddleware
from elicitkit.stores import MemoryStore, MemoryTaskStore, RedisStore, RedisTaskStore
from elicitkit.url import LocalCompletions, RedisCompletions, use_completions

KEY = "k" * 40


@pytest.fixture(autouse=True)
def _default_completions() -> Iterator[None]:
    """Each test starts with the default router, and leaves it for the tests after it."""
    use_completions(elicitkit._runtime.url_routes._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]
    yield
    use_completions(elicitkit._runtime.url_routes._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]


def _middleware(server: MCPServer) -> ElicitkitMiddleware:
    return next(m for m in server.middleware if isinstance(m, ElicitkitMiddleware))


def _boundary(server: MCPServer) -> RequestStateBoundary:
    (boundary,) = (m for m in server.middleware if isinstance(m, RequestStateBoundary))
    return boundary


def _security(server: MCPServer) -> Any:
    security = state_security(_boundary(server))
    assert security is not None
    return security


def test_without_variables_the_store_is_in_memory_and_the_key_is_the_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MCP_REQUEST_STATE_KEY", raising=False)
    monkeypatch.delenv("ELICITKIT_REDIS_URL", raising=False)
    server = MCPServer("plain")
    before = _boundary(server)
    install(server)
    assert isinstance(_middleware(server).store, MemoryStore)
    assert isinstance(_middleware(server).tasks.store, MemoryTaskStore)
    assert _boundary(server) is before


def test_the_variables_choose_the_sealing_key_and_a_redis_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_REQUEST_STATE_KEY", KEY)
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    one, two = (
        MCPServer("shared", request_state_security=RequestStateSecurity.ephemeral(ttl=30.0))
        for _ in range(2)
    )
    install(one)
    install(two)
    assert isinstance(_middleware(one).store, RedisStore)
    # Tasks follow the same variable: tasks/get on another worker finds this one's task.
    assert isinstance(_middleware(one).tasks.store, RedisTaskStore)
    # Both servers now seal with the one key: a state minted by one opens in the other.
    sealed = _security(one).codec.seal(b"payload")
    assert _security(two).codec.unseal(sealed) == b"payload"
    assert _security(one).ttl == 30.0  # the server's own policy is kept
    assert _middleware(one).keep == 90.0


def _router(server: MCPServer) -> object:
    """The router ``server``'s calls register with (``None``: the process default's)."""
    return _middleware(server).router


def test_the_redis_variable_routes_url_completions_through_redis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ELICITKIT_REDIS_URL", raising=False)
    local = install(MCPServer("local"))
    assert _router(local) is None  # the process default, a LocalCompletions
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    shared = install(MCPServer("shared"))
    assert isinstance(_router(shared), RedisCompletions)
    assert _router(local) is None  # installing the second server did not reroute the first


def test_a_chosen_completion_router_wins_over_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    chosen = LocalCompletions()
    use_completions(chosen)
    server = install(MCPServer("chosen"))
    assert _router(server) is None  # the process default: chosen
    own = LocalCompletions()
    assert _router(install(MCPServer("own"), completions=own)) is own


def test_an_explicit_store_wins_over_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    store = MemoryStore()
    server = install(MCPServer("explicit"), store=store)
    assert _middleware(server).store is store


def test_a_short_key_is_refused_with_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_REQUEST_STATE_KEY", "short")
    with pytest.raises(TypeError) as caught:
        install(MCPServer("short"))
    assert str(caught.value) == (
        "Cannot seal requestState with MCP_REQUEST_STATE_KEY: it is 5 bytes, and a sealing "
        "key needs at least 32 bytes of secret randomness. Set it to the same random secret "
        "in every worker, for example the output of "
        "python -c 'import secrets; print(secrets.token_hex(32))'."
    )
