"""The Vercel AI SDK's MCP client (@ai-sdk/mcp) against the interop server, through its handler.

A Node script (ai_sdk_client.mjs) runs the real client; the test tells it which tool to call
and how its elicitation handler answers each question (accept with content, decline,
cancel), and reads back the result and every requested schema. It speaks 2026-07-28 by
default (era ``auto``: it probes with ``server/discover``) and 2025-11-25 with
``protocolVersionDiscovery: false`` (era ``legacy``), over stdio (the client starts the
server) and streamable HTTP (the server on loopback, ``server.py FLAVOUR --http PORT``), on
both server flavours: one client session per era, transport and flavour serves every test.

Over stdio each session sets ``transport.waitsForProtocolVersionDiscovery = true``: on its
default settings the client gives up on the probe after one second and sends `initialize`
on the same connection, which a server that started more slowly answers with -32022
(docs/clients.md). `test_default_settings_lose_the_stdio_probe_race` shows that failure
with a server that starts, without any clock, only after the client's second message.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop._ai_sdk import CANCEL, DECLINE, AiSdk, accept, ai_sdk, http, stdio
from tests.interop._facts import Observe
from tests.interop._inspector import _free_port, listening  # pyright: ignore[reportPrivateUsage]
from tests.interop._ledger import answers, count
from tests.interop._tools import ROOT, SERVER, both_flavours, mcp_only, require_ai_sdk
from tests.interop.server import STAY

CLIENT = "ai-sdk"
SLOW_START = Path(__file__).resolve().with_name("slow_start.py")
ZERO_CONFIG = ROOT / "tests" / "servers" / "zero_config.py"
# (era, transport): the era names of docs/clients.json.
CELLS = [("auto", "stdio"), ("auto", "http"), ("legacy", "stdio"), ("legacy", "http")]
URL_REFUSED = (
    "This client cannot open a URL for the user (it declared elicitation without URL mode), "
    "so the tool could not send the user to the page. Give the user the link in the tool's "
    "result instead."
)


def server_env() -> dict[str, str]:
    """What a server started by the client needs of this run's environment."""
    return {
        "PYTHONPATH": str(ROOT),
        # The run's own state folder (tests/conftest.py), for the servers' record files.
        "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"],
    }


@pytest.fixture(scope="module", params=CELLS, ids=["-".join(cell) for cell in CELLS])
def session(
    request: pytest.FixtureRequest,
    flavour: str,
    tmp_path_factory: pytest.TempPathFactory,
    artifacts: Path,
    observe: Observe,
) -> Iterator[tuple[str, str, AiSdk]]:
    """(era, transport, client) of one AI SDK session on the interop server of FLAVOUR."""
    package = require_ai_sdk()
    era, transport = request.param
    workdir = tmp_path_factory.mktemp(f"ai-sdk-{flavour}-{era}-{transport}")
    log = artifacts / f"ai-sdk-{flavour}-{era}-{transport}.log"
    discovery = era == "auto"
    if transport == "stdio":
        argv = [sys.executable, str(SERVER), flavour]
        with ai_sdk(package, stdio(argv, server_env()), log, discovery=discovery) as client:
            assert client.failed is None, client.failed
            observe(CLIENT, era, "protocol", client.protocol)
            yield era, transport, client
        return
    port = _free_port()
    argv = [sys.executable, str(SERVER), flavour, "--http", str(port)]
    with (
        listening(argv, port, workdir, workdir / "server.log"),
        ai_sdk(package, http(f"http://127.0.0.1:{port}/mcp"), log, discovery=discovery) as client,
    ):
        assert client.failed is None, client.failed
        observe(CLIENT, era, "protocol", client.protocol)
        yield era, transport, client


@both_flavours
def test_every_field_kind_arrives_typed(session: tuple[str, str, AiSdk], observe: Observe) -> None:
    era, _, client = session
    stay = client.call("plan_stay", accept(**STAY))
    # A multi-select the server could not read as a list would have been reported INVALID.
    observe(
        CLIENT,
        era,
        "multi_select_arrives_as",
        "a list" if stay.text.startswith("STAY") else stay.text,
    )
    assert stay.text == (
        "STAY guest=Ada Lovelace nights=3 cabin=garden extras=breakfast,late "
        "day=2026-12-24 insured=True"
    )
    [asked] = stay.asked
    assert asked["message"] == "Plan your stay"
    kinds = {
        key: (field["type"], field.get("format"), "oneOf" in field, "items" in field)
        for key, field in asked["requestedSchema"]["properties"].items()
    }
    assert kinds == {
        "guest": ("string", None, False, False),
        "nights": ("integer", None, False, False),
        "cabin": ("string", None, True, False),
        "extras": ("array", None, False, True),
        "day": ("string", "date", False, False),
        "insured": ("boolean", None, False, False),
    }
    assert client.call("tip", accept(value=2.5)).text == "TIP 2.5"
    assert client.call("yes_or_no", accept(value=False)).text == "ANSWER False"


@both_flavours
def test_optional_fields_and_defaults(session: tuple[str, str, AiSdk], observe: Observe) -> None:
    era, _, client = session
    untouched = client.call("preferences", accept())
    [asked] = untouched.asked
    assert asked["requestedSchema"]["properties"]["view"]["default"] == "garden"
    assert asked["requestedSchema"].get("required", []) == []
    observe(CLIENT, era, "untouched_optional_form", untouched.text)
    filled = client.call(
        "preferences",
        accept(pillow="firm", view="sea", newsletter=True, towels=["parking"], floor=3),
    )
    assert filled.text == "PREFS pillow=firm view=sea newsletter=True towels=parking floor=3"


@both_flavours
def test_decline_and_cancel_reach_the_tool(
    session: tuple[str, str, AiSdk], observe: Observe
) -> None:
    era, _, client = session
    observe(CLIENT, era, "declined_form", client.call("plan_stay", DECLINE).text)
    observe(CLIENT, era, "cancelled_form", client.call("plan_stay", CANCEL).text)


@both_flavours
def test_an_invalid_answer_is_reported_then_asked_again(
    session: tuple[str, str, AiSdk], observe: Observe
) -> None:
    era, _, client = session
    # The handler's content goes to the server as given: the client checks none of it.
    invalid = client.call("plan_stay", accept(**{**STAY, "guest": "A", "day": "20261224"}))
    observe(CLIENT, era, "checks_min_length", not invalid.text.startswith("INVALID guest"))
    observe(CLIENT, era, "checks_date_format", "day: Expected a date" not in invalid.text)
    assert invalid.text == (
        "INVALID guest: Must be at least 2 characters long. | "
        "day: Expected a date like 2024-12-31, got '20261224'."
    )
    bound = client.call("tip", accept(value=0))
    observe(CLIENT, era, "sends_exclusive_bound_itself", bound.text.startswith("INVALID"))
    reasked = client.call("stay_reasked", accept(**{**STAY, "guest": "A"}), accept(**STAY))
    assert reasked.text == "STAY guest=Ada Lovelace nights=3 day=2026-12-24"
    first, second = reasked.asked
    assert first["message"] == "Plan your stay"
    assert second["message"] == (
        "Plan your stay\n\nPlease correct your answer. Guest: Must be at least 2 characters long."
    )
    # The form comes again with the valid answers kept as its defaults.
    defaults = {
        key: field.get("default") for key, field in second["requestedSchema"]["properties"].items()
    }
    assert defaults == {**STAY, "guest": None}


@both_flavours
def test_url_mode_is_refused_before_anything_is_sent(session: tuple[str, str, AiSdk]) -> None:
    # The client declares forms only (elicitation: {}), so ask_url() sends no request. On
    # 2026-07-28 the call fails with the missing capability's error (-32021), which the
    # client passes on; on 2025-11-25 it is a tool error (worded by the server's SDK).
    era, _, client = session
    refused = client.call("open_link", accept())
    assert (refused.asked, refused.unused) == ([], 1)
    if era == "auto":
        assert refused.error == {"message": URL_REFUSED, "code": -32021}
    else:
        assert refused.result is not None
        assert refused.result["isError"] is True
        assert refused.text.endswith(URL_REFUSED)


@both_flavours
def test_go_async_without_tasks_follows_the_replay_rule(session: tuple[str, str, AiSdk]) -> None:
    era, _, client = session
    # 12 pages: no other call of this session's server asks for 12 (server.py counts by it).
    report = client.call("long_report", accept(value=12), accept(value=2))
    assert [asked["message"] for asked in report.asked] == ["How many pages?", "How many copies?"]
    # No Tasks extension: go_async() returns False. On 2026-07-28 each question is a replay
    # round, so the code after go_async() runs in the second round and again in the third
    # (docs/long-work.md); on 2025-11-25 the questions come mid-call and it runs once.
    ran = 2 if era == "auto" else 1
    assert report.text == f"REPORT pages=12 copies=2 task=False after_go_async_ran={ran}"


@mcp_only
def test_default_settings_lose_the_stdio_probe_race(flavour: str, artifacts: Path) -> None:
    """The client's bug, reproduced: a server that starts after the probe gets -32022.

    The server starts once the client has written two messages: the `server/discover` probe,
    then, having waited its one second for an answer that could not come, `initialize`. The
    server reads the probe first, so it serves 2026-07-28 and refuses the handshake.
    """
    package = require_ai_sdk()
    argv = [sys.executable, str(SLOW_START), "2", sys.executable, str(SERVER), flavour]
    log = artifacts / "ai-sdk-probe-race.log"
    with ai_sdk(package, stdio(argv, server_env()), log, waits=False) as client:
        assert client.failed is not None
        assert client.failed == {
            "message": (
                "connection is serving the 2026-07-28 protocol; the initialize handshake "
                "is not accepted"
            ),
            "code": -32022,
        }


@mcp_only
def test_the_workaround_waits_for_a_server_that_starts_after_the_probe(
    flavour: str, artifacts: Path
) -> None:
    # The server starts only once the probe has arrived: the client must wait for it.
    package = require_ai_sdk()
    argv = [sys.executable, str(SLOW_START), "1", sys.executable, str(SERVER), flavour]
    log = artifacts / "ai-sdk-probe-waits.log"
    with ai_sdk(package, stdio(argv, server_env()), log, waits=True) as client:
        assert client.failed is None, client.failed
        assert client.protocol == "2026-07-28"
        assert client.call("yes_or_no", accept(value=True)).text == "ANSWER True"


@both_flavours
@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_without_forms_the_listing_is_answered_through_the_model(
    flavour: str, era: str, tmp_path: Path, artifacts: Path
) -> None:
    """No elicitation declared: the `ask_model` listing, then `answer_form`, one payment."""
    package = require_ai_sdk()
    ledger = tmp_path / "ledger.sqlite3"
    env = {**server_env(), "SERVER_SDK": flavour, "LEDGER": str(ledger)}
    transport = stdio([sys.executable, str(ZERO_CONFIG), "stdio"], env)
    log = artifacts / f"ai-sdk-no-forms-{flavour}-{era}.log"
    with ai_sdk(package, transport, log, discovery=era == "auto", forms=False) as client:
        assert client.failed is None, client.failed
        listing = client.call("trip", arguments={"item": "oslo"})
        assert "Question: How many seats for oslo?" in listing.text
        confirm = client.call("answer_form", arguments=answers(listing, count=2))
        assert "Question: Pay for reservation 1?" in confirm.text
        paid, again = (
            client.call("answer_form", arguments=answers(confirm, ok=True)) for _ in range(2)
        )
    assert paid.text == again.text == "oslo: 2 seats, reservation 1, receipt 1"
    assert [call.asked for call in client.calls] == [[]] * 4  # nothing went to a handler
    assert (count(ledger, "oslo", "reserve"), count(ledger, "oslo", "pay")) == (1, 1)


@both_flavours
def test_stateless_http_on_two_workers_runs_each_step_once(
    flavour: str, tmp_path: Path, artifacts: Path
) -> None:
    """2026-07-28 over stateless HTTP, two uvicorn workers: any round may reach either one.

    zero_config.py configures nothing: the default SQLite records make each durable step,
    and the payment, happen once however the rounds fall (docs/records.md).
    """
    package = require_ai_sdk()
    ledger = tmp_path / "ledger.sqlite3"
    port = _free_port()
    app = "tests.servers.zero_config:app"
    argv = [sys.executable, "-m", "uvicorn", app, "--port", str(port), "--workers", "2"]
    env = {**os.environ, **server_env(), "SERVER_SDK": flavour, "LEDGER": str(ledger)}
    log = artifacts / f"ai-sdk-stateless-{flavour}.log"
    with (
        listening(argv, port, ROOT, tmp_path / "server.log", env),
        ai_sdk(package, http(f"http://127.0.0.1:{port}/mcp"), log) as client,
    ):
        assert client.protocol == "2026-07-28"
        trip = client.call("trip", accept(count=2), accept(ok=True), arguments={"item": "oslo"})
    assert [asked["message"] for asked in trip.asked] == [
        "How many seats for oslo?",
        "Pay for reservation 1?",
    ]
    assert trip.text == "oslo: 2 seats, reservation 1, receipt 1"
    assert (count(ledger, "oslo", "reserve"), count(ledger, "oslo", "pay")) == (1, 1)
    assert count(ledger, "oslo", "round") == 3  # one round per question, and the last
