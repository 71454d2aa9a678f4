"""Lua scripts sent to Redis by their digest, for `RedisStore` and `RedisTaskStore`.

``EVALSHA`` sends a script's 40-character SHA-1, not its text (up to about 1 KB). A
Redis that does not know it (restarted, flushed with ``SCRIPT FLUSH``, or another server
behind the same address) answers ``NOSCRIPT`` without running anything, and the one
``EVAL`` that follows both runs the script and caches it there: still one atomic step, and
the script never runs twice.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError


async def run_script(
    redis: Any, script: str, keys: Sequence[str], args: Sequence[object]
) -> object:
    """Run ``script`` on ``redis`` by its digest, sending its text only to a Redis without it.

    Args:
        redis: A ``redis.asyncio.Redis`` client (``Any``: its commands are only partly typed).
        script: The Lua script's text.
        keys: The keys it touches (``KEYS``).
        args: Its other arguments (``ARGV``).

    Returns:
        What the script returned, as redis-py parses it.
    """
    try:
        return await redis.execute_command("EVALSHA", _digest(script), len(keys), *keys, *args)
    except NoScriptError:  # NOSCRIPT: it did not run, so this runs it once (and caches it)
        return await redis.execute_command("EVAL", script, len(keys), *keys, *args)


# Keyed by the text, computed once per script: the callers' scripts are module constants.
@functools.cache
def _digest(script: str) -> str:
    return hashlib.sha1(script.encode(), usedforsecurity=False).hexdigest()
