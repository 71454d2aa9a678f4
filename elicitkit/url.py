"""URL mode: send the user to a page (OAuth, payment, credentials) instead of a form.

`ask_url` asks the user to open a page and returns their consent; `require_url` ends the
call until a page is done; the page's server side calls `complete_url` when the user has
finished there. On the 2025 eras the completion is routed to the session that asked: within
one process by `LocalCompletions` (the default), across processes by `RedisCompletions`
(``pip install "elicitkit[redis]"``). Each server has its router
(``install(server, completions=...)``); `complete_url` finds the one that holds the id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elicitkit._runtime.url_mode import ask_url, new_elicitation_id, require_url
from elicitkit._runtime.url_routes import (
    CompletionRouter,
    LocalCompletions,
    complete_url,
    use_completions,
)

if TYPE_CHECKING:
    from elicitkit._runtime.redis_completions import RedisCompletions

__all__ = [
    "CompletionRouter",
    "LocalCompletions",
    "RedisCompletions",
    "ask_url",
    "complete_url",
    "new_elicitation_id",
    "require_url",
    "use_completions",
]


def __getattr__(name: str) -> Any:
    # RedisCompletions imports redis, an optional dependency: only when it is asked for.
    if name == "RedisCompletions":
        from elicitkit._runtime.redis_completions import RedisCompletions  # noqa: PLC0415

        return RedisCompletions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
