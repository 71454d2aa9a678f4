"""What ``install()`` reads from the environment, so several workers are configured alike.

Two variables make a server ready to run as several processes behind a load balancer on
MCP 2026-07-28, with no code change between one worker and many:

* ``MCP_REQUEST_STATE_KEY``: the secret (32 bytes or more) that seals ``requestState``.
  Every worker must seal with the same key, or a retry that reaches another worker is
  refused. When it is set, ``install()`` seals with it instead of the server's own
  process-local key (keeping the server's expiry, audience and principal binding).
* ``ELICITKIT_REDIS_URL``: where completed dialogues are recorded (a ``redis://`` URL). When
  it is set and ``install()`` gets no ``store=``, it records them in a `RedisStore` there, so
  a final round replayed to another worker gets the recorded outcome. And unless the author
  chose a completion router (``install(server, completions=...)`` or ``use_completions``),
  the server's URL-mode completions are routed there by a `RedisCompletions`, so a
  callback that lands on another worker still reaches the client that asked. And when
  ``install()`` gets no ``tasks=``, the tasks of ``go_async()`` are kept in a
  `RedisTaskStore` there, so ``tasks/get`` on another worker finds a task this one started.

The key is applied through the SDK's public parts: the server's ``RequestStateBoundary`` is
replaced, in the server's public middleware list, by a new one built with the public
constructors and the key. Only the server's current policy (expiry, principal binding,
audience), which neither SDK exposes, is read privately (`_sdk_private.state_security`).
"""

from __future__ import annotations

import os
from typing import Any

from mcp.server.context import ServerMiddleware
from mcp.server.request_state import (
    RequestStateBoundary,
    RequestStateSecurity,
    authenticated_principal,
)

from elicitkit._replay.store import MemoryStore, OutcomeStore
from elicitkit._replay.tasks import TaskStore
from elicitkit._runtime.url_routes import CompletionRouter, completions_chosen
from elicitkit.integrations._sdk_private import state_security

STATE_KEY_VARIABLE = "MCP_REQUEST_STATE_KEY"
REDIS_URL_VARIABLE = "ELICITKIT_REDIS_URL"
_MIN_KEY_BYTES = 32  # the SDK's own minimum for a sealing key


def defaults_from_environment(
    store: OutcomeStore | None, completions: CompletionRouter | None, tasks: TaskStore | None
) -> tuple[OutcomeStore | None, CompletionRouter | None, TaskStore | None]:
    """Fill what ``install()`` was not given from ``$ELICITKIT_REDIS_URL``, on one client.

    With the variable set: a `RedisStore` for ``store``, a `RedisTaskStore` for ``tasks``,
    and a `RedisCompletions` for ``completions`` unless the author chose a process default
    (`use_completions`). What was given, or everything when the variable is unset, is
    returned as it came. One Redis client (one connection pool) serves all three.
    """
    route = completions is None and not completions_chosen()
    if store is not None and tasks is not None and not route:
        return store, completions, tasks
    redis = _redis_from_environment()
    if redis is None:
        return store, completions, tasks
    # Imported here: each imports redis, an optional dependency, only when the URL is set.
    from elicitkit._replay.redis_store import RedisStore  # noqa: PLC0415
    from elicitkit._replay.redis_tasks import RedisTaskStore  # noqa: PLC0415
    from elicitkit._runtime.redis_completions import RedisCompletions  # noqa: PLC0415

    return (
        RedisStore(redis) if store is None else store,
        RedisCompletions(redis) if route else completions,
        RedisTaskStore(redis) if tasks is None else tasks,
    )


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
        "(the user must start the call afresh). Share one store between the workers: set "
        f"{REDIS_URL_VARIABLE}, or pass install(server, store=RedisStore(...))."
    )


def _redis_from_environment() -> Any:
    url = os.environ.get(REDIS_URL_VARIABLE, "").strip()
    if not url:
        return None
    try:
        from redis.asyncio import Redis  # noqa: PLC0415  (optional dependency)
    except ImportError:
        raise TypeError(
            f"Cannot record dialogues at {REDIS_URL_VARIABLE}: the redis package is not "
            'installed. Install it with pip install "elicitkit[redis]", or unset the variable.'
        ) from None
    return Redis.from_url(url)  # pyright: ignore[reportUnknownMemberType]


def seal_with_environment_key(
    chain: list[ServerMiddleware[Any]], boundary: RequestStateBoundary, *, audience: str | None
) -> RequestStateBoundary:
    """Seal with ``$MCP_REQUEST_STATE_KEY`` when the variable is set; return the boundary.

    The boundary in ``chain`` is replaced by a new one that seals with the key and keeps
    the server's expiry, principal binding and audience (``audience``: the server's name,
    the default audience the SDK gives its own boundary).
    """
    key = os.environ.get(STATE_KEY_VARIABLE, "")
    if not key:
        return boundary
    size = len(key.encode())
    if size < _MIN_KEY_BYTES:
        raise TypeError(
            f"Cannot seal requestState with {STATE_KEY_VARIABLE}: it is {size} bytes, and a "
            f"sealing key needs at least {_MIN_KEY_BYTES} bytes of secret randomness. Set it "
            "to the same random secret in every worker, for example the output of "
            "python -c 'import secrets; print(secrets.token_hex(32))'."
        )
    current = state_security(boundary)
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
            f"Cannot seal requestState with {STATE_KEY_VARIABLE}: {error}. Set it to a random "
            "secret of 32 bytes or more, the same in every worker."
        ) from None
    sealing = RequestStateBoundary(shared, default_audience=audience)
    chain[chain.index(boundary)] = sealing
    return sealing
