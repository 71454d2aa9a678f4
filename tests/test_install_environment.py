"""install() reads the multi-worker configuration from the environment."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

import elicitkit._runtime.url_routes
from elicitkit import install
from elicitkit._runtime.url_routes import router_for
from elicitkit.integrations._machine_records import default_database
from elicitkit.integrations._sdk_private import state_security
from elicitkit.integrations.mcp import ElicitkitMiddleware
from elicitkit.stores import (
    MemoryStore,
    MemoryTaskStore,
    RedisStore,
    RedisTaskStore,
    SqliteStore,
    SqliteTaskStore,
)
from elicitkit.url import LocalUrlRouter, RedisUrlRouter, SqliteUrlRouter, use_url_router

KEY = "k" * 40


@pytest.fixture(autouse=True)
def _default_completions() -> Iterator[None]:
    """Each test starts with the default router, and leaves it for the tests after it."""
    use_url_router(elicitkit._runtime.url_routes._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]
    yield
    use_url_router(elicitkit._runtime.url_routes._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]


def _middleware(server: MCPServer) -> ElicitkitMiddleware:
    return next(m for m in server.middleware if isinstance(m, ElicitkitMiddleware))


def _boundary(server: MCPServer) -> RequestStateBoundary:
    (boundary,) = (m for m in server.middleware if isinstance(m, RequestStateBoundary))
    return boundary


def _security(server: MCPServer) -> Any:
    security = state_security(_boundary(server))
    assert security is not None
    return security


def test_without_variables_the_store_is_a_file_of_this_machine_with_its_key_beside_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    one, two = MCPServer("Plain shop"), MCPServer("Plain shop")
    before = _boundary(one)
    install(one)
    install(two)
    store = _middleware(one).store
    assert isinstance(store, SqliteStore)
    assert store.path == tmp_path / "elicitkit" / "plain-shop-3de7156a.sqlite3"
    assert store.path == default_database("Plain shop")
    tasks = _middleware(one).tasks.backend
    assert isinstance(tasks, SqliteTaskStore)  # the tasks follow the records, in their file
    assert tasks.path == store.path
    # The SDK's per-process key gave way to the key file beside the records, which every
    # process of the server on this machine reads, and only its owner may read.
    assert _boundary(one) is not before
    key = store.path.with_suffix(".key")
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    sealed = _security(one).codec.seal(b"payload")
    assert _security(two).codec.unseal(sealed) == b"payload"
    assert _security(one).ttl == 600.0  # the server's own policy is kept
    # A fastmcp server of the same name on this machine seals alike.
    third = FastMCP("Plain shop")
    install(third)
    (fastmcp_boundary,) = (
        m for m in third._mcp_server.middleware if isinstance(m, RequestStateBoundary)
    )
    fastmcp_security = state_security(fastmcp_boundary)
    assert fastmcp_security is not None
    assert fastmcp_security.codec.unseal(sealed) == b"payload"


def test_a_key_the_author_chose_is_never_replaced_by_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    chosen = MCPServer("chosen", request_state_security=RequestStateSecurity(keys=[KEY]))
    before = _boundary(chosen)
    install(chosen)
    assert _boundary(chosen) is before
    fastmcp_chosen = FastMCP("chosen", request_state_security=RequestStateSecurity(keys=[KEY]))
    install(fastmcp_chosen)
    assert (
        state_security(
            next(
                m
                for m in fastmcp_chosen._mcp_server.middleware
                if isinstance(m, RequestStateBoundary)
            )
        )
        is not None
    )
    # A store of this process only: no file beside it, and the process key stays.
    alone = MCPServer("alone")
    before = _boundary(alone)
    install(alone, store=MemoryStore())
    assert _boundary(alone) is before
    assert not (tmp_path / "elicitkit").exists() or not list(
        (tmp_path / "elicitkit").glob("alone-*")
    )


def test_a_key_file_others_may_read_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    install(MCPServer("loose"))
    key = default_database("loose").with_suffix(".key")
    key.chmod(0o644)
    with pytest.raises(TypeError, match=r"others than its owner may read it \(mode 644\)"):
        install(MCPServer("loose"))
    key.write_text("not a key")
    key.chmod(0o600)
    with pytest.raises(TypeError, match=r"does not hold the key elicitkit wrote"):
        install(MCPServer("loose"))


@pytest.mark.parametrize(
    ("url", "kind", "where"),
    [
        ("memory://", MemoryStore, None),
        ("sqlite:///records.sqlite3", SqliteStore, "records.sqlite3"),
        ("sqlite:///{tmp}/records.sqlite3", SqliteStore, "{tmp}/records.sqlite3"),
        ("redis://127.0.0.1:1/0", RedisStore, None),
    ],
)
def test_the_store_variable_names_the_store(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, url: str, kind: type, where: str | None
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative file (and its key) lands here
    monkeypatch.setenv("ELICITKIT_STORE", url.format(tmp=tmp_path))
    store = _middleware(install(MCPServer("named"))).store
    assert isinstance(store, kind)
    if where is not None:
        assert isinstance(store, SqliteStore)
        assert store.path == Path(where.format(tmp=tmp_path))
        assert store.path.with_suffix(".key").exists()  # the key file beside it


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"ELICITKIT_STORE": "postgres://db/x"}, r"at sqlite:///path \(one machine\)"),
        ({"ELICITKIT_STORE": "sqlite://"}, r"a SQLite URL names a file"),
        (
            {"ELICITKIT_STORE": "memory://", "ELICITKIT_REDIS_URL": "redis://h/0"},
            r"disagree\. ELICITKIT_REDIS_URL is the older name of ELICITKIT_STORE",
        ),
        ({"ELICITKIT_REDIS_URL": "sqlite:///x"}, r"is not a Redis URL"),
    ],
)
def test_a_store_setting_that_cannot_be_followed_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, variables: dict[str, str], message: str
) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(TypeError, match=message):
        install(MCPServer("refused"))


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
    assert isinstance(_middleware(one).tasks.backend, RedisTaskStore)
    # Both servers now seal with the one key: a state minted by one opens in the other.
    sealed = _security(one).codec.seal(b"payload")
    assert _security(two).codec.unseal(sealed) == b"payload"
    assert _security(one).ttl == 30.0  # the server's own policy is kept
    assert _middleware(one).keep == 90.0


def _router(server: MCPServer) -> object:
    """The router ``server``'s calls register with (``None``: the process default's)."""
    return _middleware(server).router


@pytest.mark.parametrize(
    ("setting", "records", "tasks", "router"),
    [
        pytest.param({}, SqliteStore, SqliteTaskStore, SqliteUrlRouter, id="unset"),
        pytest.param(
            {"ELICITKIT_STORE": "sqlite:///{tmp}/r.sqlite3"},
            SqliteStore,
            SqliteTaskStore,
            SqliteUrlRouter,
            id="sqlite",
        ),
        pytest.param(
            {"ELICITKIT_REDIS_URL": "redis://127.0.0.1:1/0"},
            RedisStore,
            RedisTaskStore,
            RedisUrlRouter,
            id="redis",
        ),
        pytest.param(
            {"ELICITKIT_STORE": "memory://"}, MemoryStore, MemoryTaskStore, None, id="memory"
        ),
        pytest.param(
            {"store": "sqlite"}, SqliteStore, SqliteTaskStore, SqliteUrlRouter, id="given-sqlite"
        ),
        pytest.param(
            {"store": "redis"}, RedisStore, RedisTaskStore, RedisUrlRouter, id="given-redis"
        ),
        pytest.param(
            {"ELICITKIT_REDIS_URL": "redis://127.0.0.1:1/0", "store": "sqlite"},
            SqliteStore,
            SqliteTaskStore,
            SqliteUrlRouter,
            id="given-sqlite-beats-the-variable",
        ),
    ],
)
def test_every_record_kind_follows_the_one_store_setting(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    setting: dict[str, str],
    records: type,
    tasks: type,
    router: type | None,
) -> None:
    from redis.asyncio import Redis  # noqa: PLC0415  (the dev extra has it)

    given: dict[str, Any] = {}
    for name, value in setting.items():
        if name == "store":
            client = Redis.from_url("redis://127.0.0.1:1/0")
            kinds = {"sqlite": SqliteStore(tmp_path / "given.sqlite3"), "redis": RedisStore(client)}
            given["store"] = kinds[value]
        else:
            monkeypatch.setenv(name, value.format(tmp=tmp_path))
    middleware = _middleware(install(MCPServer("follows"), **given))
    store, task_store, url_router = middleware.store, middleware.tasks.backend, middleware.router
    assert (type(store), type(task_store), type(url_router)) == (
        records,
        tasks,
        type(None) if router is None else router,  # None: the process default, LocalUrlRouter
    )
    # In the same place: the store's file, or its Redis client.
    if isinstance(store, SqliteStore):
        assert isinstance(task_store, SqliteTaskStore)
        assert isinstance(url_router, SqliteUrlRouter)
        assert task_store.path == url_router.path == store.path
    if isinstance(store, RedisStore):
        assert isinstance(url_router, RedisUrlRouter)
        assert task_store.client is url_router._redis is store.client  # pyright: ignore[reportPrivateUsage]
    if "store" in given:
        assert store is given["store"]


def test_installing_a_second_server_does_not_reroute_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    local = install(MCPServer("local"), store=MemoryStore())
    assert _router(local) is None  # the process default, a LocalUrlRouter
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    shared = install(MCPServer("shared"))
    assert isinstance(_router(shared), RedisUrlRouter)
    assert _router(local) is None


def test_a_chosen_url_router_wins_over_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ELICITKIT_REDIS_URL", "redis://127.0.0.1:1/0")
    chosen = LocalUrlRouter()
    use_url_router(chosen)
    server = install(MCPServer("chosen"))
    assert _router(server) is None  # the process default: chosen
    own = LocalUrlRouter()
    assert _router(install(MCPServer("own"), url_router=own)) is own


def test_a_router_chosen_after_install_wins_over_the_one_beside_the_store() -> None:
    placed = install(MCPServer("placed"))  # the default file: a SqliteUrlRouter beside it
    own = LocalUrlRouter()
    given = install(MCPServer("given"), url_router=own)
    assert isinstance(_router(placed), SqliteUrlRouter)
    assert router_for(_router(placed)) is _router(placed)
    chosen = LocalUrlRouter()
    use_url_router(chosen)  # after install(), as the docs allow
    assert router_for(_router(placed)) is chosen
    assert router_for(_router(given)) is own  # passed: it stays


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


def test_a_state_folder_that_cannot_be_written_keeps_records_in_memory_and_says_how(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A read-only home (a container) must not stop a server that configured nothing."""
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    server = MCPServer("read-only")
    before = _boundary(server)
    install(server)
    assert isinstance(_middleware(server).store, MemoryStore)
    assert _boundary(server) is before  # its own process key, as before
    assert "Set ELICITKIT_STORE to a writable sqlite:///path" in caplog.text
