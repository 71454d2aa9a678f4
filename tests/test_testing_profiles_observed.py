"""The real-client profiles against docs/clients.json, fact by fact, on both server SDKs.

The interop suite (tests/interop/) records in docs/clients.json what the MCP Inspector,
fast-agent, the mcp-use Inspector and strands-agents did with elicitkit's forms, and fails
when a client changes until that file is updated (mcp-agent's facts were entered by hand). This test
runs each recorded fact's scenario again, through the testing kit: the same tools
(tests/interop/server.py, on the official ``MCPServer`` and on fastmcp), the same user
actions (as a `ScriptedUser`), the client's profile from ``KNOWN_CLIENTS`` instead of the
client, and the same way of turning what happened into the fact's value. So when the
interop suite records a changed fact, this test fails and names the profile to change; a
new fact without a scenario here fails too.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from elicitkit.testing import (
    CLEARED,
    KNOWN_CLIENTS,
    ClientProfile,
    ScriptedUser,
    ScriptError,
    accept,
    cancel,
    connect,
    decline,
)
from tests.interop._facts import documented
from tests.interop.server import build
from tests.interop.task_server import build_with_tasks

pytestmark = pytest.mark.anyio

FACTS = documented()
CASES = [
    pytest.param(client, era, fact, id=f"{client}-{era}-{fact}")
    for client, entry in FACTS["clients"].items()
    for era, facts in entry["eras"].items()
    for fact in facts
]

# The interop suite's plan_stay answers (tests/interop/test_*.py: fill_stay), as content.
STAY = {"guest": "Ada Lovelace", "nights": 3, "cabin": "garden", "extras": ["breakfast", "late"]}


class Run:
    """One scenario's session: the interop server of one SDK, a profile, a protocol."""

    def __init__(self, sdk: str, profile: ClientProfile, protocol: str) -> None:
        self.sdk = sdk
        self.profile = profile
        self.protocol = protocol
        self.version = ""  # what the client spoke

    async def call(
        self,
        tool: str,
        user: ScriptedUser,
        arguments: dict[str, Any] | None = None,
        server: Callable[[str], Any] = build,
    ) -> str:
        """Call ``tool`` on a fresh server, answering with ``user``; the text shown.

        A call that fails inside the client is shown as the interop suite reports it.
        """
        async with connect(
            server(self.sdk), protocol=self.protocol, user=user, profile=self.profile
        ) as client:
            self.version = client.protocol_version or ""
            try:
                result = await client.call_tool(tool, arguments or {})
            except MCPError as error:
                return f"the call fails in the client: {error.error.message}"
        [block] = result.content
        assert isinstance(block, types.TextContent)
        return block.text


async def protocol(run: Run) -> str:
    # An answer given, not left to the prefilled default: some profiles prefill none.
    await run.call("yes_or_no", ScriptedUser(accept(value=True)))
    return run.version


async def date_widget(run: Run) -> str:
    # A date input would not let a person type 20261224; a text box sends it as typed.
    return "text" if await checks_date_format(run) is False else "date"


async def checks_min_length(run: Run) -> bool:
    # A client that stops the text keeps the form open: the person then cancels it.
    user = ScriptedUser(accept(STAY, guest="A", day="2026-12-24"), cancel())
    text = await run.call("plan_stay", user)
    [request] = user.requests
    stopped = bool(request.stopped)
    assert text == (
        "NO STAY: cancel" if stopped else "INVALID guest: Must be at least 2 characters long."
    )
    return stopped


async def checks_date_format(run: Run) -> bool:
    user = ScriptedUser(accept(STAY, day="20261224"), cancel())
    return not (await run.call("plan_stay", user)).startswith("INVALID")


async def bare_bool_submit_enabled_untouched(run: Run) -> bool:
    return await run.call("yes_or_no", ScriptedUser(accept())) == "ANSWER False"


async def sends_exclusive_bound_itself(run: Run) -> bool:
    return (await run.call("tip", ScriptedUser(accept(value=0)))).startswith("INVALID")


async def untouched_optional_form(run: Run) -> str:
    return await run.call("preferences", ScriptedUser(accept()))


async def cleared_optional_select(run: Run) -> str:
    return _cleared_summary(await run.call("preferences", ScriptedUser(accept(pillow=CLEARED))))


async def cleared_optional_number(run: Run) -> str:
    return _cleared_summary(await run.call("preferences", ScriptedUser(accept(floor=CLEARED))))


async def declined_form(run: Run) -> str:
    return await run.call("plan_stay", ScriptedUser(decline()))


async def cancelled_form(run: Run) -> str:
    return _error_summary(await run.call("plan_stay", ScriptedUser(cancel())))


async def multi_select_arrives_as(run: Run) -> str:
    user = ScriptedUser(accept(STAY, day="2026-12-24", insured=True))
    text = await run.call("plan_stay", user)
    if text.startswith("STAY"):
        return "a list"
    return "text" if text.startswith("INVALID extras: Expected a list") else text


async def url_mode_accepted(run: Run) -> str:
    return _error_summary(await run.call("open_link", ScriptedUser(accept())))


async def skips_optional_flags(run: Run) -> bool:
    try:
        await run.call("preferences", ScriptedUser(accept()))
    except ScriptError:
        return False  # the profile refused to leave them out: the real client cannot
    return True


async def go_async_with_question(run: Run) -> str:
    # The tool's counters live in its module, for the whole test process: a title of its own.
    title = uuid.uuid4().hex
    user = ScriptedUser(accept(name="Ada"), accept(copies=2))
    text = await run.call("render", user, {"title": title}, build_with_tasks)
    return text.partition(": ")[2]


def _error_summary(text: str) -> str:
    """The interop suite's words for a client that answered a request with an error."""
    return "the client answers error -32603" if text.endswith("(code -32603).") else text


def _cleared_summary(text: str) -> str:
    """The interop suite's words for what became of an answer with a cleared field."""
    if text.startswith("PREFS"):
        assert text == "PREFS pillow=None view=garden newsletter=None towels=None floor=None"
        return "arrives as absent"
    if text.endswith("(code -32602)."):
        return "the client answers error -32602"
    return text


SCENARIOS: dict[str, Callable[[Run], Awaitable[Any]]] = {
    scenario.__name__: scenario
    for scenario in (
        protocol,
        date_widget,
        checks_min_length,
        checks_date_format,
        bare_bool_submit_enabled_untouched,
        sends_exclusive_bound_itself,
        untouched_optional_form,
        cleared_optional_select,
        cleared_optional_number,
        declined_form,
        cancelled_form,
        multi_select_arrives_as,
        url_mode_accepted,
        skips_optional_flags,
        go_async_with_question,
    )
}


def test_every_observed_fact_has_a_scenario() -> None:
    assert set(FACTS["facts"]) == set(SCENARIOS), (
        "docs/clients.json describes facts this test cannot check yet: add a scenario for "
        "each to tests/test_testing_profiles_observed.py"
    )


def test_every_observed_client_has_a_profile() -> None:
    assert set(FACTS["clients"]) <= set(KNOWN_CLIENTS)
    for client, entry in FACTS["clients"].items():
        spoken = {era["protocol"] for era in entry["eras"].values()}
        assert spoken == set(KNOWN_CLIENTS[client].protocols), client


def test_every_fact_a_profile_cites_is_recorded() -> None:
    for client in FACTS["clients"]:
        profile = KNOWN_CLIENTS[client]
        cited = [
            fact
            for _, source in profile.sources
            if source.startswith("docs/clients.json")
            for fact in re.findall(r"'([a-z_]+)'", source)
        ]
        assert cited, client
        for fact in cited:
            assert fact in FACTS["facts"], f"{client} cites {fact!r}, not in docs/clients.json"


@pytest.mark.parametrize(("client", "era", "fact"), CASES)
async def test_profile_does_what_the_real_client_did(
    sdk: str, client: str, era: str, fact: str
) -> None:
    observed = FACTS["clients"][client]["eras"][era]
    run = Run(sdk, KNOWN_CLIENTS[client], observed["protocol"])
    reproduced = await SCENARIOS[fact](run)
    assert reproduced == observed[fact], (
        f"{client} on {era}: docs/clients.json says {fact!r} is {observed[fact]!r}, but the "
        f"testing kit's {client!r} profile gives {reproduced!r}. Update the profile "
        "(KNOWN_CLIENTS in elicitkit/_client_facts.py; behaviours in "
        "elicitkit/testing/_connect.py) to match the real client."
    )
