"""Static typing contract of ``elicitkit.testing``: only type-checked, never executed."""

from __future__ import annotations

from typing import Any

from mcp import Client
from typing_extensions import assert_type

from elicitkit.testing import (
    KNOWN_CLIENTS,
    PROFILES,
    ClientProfile,
    FormRequest,
    Reply,
    Runs,
    ScriptedUser,
    StepsRunOnce,
    accept,
    assert_steps_run_once,
    cancel,
    connect,
    count_runs,
    decline,
    delay,
    invalid,
)


async def check_connect(server: Any) -> None:
    user = ScriptedUser(accept(city="Oslo"), decline(), cancel())
    assert_type(user.on_form(bool, accept(value=True)), ScriptedUser)
    assert_type(user.on_key("city", invalid(city="")), ScriptedUser)
    assert_type(user.on_message(r"^Ship", delay(0.1, accept())), ScriptedUser)
    async with connect(
        server, protocol="2025-06-18", user=user, profile=PROFILES["form-only"]
    ) as client:
        assert_type(client, Client)
    assert_type(user.requests, list[FormRequest])
    assert_type(user.requests[0].reply, Reply | None)
    assert_type(user.schemas, list[dict[str, Any]])
    assert_type(KNOWN_CLIENTS["codex"], ClientProfile)
    assert_type(PROFILES["codex"].number_widgets, bool)
    assert_type(KNOWN_CLIENTS["mcp-use-inspector"].fills_inputs, bool)
    assert_type(KNOWN_CLIENTS["mcp-agent"].must_answer_flags, bool)


async def check_steps_run_once(server: Any, steps_run_once: StepsRunOnce) -> None:
    runs = await steps_run_once([server, server], "buy", {"item": "lamp"}, user=ScriptedUser())
    assert_type(runs, Runs)
    assert_type(runs.steps["pay"], int)
    fixture: StepsRunOnce = assert_steps_run_once  # the fixture is the function
    assert_type(await fixture(server, "buy", user=ScriptedUser()), Runs)


def user_for_every_era() -> ScriptedUser:
    return ScriptedUser(accept(value=True))


def user_for_one_era(protocol: str) -> ScriptedUser:
    return ScriptedUser(accept(value=protocol != "2025-06-18"))


async def check_count_runs(server: Any) -> None:
    assert_type(await count_runs(server, "buy", user=user_for_every_era), list[Runs])
    assert_type(await count_runs(server, "buy", user=user_for_one_era), list[Runs])
    fresh = await count_runs(server, "buy", user=lambda protocol: ScriptedUser(accept(v=protocol)))
    assert_type(fresh, list[Runs])
    assert_type(await count_runs(server, "buy", user=ScriptedUser), list[Runs])
