"""The mcp-use Inspector's web UI in headless Chromium, on both of its protocol settings.

The mcp-use Inspector (`@mcp-use/inspector`) connects over streamable HTTP only, so the
interop server runs on loopback over HTTP; the Inspector's connection form chooses the
protocol: ``Auto`` (era ``auto``: it negotiates 2026-07-28 and runs the replay rounds) or
``Legacy (2025-11-25)`` (era ``legacy``: mid-call ``elicitation/create``). Every form is
filled by clicking and typing, screenshotted, and the tool result the Inspector shows is
checked word for word; what it does on its own is recorded with ``observe`` and checked
against docs/clients.json.

The tests of what a person fills in, declines or gets asked again also run on the fastmcp
flavour of the server (`both_flavours`, on 2026-07-28); the others on the official SDK's
server only (`mcp_only`). One Inspector serves the whole module; each flavour and protocol
setting gets its own server and tab.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.interop._facts import Observe
from tests.interop._inspector import chromium, new_page
from tests.interop._mcp_use import (
    TIMEOUT_MS,
    Form,
    call_tool,
    connect,
    decline_every_request,
    next_form,
    outcome,
    result,
    running_inspector,
    running_server,
)
from tests.interop._tools import require_mcp_use_inspector

CLIENT = "mcp-use-inspector"
# (server flavour, protocol setting): fastmcp's server on 2026-07-28 only, where its replay
# rounds differ most from the official SDK's; a session costs about 15 s to set up, and
# the interop suite's time is shared with every other client.
SESSIONS = [("mcp", "auto"), ("mcp", "legacy"), ("fastmcp", "auto")]
both_flavours = pytest.mark.parametrize(("flavour", "era"), SESSIONS, indirect=True)
mcp_only = pytest.mark.parametrize(("flavour", "era"), SESSIONS[:2], indirect=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_mcp_use_inspector()
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One mcp-use Inspector for the module: every tab connects to a server of its own."""
    launcher = require_mcp_use_inspector()
    with running_inspector(launcher, tmp_path_factory.mktemp("mcp-use-inspector")) as url:
        yield url


@dataclass(frozen=True)
class Session:
    """A connected tab: its protocol setting, the server flavour behind it, the page."""

    era: str
    flavour: str
    page: Page


@pytest.fixture(scope="module")
def era(request: pytest.FixtureRequest) -> str:
    """The protocol setting of the Inspector's connection form: ``auto`` or ``legacy``."""
    chosen: str = request.param
    return chosen


@pytest.fixture(scope="module")
def session(
    era: str,
    flavour: str,
    browser: Browser,
    inspector: str,
    observe: Observe,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Session]:
    """A server of that flavour, and a tab connected to it with that protocol setting."""
    workdir = tmp_path_factory.mktemp(f"mcp-use-{flavour}-{era}")
    with running_server(flavour, workdir) as server, new_page(browser) as page:
        observe(CLIENT, era, "protocol", connect(page, inspector, server, era))
        yield Session(era, flavour, page)


@pytest.fixture(autouse=True)
def no_form_left_open(session: Session) -> Iterator[None]:
    """After each test, decline the forms it left open (a failed one does): they would stand
    in the next test's way."""
    yield
    decline_every_request(session.page)


def shoot(session: Session, artifacts: Path, name: str) -> None:
    session.page.screenshot(
        path=artifacts / f"mcp-use-inspector-{session.flavour}-{session.era}-{name}.png"
    )


def fill_stay(form: Form, guest: str, day: str) -> None:
    form.field("guest").fill(guest)
    form.field("nights").fill("3")
    form.field("cabin").select_option(label="Garden side")
    form.page.get_by_role("checkbox", name="Breakfast", exact=True).click()
    form.page.get_by_role("checkbox", name="Late exit", exact=True).click()
    form.field("day").fill(day)
    form.page.get_by_role("checkbox", name="Insured", exact=True).click()


@both_flavours
def test_every_widget_filled_by_hand(session: Session, observe: Observe, artifacts: Path) -> None:
    form = call_tool(session.page, "plan_stay")
    observe(CLIENT, session.era, "date_widget", form.field("day").get_attribute("type"))
    fill_stay(form, "Ada Lovelace", "2026-12-24")
    shoot(session, artifacts, "plan_stay-filled")
    form.button("Accept").click()
    text = result(form)
    observe(CLIENT, session.era, "multi_select_arrives_as", "a list" if "extras=" in text else text)
    assert text == (
        "STAY guest=Ada Lovelace nights=3 cabin=garden extras=breakfast,late "
        "day=2026-12-24 insured=True"
    )


@both_flavours
def test_decline_reaches_the_tool(session: Session, observe: Observe, artifacts: Path) -> None:
    form = call_tool(session.page, "plan_stay")
    form.button("Decline").click()
    text = result(form)
    observe(CLIENT, session.era, "declined_form", text)
    assert text == "NO STAY: decline"


@both_flavours
def test_invalid_values_are_reported_per_field(
    session: Session, observe: Observe, artifacts: Path
) -> None:
    form = call_tool(session.page, "plan_stay")
    fill_stay(form, "A", "20261224")  # too short; digits only, not YYYY-MM-DD
    shoot(session, artifacts, "plan_stay-invalid")
    accept = form.button("Accept")
    observe(CLIENT, session.era, "checks_min_length", accept.is_disabled())
    accept.click()
    text = result(form)
    observe(CLIENT, session.era, "checks_date_format", not text.startswith("INVALID"))
    assert text == (
        "INVALID guest: Must be at least 2 characters long. | "
        "day: Expected a date like 2024-12-31, got '20261224'."
    )


@both_flavours
def test_the_reask_shows_each_problem_in_the_form(session: Session, artifacts: Path) -> None:
    page = session.page
    form = call_tool(page, "stay_reasked")
    fill_stay(form, "A", "20261224")
    form.button("Accept").click()
    # The same form again, its message saying what to correct, the valid answers kept.
    form = next_form(page, form.before)
    expect(
        form.text(
            "Please correct your answer. Guest: Must be at least 2 characters long. "
            "Day: Expected a date like 2024-12-31, got '20261224'.",
            exact=False,  # after the form's own message, "Plan your stay"
        )
    ).to_be_visible(timeout=TIMEOUT_MS)
    expect(form.field("nights")).to_have_value("3", timeout=TIMEOUT_MS)
    shoot(session, artifacts, "stay_reasked-again")
    form.field("guest").fill("Ada Lovelace")
    form.field("day").fill("2026-12-24")
    form.button("Accept").click()
    assert result(form) == "STAY guest=Ada Lovelace nights=3 day=2026-12-24"


@mcp_only
def test_yes_no_untouched(session: Session, observe: Observe, artifacts: Path) -> None:
    form = call_tool(session.page, "yes_or_no")
    accept = form.button("Accept")
    observe(CLIENT, session.era, "bare_bool_submit_enabled_untouched", accept.is_enabled())
    shoot(session, artifacts, "yes_or_no-untouched")
    accept.click()
    assert result(form) == "ANSWER False"


@mcp_only
def test_exclusive_bound(session: Session, observe: Observe, artifacts: Path) -> None:
    form = call_tool(session.page, "tip")
    form.field("value").fill("0")
    shoot(session, artifacts, "tip-bound")
    form.button("Accept").click()
    text = result(form)
    observe(CLIENT, session.era, "sends_exclusive_bound_itself", text.startswith("INVALID"))
    assert text == "INVALID value: Must be greater than 0."


@mcp_only
def test_optional_fields_left_alone(session: Session, observe: Observe, artifacts: Path) -> None:
    form = call_tool(session.page, "preferences")
    shoot(session, artifacts, "preferences-untouched")
    form.button("Accept").click()
    observe(CLIENT, session.era, "untouched_optional_form", result(form))


@mcp_only
def test_url_mode(session: Session, observe: Observe, artifacts: Path) -> None:
    form = call_tool(session.page, "open_link")
    expect(form.text("https://bank.example/authorize")).to_be_visible(timeout=TIMEOUT_MS)
    accept = form.button("Accept")
    expect(accept).to_be_disabled(timeout=TIMEOUT_MS)  # until the person says the page is done
    page = session.page
    page.get_by_role("checkbox", name="I have completed the required action").click()
    shoot(session, artifacts, "open_link-ticked")
    accept.click()
    observe(CLIENT, session.era, "url_mode_accepted", result(form))


@mcp_only
def test_cancel_never_reaches_the_tool(session: Session, observe: Observe, artifacts: Path) -> None:
    # Kept last: on 2025-11-25 the server may then wait for an answer that never comes.
    form = call_tool(session.page, "plan_stay")
    form.button("Cancel").click()
    text = outcome(form)
    shoot(session, artifacts, "plan_stay-cancelled")
    # On 2025-11-25 the client answers the server's request with an error, which ends the
    # tool (ask() raises ElicitationFailed); on 2026-07-28 the client ends the call itself.
    answered = (
        "the call fails in the client: Error executing tool plan_stay: The client answered "
        "the form with an error instead of an answer: User cancelled elicitation request "
        "(code -32603)."
    )
    observe(
        CLIENT,
        session.era,
        "cancelled_form",
        "the client answers error -32603" if text == answered else text,
    )
