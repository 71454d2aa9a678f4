"""What ``install()`` reads from the environment, so several workers are configured alike.

With neither variable, the server's processes on one machine share the default record file
and the key file beside it (`elicitkit.integrations._machine_records`). Two variables make
a server ready to run on several machines behind a load balancer on MCP 2026-07-28, with
no code change between one worker and many:

* ``MCP_REQUEST_STATE_KEY``: the secret (32 bytes or more) that seals ``requestState``.
  Every worker must seal with the same key, or a retry that reaches another worker is
  refused. When it is set, ``install()`` seals with it instead of the server's own
  process-local key (keeping the server's expiry, audience and principal binding).
* ``ELICITKIT_STORE``: where completed dialogues are recorded, as a URL (``sqlite:///path``,
  ``redis://...``, ``memory://``; ``ELICITKIT_REDIS_URL`` is its older name for a Redis URL).
  With a Redis URL and no ``store=``, ``install()`` records them in a `RedisStore` there, so
  a final round replayed to another worker gets the recorded outcome. Every other record
  kind follows the store (`defaults_from_environment`): the tasks of ``go_async()``, so
  ``tasks/get`` on another worker finds a task this one started, and URL-mode routes, so a
  page's callback that lands on another worker still reaches the client that asked.

The key is applied through the SDK's public parts: the server's ``RequestStateBoundary`` is
replaced, in the server's public middleware list, by a new one built with the public
constructors and the key. Only the server's current policy (expiry, principal binding,
audience), which neither SDK exposes, is read privately (`_sdk_private.state_security`).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any, cast

from mcp.server.context import ServerMiddleware
from mcp.server.request_state import (
    RequestStateBoundary,
    RequestStateSecurity,
    authenticated_principal,
)

from elicitkit._replay.sqlite_store import SqliteStore
from elicitkit._replay.sqlite_tasks import SqliteTaskStore
from elicitkit._replay.store import MemoryStore, OutcomeStore
from elicitkit._replay.tasks import TaskStore
from elicitkit._runtime.sqlite_url_router import SqliteUrlRouter
from elicitkit._runtime.url_routes import UrlRouter, url_router_chosen
from elicitkit.integrations._machine_records import default_database, key_beside, unwritable
from elicitkit.integrations._sdk_private import state_security

logger = logging.getLogger("elicitkit")

STATE_KEY_VARIABLE = "MCP_REQUEST_STATE_KEY"
STORE_VARIABLE = "ELICITKIT_STORE"
REDIS_URL_VARIABLE = "ELICITKIT_REDIS_URL"
_MIN_KEY_BYTES = 32  # the SDK's own minimum for a sealing key


def defaults_from_environment(
    store: OutcomeStore | None,
    url_router: UrlRouter | None,
    tasks: TaskStore | None,
    *,
    server_name: str | None,
) -> tuple[OutcomeStore, UrlRouter | None, TaskStore | None]:
    """Fill what ``install()`` was not given from ``$ELICITKIT_STORE``, or the machine default.

    Every record kind follows the store, so one setting places them all: the tasks of
    ``go_async()`` and the URL-mode routes go where the dialogues are recorded, unless
    ``install()`` was given its own (``tasks=``, ``url_router=``) or the author chose a
    process default router (`elicitkit.url.use_url_router`). ``$ELICITKIT_STORE`` (or its
    synonym ``$ELICITKIT_REDIS_URL``) is a URL:

    * ``redis://`` or ``rediss://`` (or ``unix://``): a `RedisStore`, a `RedisTaskStore`
      and a `RedisUrlRouter`, all on one Redis client;
    * ``sqlite:///path`` (``sqlite:////abs`` or ``sqlite:///rel``): a `SqliteStore`, a
      `SqliteTaskStore` and a `SqliteUrlRouter` in that file;
    * ``memory://``: a `MemoryStore` of this process (tasks and routes in it too).

    Unset: a `SqliteStore` in the server's file on this machine
    (`elicitkit.integrations._machine_records.default_database`). A ``store`` given to
    ``install()`` wins over the variable, and its kind places the rest: a `SqliteStore`'s
    file, or a `RedisStore`'s client, keeps its tasks and routes too. What was given is
    returned as it came; ``url_router`` stays ``None`` (the process default) where the
    store is a `MemoryStore`.

    Raises:
        TypeError: The URL has another scheme, the two variables disagree, or redis is
            not installed for a Redis URL.
    """
    route = url_router is None and not url_router_chosen()
    url = _store_url()
    scheme = None if url is None else url.partition("://")[0].lower()
    if scheme not in (None, "memory", "sqlite", "redis", "rediss", "unix"):
        raise TypeError(
            f"Cannot record dialogues at {STORE_VARIABLE}={url!r}: elicitkit stores records "
            "at sqlite:///path (one machine), redis://host:port/db (several machines) or "
            "memory:// (this process only). Set it to one of those, or unset it for the "
            "default file on this machine."
        )
    if store is not None:  # given: it wins over the variable, and its kind places the rest
        return _beside(store, url_router, tasks, route=route)
    if url is None:
        store = _machine_default(server_name)
    elif scheme == "memory":
        store = MemoryStore()
    elif scheme == "sqlite":
        store = SqliteStore(_sqlite_path(url))
    else:
        redis = _redis_at(url)
        # Imported here: it imports redis, an optional dependency, only for a Redis URL.
        from elicitkit._replay.redis_store import RedisStore  # noqa: PLC0415

        return _on_redis(RedisStore(redis), redis, url_router, tasks, route=route)
    return _beside(store, url_router, tasks, route=route)


def _beside(
    store: OutcomeStore, url_router: UrlRouter | None, tasks: TaskStore | None, *, route: bool
) -> tuple[OutcomeStore, UrlRouter | None, TaskStore | None]:
    """Tasks and URL routes where ``store`` keeps its records, unless given their own."""
    if isinstance(store, SqliteStore):
        return (
            store,
            SqliteUrlRouter(store.path) if route else url_router,
            SqliteTaskStore(store.path) if tasks is None else tasks,
        )
    # A RedisStore imports redis: if it is not loaded, the store cannot be one.
    redis_store = sys.modules.get("elicitkit._replay.redis_store")
    if redis_store is not None and isinstance(store, redis_store.RedisStore):
        return _on_redis(store, cast("Any", store).client, url_router, tasks, route=route)
    return store, url_router, tasks


def _on_redis(
    store: OutcomeStore,
    redis: Any,
    url_router: UrlRouter | None,
    tasks: TaskStore | None,
    *,
    route: bool,
) -> tuple[OutcomeStore, UrlRouter | None, TaskStore | None]:
    from elicitkit._replay.redis_tasks import RedisTaskStore  # noqa: PLC0415  (imports redis)
    from elicitkit._runtime.redis_url_router import RedisUrlRouter  # noqa: PLC0415

    return (
        store,
        RedisUrlRouter(redis) if route else url_router,
        RedisTaskStore(redis) if tasks is None else tasks,
    )


def _machine_default(server_name: str | None) -> OutcomeStore:
    database = default_database(server_name)
    problem = unwritable(database.parent)
    if problem is None:
        return SqliteStore(database)
    # A read-only home (a container, a sandbox) must not stop a server that set nothing:
    # it serves one process as before, and the log says how to share its records.
    logger.warning(
        "elicitkit cannot keep this server's records in %s (%s), so it keeps them in this "
        "process's memory: a 2026-07-28 call that reaches another process of the server, or "
        "this one after a restart, is refused. Set %s to a writable sqlite:///path, or to "
        "redis://... for several machines.",
        database.parent,
        problem,
        STORE_VARIABLE,
    )
    return MemoryStore()


def _store_url() -> str | None:
    store = os.environ.get(STORE_VARIABLE, "").strip()
    redis = os.environ.get(REDIS_URL_VARIABLE, "").strip()
    if store and redis and store != redis:
        raise TypeError(
            f"Cannot tell where to record dialogues: {STORE_VARIABLE}={store!r} and "
            f"{REDIS_URL_VARIABLE}={redis!r} disagree. {REDIS_URL_VARIABLE} is the older "
            f"name of {STORE_VARIABLE} for a Redis URL: set only {STORE_VARIABLE}."
        )
    if redis and redis.partition("://")[0].lower() not in ("redis", "rediss", "unix"):
        raise TypeError(
            f"{REDIS_URL_VARIABLE}={redis!r} is not a Redis URL (redis://host:port/db). "
            f"For another store, set {STORE_VARIABLE} instead."
        )
    return store or redis or None


def _sqlite_path(url: str) -> Path:
    # sqlite:///records.sqlite3 is relative, sqlite:////var/lib/x.sqlite3 absolute (as in
    # SQLAlchemy's URLs); the query string, if any, is not elicitkit's to read.
    path = url.partition("://")[2].partition("?")[0]
    if not path.startswith("/") or len(path) < 2:
        raise TypeError(
            f"Cannot record dialogues at {STORE_VARIABLE}={url!r}: a SQLite URL names a file, "
            "as sqlite:///records.sqlite3 (relative to the working folder) or "
            "sqlite:////var/lib/app/records.sqlite3 (absolute)."
        )
    return Path(path[1:])


def split_memory(store: OutcomeStore) -> str | None:
    """Say why ``store`` cannot serve workers that share ``$MCP_REQUEST_STATE_KEY``, or None.

    A shared sealing key says that several processes (or one across restarts) read each
    other's states, while a `MemoryStore` remembers one process's dialogues only. That is a
    warning, not a refusal: one process with a key that survives its restarts is sound,
    and a round that reaches a process whose store has no trace of its dialogue is refused
    as forgotten (the state says a store opened it), never run again. The warning says
    why users of such a fleet would see those refusals. A key passed in code cannot be
    told from the SDK's per-process default, so only the variable is checked.
    """
    if not os.environ.get(STATE_KEY_VARIABLE) or not isinstance(store, MemoryStore):
        return None
    return (
        f"elicitkit records dialogues in a MemoryStore of this process while "
        f"{STATE_KEY_VARIABLE} shares the sealing key, so a round that reaches another "
        "worker, or this one after a restart, finds no record of its call and is refused "
        "(the user must start the call afresh). Share one store between the workers: "
        f"leave {STORE_VARIABLE} unset (a file on this machine), set it to redis://... for "
        "several machines, or pass install(server, store=SqliteStore(...) or RedisStore(...))."
    )


def _redis_at(url: str) -> Any:
    try:
        from redis.asyncio import Redis  # noqa: PLC0415  (optional dependency)
    except ImportError:
        raise TypeError(
            f"Cannot record dialogues at {url!r}: the redis package is not installed. Install "
            f'it (the redis extra) with pip install "redis>=5", or unset {STORE_VARIABLE}.'
        ) from None
    return Redis.from_url(url)  # pyright: ignore[reportUnknownMemberType]


def seal_with_shared_key(
    chain: list[ServerMiddleware[Any]],
    boundary: RequestStateBoundary,
    *,
    audience: str | None,
    beside: Path | None,
) -> RequestStateBoundary:
    """Seal with a key every process shares, when there is one; return the boundary.

    The key is ``$MCP_REQUEST_STATE_KEY`` when it is set; else, with ``beside`` (the record
    file of a server that kept the SDK's default, per-process policy), the key file beside
    it (`elicitkit.integrations._machine_records.key_beside`). The boundary in ``chain`` is
    then replaced by a new one that seals with the key and keeps the server's expiry,
    principal binding and audience (``audience``: the server's name, the default audience
    the SDK gives its own boundary).
    """
    key = os.environ.get(STATE_KEY_VARIABLE, "")
    current = state_security(boundary)
    if not key:
        if beside is None or current is None:
            return boundary
        key, source = key_beside(beside), f"the key file {beside.with_suffix('.key')}"
    else:
        source = STATE_KEY_VARIABLE
    size = len(key.encode())
    if size < _MIN_KEY_BYTES:
        raise TypeError(
            f"Cannot seal requestState with {source}: it is {size} bytes, and a "
            f"sealing key needs at least {_MIN_KEY_BYTES} bytes of secret randomness. Set it "
            "to the same random secret in every worker, for example the output of "
            "python -c 'import secrets; print(secrets.token_hex(32))'."
        )
    if current is None:
        # Without the server's policy, a new boundary would silently drop the author's
        # expiry, principal binding or audience: refuse, and say how to pass the key.
        raise TypeError(
            f"Cannot seal requestState with {STATE_KEY_VARIABLE}: this version of the MCP "
            "SDK no longer lets elicitkit read the server's request-state policy (its "
            "expiry, principal binding and audience), which the key must keep. Unset the "
            "variable and pass the key to the server instead: "
            "request_state_security=RequestStateSecurity(keys=[key])."
        )
    try:
        shared = RequestStateSecurity(
            keys=[key],
            ttl=current.ttl,
            bind_principal=getattr(current, "bind_principal", authenticated_principal),
            audience=current.audience,
        )
    except ValueError as error:
        raise TypeError(
            f"Cannot seal requestState with {source}: {error}. Set it to a random "
            "secret of 32 bytes or more, the same in every worker."
        ) from None
    sealing = RequestStateBoundary(shared, default_audience=audience)
    chain[chain.index(boundary)] = sealing
    return sealing


RESUME_AFTER_VARIABLE = "ELICITKIT_TASK_RESUME_AFTER"


def task_resume_after(given: float | None) -> float | None:
    """Seconds after which a silent worker's leg runs elsewhere: ``given``, else the variable.

    ``None``: neither says, and the task store's own lease stands (10 s by default).

    Raises:
        TypeError: The value is not a number of seconds above 0 (or not finite).
    """
    source = "task_resume_after"
    value: object = given
    if value is None:
        text = os.environ.get(RESUME_AFTER_VARIABLE, "").strip()
        if not text:
            return None
        source = f"${RESUME_AFTER_VARIABLE}"
        try:
            value = float(text)
        except ValueError:
            value = text
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise TypeError(
            f"{source}={value!r} is not a number of seconds above 0: say how long a task's "
            "worker may go silent before its work is started again elsewhere (e.g. 10)."
        )
    return float(value)


def docket_url(tasks: TaskStore | None) -> str | None:
    """The Redis URL of the Docket beside ``tasks`` (a `RedisTaskStore`'s), else ``None``.

    ``None`` gives each process an embedded Docket: the records (memory, SQLite) are then
    one machine's, and so is every worker.
    """
    from elicitkit._runtime.leg_queue import redis_url_of  # noqa: PLC0415

    redis_tasks = sys.modules.get("elicitkit._replay.redis_tasks")
    store_class: object = getattr(redis_tasks, "RedisTaskStore", None)
    if isinstance(store_class, type) and isinstance(tasks, store_class):
        return redis_url_of(cast("Any", tasks).client)
    return None
