"""URL mode: send the user to a page (OAuth, payment, credentials) instead of a form.

`ask_url` asks the user to open a page and returns their consent; `require_url` ends the
call until a page is done; the page's server side calls `complete_url` when the user has
finished there. On the 2025 eras the completion is routed to the session that asked, by a
`UrlRouter` that follows the server's store: `SqliteUrlRouter` between the processes of one
machine (in the records' file, the default), `RedisUrlRouter` across machines
(the ``redis`` extra: ``pip install "redis>=5"``), `LocalUrlRouter` within one process (with a
`MemoryStore`). ``install(server, url_router=...)`` chooses another; `complete_url` finds
the one that holds the id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elicitkit._runtime.sqlite_url_router import SqliteUrlRouter
from elicitkit._runtime.url_mode import ask_url, new_elicitation_id, require_url
from elicitkit._runtime.url_routes import (
    LocalUrlRouter,
    UrlRouter,
    complete_url,
    use_url_router,
)

if TYPE_CHECKING:
    from elicitkit._runtime.redis_url_router import RedisUrlRouter

__all__ = [
    "LocalUrlRouter",
    "RedisUrlRouter",
    "SqliteUrlRouter",
    "UrlRouter",
    "ask_url",
    "complete_url",
    "new_elicitation_id",
    "require_url",
    "use_url_router",
]


def __getattr__(name: str) -> Any:
    # RedisUrlRouter imports redis, an optional dependency: only when it is asked for.
    if name == "RedisUrlRouter":
        from elicitkit._runtime.redis_url_router import RedisUrlRouter  # noqa: PLC0415

        return RedisUrlRouter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
