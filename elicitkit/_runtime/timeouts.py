"""How long a person has to answer one question, and what is said when the time is up.

The official SDK applies no timeout to a server's ``elicitation/create`` (it waits for
ever unless given one), and the client's own wait for ``tools/call`` is ``None`` by default
too (``Client(read_timeout_seconds=...)``), so without this a question nobody answers
holds its task and its stream for as long as the connection lives. ``ask()`` always
passes its own ``timeout`` to the SDK, which on expiry also sends the client
``notifications/cancelled`` for the request, withdrawing the form.

On 2026-07-28 no request is held open: the question's deadline (asked-at plus
``timeout``) travels in the sealed ``requestState``, and an answer that arrives after it
is refused with `ElicitationTimeout`, the same way every later round.
"""

from __future__ import annotations

import math
from typing import Final, cast

DEFAULT_TIMEOUT: Final = 600.0
"""Seconds a person has to answer each form ``ask()`` shows, by default: 10 minutes.

Long enough to fetch a document or ask a colleague; the same as the C++ SDK's default and
as the lifetime of the SDK's sealed ``requestState`` on 2026-07-28, so a question lasts
equally long on every protocol era.
"""


def check_timeout(timeout: float | None) -> float | None:
    """Refuse a timeout that is not a positive, finite number of seconds (or ``None``)."""
    if timeout is None:
        return None
    if timeout.__class__ is float and 0.0 < timeout < math.inf:
        return timeout  # the usual case (every ask() of a replayed round checks its own)
    given = cast("object", timeout)  # checked at run time: callers may pass anything
    if (
        isinstance(given, bool)
        or not isinstance(given, int | float)
        or not math.isfinite(given)
        or given <= 0
    ):
        raise ValueError(
            f"ask() got timeout={timeout!r}, which is not a positive number of seconds. Pass "
            "the seconds the user has to answer, e.g. timeout=600, or None for no limit."
        )
    return float(timeout)


def timed_out(timeout: float, *, link: bool = False) -> str:
    """The message of `ElicitationTimeout` for a question that waited ``timeout`` seconds.

    ``link``: the question was a URL-mode one (``ask_url()``), which shows a link, not a form.
    """
    if link:
        return (
            f"The user did not answer the link within {timeout:g} seconds, so the question "
            "was withdrawn. Ask again if it is still needed, or pass a longer timeout= to "
            "ask_url()."
        )
    return (
        f"The user did not answer the form within {timeout:g} seconds, so the question was "
        "withdrawn. Ask again if the answer is still needed, or pass a longer timeout= to "
        "ask()."
    )
