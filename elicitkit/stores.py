"""Where 2026-07-28 dialogues are recorded, so each completes at most once, and tasks kept.

`SqliteStore` (the default, in a file per server) is shared by every process on one
machine; `RedisStore` by every process on every machine that serves the same clients
(the ``redis`` extra: ``pip install "redis>=5"``); `MemoryStore` serves one process. Pass one to
``install(server, store=...)``, or name one in ``$ELICITKIT_STORE``; write your own by
implementing `OutcomeStore`.

The tasks of ``go_async()`` live in a `TaskStore` that follows the store: a
`SqliteTaskStore` in a `SqliteStore`'s file, a `RedisTaskStore` with a Redis URL, a
`MemoryTaskStore` otherwise; or the one passed as ``install(server, tasks=...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elicitkit._replay.sqlite_store import SqliteStore
from elicitkit._replay.sqlite_tasks import SqliteTaskStore
from elicitkit._replay.store import CallerFull, Claim, MemoryStore, OutcomeStore, StoreFull
from elicitkit._replay.tasks import MemoryTaskStore, TaskRecord, TaskStore

if TYPE_CHECKING:
    from elicitkit._replay.redis_store import RedisStore
    from elicitkit._replay.redis_tasks import RedisTaskStore

__all__ = [
    "CallerFull",
    "Claim",
    "MemoryStore",
    "MemoryTaskStore",
    "OutcomeStore",
    "RedisStore",
    "RedisTaskStore",
    "SqliteStore",
    "SqliteTaskStore",
    "StoreFull",
    "TaskRecord",
    "TaskStore",
]


def __getattr__(name: str) -> Any:
    # RedisStore imports redis, an optional dependency: only when it is asked for.
    if name == "RedisStore":
        from elicitkit._replay.redis_store import RedisStore  # noqa: PLC0415

        return RedisStore
    if name == "RedisTaskStore":
        from elicitkit._replay.redis_tasks import RedisTaskStore  # noqa: PLC0415

        return RedisTaskStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
