"""install() reads the multi-worker configuration from the environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary

import elicitkit._runtime.url_mode
from elicitkit import install
from elicitkit.integrations.mcp import ElicitkitMiddleware
from elicitkit.stores import MemoryStore, RedisStore
from elicitkit.url import LocalCompletions, RedisCompletions, use_completions

KEY = "k" * 40


@pytest.fixture(autouse=True)
def _default_completions() -> Iterator[None]:
    """Each test starts with the default router, and leaves it for the tests after it."""
    use_completions(elicitkit._runtime.url_mode._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]
    yield
    use_completions(elicitkit._runtime.url_mode._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]


def _middleware(server: MCPServer) -> ElicitkitMiddleware:
    return next(m for m in server.middleware if isinstance(m, ElicitkitMiddleware))


def _security(server: MCPServer) -> object:
    boundary = next(m for m in server.middleware if isinstance(m, RequestStateBoundary))
    return boundary._security  # pyright: ignore[reportPrivateUsage]


def test_without_variables_the_store_is_in_memory_and_the_key_is_the_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MCP_REQUEST_STATE_KEY", raising=False)
    monkeypatch.delenv("ELICITKIT_REDIS_URL", raising=False)
    server = MCPServer("plain")
    before = _security(server)
    install(server)
    assert isinstance(_middleware(server).store, MemoryStore)
    assert _security(server) is before


def test_the_variables_choose_the_sealing_key_and_a_redis_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_REQUEST_STATE_KEY", KEY)
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    one, two = MCPServer("shared"), MCPServer("shared")
    install(one)
    install(two)
    assert isinstance(_middleware(one).store, RedisStore)
    # Both servers now seal with the one key: a state minted by one opens in the other.
    sealed = _security(one).codec.seal(b"payload")  # type: ignore[attr-defined]
    assert _security(two).codec.unseal(sealed) == b"payload"  # type: ignore[attr-defined]


def _router() -> object:
    return elicitkit._runtime.url_mode._router[0]  # pyright: ignore[reportPrivateUsage]


def test_the_redis_variable_routes_url_completions_through_redis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ELICITKIT_REDIS_URL", raising=False)
    install(MCPServer("local"))
    assert isinstance(_router(), LocalCompletions)
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    install(MCPServer("shared"))
    assert isinstance(_router(), RedisCompletions)


def test_a_chosen_completion_router_wins_over_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    chosen = LocalCompletions()
    use_completions(chosen)
    install(MCPServer("chosen"))
    assert _router() is chosen


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
