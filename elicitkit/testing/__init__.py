"""Test tools that ask questions: a scripted user, client profiles, and a pytest plugin.

Connect the real SDK client to your server (in memory, or over stdio or HTTP), on any
protocol era, answer its forms from a script, and check what the client was shown::

    from elicitkit.testing import ScriptedUser, accept, connect

    user = ScriptedUser(accept(city="Oslo"))
    async with connect(server, protocol="2025-11-25", user=user) as client:
        result = await client.call_tool("ship", {"item": "a teapot"})
    assert user.requests[0].schema["required"] == ["city"]

With pytest, the ``elicit_connect`` fixture does the same on every era (see
`elicitkit.testing.pytest_plugin`).
"""

from typing import TYPE_CHECKING, Any

from elicitkit._client.facts import KNOWN_CLIENTS, PROFILES, ClientProfile
from elicitkit.testing._clock import FakeClock
from elicitkit.testing._user import (
    CLEARED,
    FormRequest,
    Reply,
    ScriptedUser,
    ScriptError,
    accept,
    cancel,
    decline,
    delay,
    invalid,
)

if TYPE_CHECKING:
    from elicitkit.testing._connect import HANG_SECONDS, connect
    from elicitkit.testing._steps import Runs, StepsRunOnce, assert_steps_run_once, count_runs

__all__ = [
    "CLEARED",
    "HANG_SECONDS",
    "KNOWN_CLIENTS",
    "PROFILES",
    "ClientProfile",
    "FakeClock",
    "FormRequest",
    "Reply",
    "Runs",
    "ScriptError",
    "ScriptedUser",
    "StepsRunOnce",
    "accept",
    "assert_steps_run_once",
    "cancel",
    "connect",
    "count_runs",
    "decline",
    "delay",
    "invalid",
]


def __getattr__(name: str) -> Any:
    # `connect` imports the SDK's client: only when it is asked for, not when the pytest
    # plugin (elicitkit.testing.pytest_plugin, loaded in every pytest session) is.
    if name in {"HANG_SECONDS", "connect"}:
        from elicitkit.testing import _connect  # noqa: PLC0415

        return getattr(_connect, name)
    # They import connect too.
    if name in {"Runs", "StepsRunOnce", "assert_steps_run_once", "count_runs"}:
        from elicitkit.testing import _steps  # noqa: PLC0415

        return getattr(_steps, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
