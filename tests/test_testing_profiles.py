"""The testing kit on the example servers: every protocol era, every client profile.

Uses the kit exactly as an author would: the pytest plugin's ``elicit_connect`` (one run per
era) and ``elicit_profile`` (one run per profile) fixtures, the real SDK client in memory.
Each example runs as written (official SDK) and with its tool on a fastmcp server (the
``sdk`` fixture), which ``connect()`` takes as it is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

import elicitkit
from elicitkit.testing import PROFILES, ClientProfile, ScriptedUser, ScriptError, accept
from tests.sdks import new_server, tool_error
from tests.test_stdio import BOOKING, SHIPPING, _load_example

pytestmark = pytest.mark.anyio

shipping = _load_example(SHIPPING)
booking = _load_example(BOOKING)


def example_server(sdk: str, example: Any) -> Any:
    """The example's own server, or a fastmcp server with the example's tool on it."""
    if sdk == "mcp":
        return example.server
    twin = new_server("fastmcp", example.server.name)
    twin.tool()(example.ship if example is shipping else example.book_table)
    return twin


ADDRESS = {
    "name": "Ada Lovelace",
    "street": "1 Main Street",
    "city": "Oslo",
    "zip_code": "0150",
    "speed": "express",
}
SHIPPED = "Shipping a teapot to Ada Lovelace, 1 Main Street, 0150 Oslo (express)."
NO_FORMS = "This client cannot show forms; ask the user for the address and call again."
TIMED_OUT = (
    "The client answered the form with an error instead of an answer: Request timed out "
    "(code -32001)."
)  # the client's own timeout: an error it sent, not ask()'s (which says so in words)
NO_CONTENT = (
    "The answer to ShippingAddress has 4 problems: name: This field is required. street: "
    "This field is required. city: This field is required. zip_code: This field is required."
)

# What the shipping tool returns for each profile (an error's text, as tool_error
# frames it), and how many forms the client saw.
SHIPPING_OUTCOMES: dict[str, tuple[str, int]] = {
    "no-elicitation": (NO_FORMS, 0),
    "form-only": (SHIPPED, 2),
    "declines-everything": ("Shipping cancelled: the user chose to decline.", 1),
    "never-renders": (TIMED_OUT, 1),
    "ignores-defaults": (SHIPPED, 2),
    "strict-keys": (SHIPPED, 2),
    # `floor: int | None` has no input: Codex-like clients approve with no content.
    # Asked again twice (ask()'s default retries), empty every time.
    "no-number-or-multi-select": (NO_CONTENT, 3),
    "2025-06-18-only": (SHIPPED, 2),
    "2025-eras-only": (SHIPPED, 2),
}


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def shipping_user() -> ScriptedUser:
    return (
        ScriptedUser()
        .on_form(shipping.ShippingAddress, *[accept(ADDRESS)] * 3)
        .on_key("value", accept(value=True))
    )


def spoken(profile: ClientProfile, wanted: str) -> str:
    """The version a client with ``profile`` speaks when the test asks for ``wanted``."""
    return wanted if wanted in profile.protocols else profile.protocols[-1]


def test_the_plugin_is_registered_by_its_entry_point(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.has_plugin("elicitkit")


def test_every_profile_is_a_known_behaviour() -> None:
    assert set(PROFILES) == set(SHIPPING_OUTCOMES)
    assert all(profile.evidence for profile in PROFILES.values())


async def test_shipping_well_behaved_client(
    sdk: str, elicit_connect: Any, elicit_protocol: str
) -> None:
    user = shipping_user()
    async with elicit_connect(example_server(sdk, shipping), user=user) as client:
        assert client.protocol_version == elicit_protocol
        result = await client.call_tool("ship", {"item": "a teapot"})
    assert text_of(result) == SHIPPED
    address, confirm = user.requests
    assert address.schema == elicitkit.requested_schema(
        shipping.ShippingAddress, protocol=elicit_protocol
    )
    assert confirm.message == "Ship a teapot to 1 Main Street, Oslo by express?"
    assert address.sent == {"action": "accept", "content": ADDRESS}


async def test_shipping_on_every_profile(
    sdk: str, elicit_connect: Any, elicit_protocol: str, elicit_profile: ClientProfile
) -> None:
    user = shipping_user()
    expected, shown = SHIPPING_OUTCOMES[elicit_profile.name]
    async with elicit_connect(
        example_server(sdk, shipping), user=user, profile=elicit_profile, hang_seconds=0.05
    ) as client:
        version = spoken(elicit_profile, elicit_protocol)
        assert client.protocol_version == version
        if elicit_profile.name == "never-renders" and version == "2026-07-28":
            # No mid-call request to fail: the client's own retry loop gives up.
            with pytest.raises(MCPError, match=r"^Request timed out$"):
                await client.call_tool("ship", {"item": "a teapot"})
        else:
            result = await client.call_tool("ship", {"item": "a teapot"})
            failed = expected in (TIMED_OUT, NO_CONTENT)
            framed = tool_error(sdk, "ship", expected) if failed else expected
            assert text_of(result) == framed
            assert result.is_error == failed
    assert len(user.requests) == shown
    for request in user.requests:
        assert request.protocol == version
        assert request.schema["type"] == "object"


@pytest.mark.parametrize(
    ("profile", "sent_speed"),
    [
        pytest.param(None, {"2025-06-18": None}, id="applies-defaults"),
        pytest.param(PROFILES["ignores-defaults"], {}, id="ignores-defaults"),
    ],
)
async def test_defaults_are_sent_back_only_by_clients_that_apply_them(
    sdk: str,
    elicit_connect: Any,
    elicit_protocol: str,
    profile: ClientProfile | None,
    sent_speed: dict[str, str | None],
) -> None:
    user = ScriptedUser().on_form(
        shipping.ShippingAddress, accept({k: v for k, v in ADDRESS.items() if k != "speed"})
    )
    user.on_key("value", accept(value=True))
    async with elicit_connect(example_server(sdk, shipping), user=user, profile=profile) as client:
        result = await client.call_tool("ship", {"item": "a teapot"})
    assert text_of(result) == SHIPPED.replace("express", "standard")
    assert user.requests[0].sent is not None
    content = user.requests[0].sent["content"]
    # 2025-06-18 puts defaults on booleans only: there is no default to send back.
    speed = sent_speed.get(elicit_protocol, "standard" if profile is None else None)
    assert content.get("speed") == speed


BOOKING_ANSWER = {"name": "Ada", "day": "2026-12-24", "guests": 4, "time": "21:00"}


BOOKING_UNSUPPORTED = (
    "This client cannot show forms (it did not declare the elicitation capability), so the "
    "tool could not ask the user for Booking."
)


async def test_booking_on_every_profile(
    sdk: str, elicit_connect: Any, elicit_protocol: str, elicit_profile: ClientProfile
) -> None:
    # Three answers: a client that drops content is asked again twice (default retries).
    user = ScriptedUser(*[accept(BOOKING_ANSWER)] * 3)
    name = elicit_profile.name
    version = spoken(elicit_profile, elicit_protocol)
    async with elicit_connect(
        example_server(sdk, booking), user=user, profile=elicit_profile, hang_seconds=0.05
    ) as client:
        if version == "2026-07-28" and name in ("never-renders", "no-elicitation"):
            # The booking tool does not catch ElicitationUnsupported: on 2026-07-28 that is
            # the spec's MissingRequiredClientCapability error; a form that never comes back
            # fails the client's own retry loop.
            with pytest.raises(MCPError) as caught:
                await client.call_tool("book_table", {"restaurant": "Noma"})
            expected = BOOKING_UNSUPPORTED if name == "no-elicitation" else "Request timed out"
            assert caught.value.message == expected
            return
        result = await client.call_tool("book_table", {"restaurant": "Noma"})
    text = text_of(result)
    if name == "no-elicitation":
        assert result.is_error
        assert text == tool_error(sdk, "book_table", BOOKING_UNSUPPORTED)
    elif name == "declines-everything":
        assert text == "No booking made."
    elif name == "never-renders":
        assert text == tool_error(sdk, "book_table", TIMED_OUT)
    elif name == "no-number-or-multi-select":  # `guests` is an integer
        assert text.startswith("The booking was not valid: name: This field is required.")
    else:
        assert text == "Booked Noma for 4 on Thursday 24 December at 21:00, inside, under Ada."


def test_docs_list_every_profile_and_client_with_its_evidence() -> None:
    from elicitkit.testing import KNOWN_CLIENTS  # noqa: PLC0415
    from tests.test_stdio import REPO  # noqa: PLC0415

    page = (REPO / "docs" / "testing.md").read_text()
    for profile in (*PROFILES.values(), *KNOWN_CLIENTS.values()):
        assert f"| `{profile.name}` | {profile.summary} | {profile.evidence} |" in page


KNOWN_CLIENT_OUTCOMES = {
    "claude-code": SHIPPED,
    "claude-desktop": TIMED_OUT,
    "codex": NO_CONTENT,
    "copilot-cli": SHIPPED,
    "fast-agent": SHIPPED,
    "gemini-cli": NO_FORMS,
    "goose": SHIPPED,
    "mcp-agent": "ScriptError",  # the script leaves `floor` out, which mcp-agent cannot
    "mcp-inspector": SHIPPED,
    "mcp-use-inspector": SHIPPED,
    "vscode-copilot": SHIPPED,
    "ai-sdk": SHIPPED,
    "mcp-inspector-cli": NO_FORMS,
    "strands-agents": SHIPPED,
}


@pytest.mark.parametrize("name", list(KNOWN_CLIENT_OUTCOMES))
async def test_shipping_on_known_clients(
    sdk: str, elicit_connect: Any, elicit_protocol: str, name: str
) -> None:
    from elicitkit.testing import KNOWN_CLIENTS  # noqa: PLC0415

    assert set(KNOWN_CLIENTS) == set(KNOWN_CLIENT_OUTCOMES)
    client_profile = KNOWN_CLIENTS[name]
    version = spoken(client_profile, elicit_protocol)
    if name == "mcp-agent":
        with pytest.raises(ScriptError) as refused:
            async with elicit_connect(
                example_server(sdk, shipping), user=shipping_user(), profile=client_profile
            ) as client:
                await client.call_tool("ship", {"item": "a teapot"})
        assert str(refused.value) == (
            "The scripted answer to 'Where should we ship your order?' leaves the optional "
            "field 'floor' unanswered, but the mcp-agent profile cannot leave an optional "
            "yes/no or number empty. Give the field a value."
        )
        return
    async with elicit_connect(
        example_server(sdk, shipping),
        user=shipping_user(),
        profile=client_profile,
        hang_seconds=0.05,
    ) as client:
        assert client.protocol_version == version
        if name == "claude-desktop" and version == "2026-07-28":
            with pytest.raises(MCPError, match=r"^Request timed out$"):
                await client.call_tool("ship", {"item": "a teapot"})
            return
        result = await client.call_tool("ship", {"item": "a teapot"})
    expected = KNOWN_CLIENT_OUTCOMES[name]
    failed = expected in (TIMED_OUT, NO_CONTENT)
    assert text_of(result) == (tool_error(sdk, "ship", expected) if failed else expected)


USER_TEST_FILE = """
from dataclasses import dataclass

import pytest
from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install
from elicitkit.testing import ScriptedUser, accept
from mcp.shared.exceptions import MCPError


@dataclass
class Address:
    city: str


server = install(MCPServer("shop"))


@server.tool()
async def ship(item: str) -> str:
    answer = await ask(Address, f"Where should {item} go?")
    return f"{item} to {answer.unwrap().city}" if answer.is_accepted() else "Not shipped."


@pytest.mark.anyio
async def test_ship(elicit_connect):  # runs once per era
    user = ScriptedUser(accept(city="Oslo"))
    async with elicit_connect(server, user=user) as client:
        result = await client.call_tool("ship", {"item": "a teapot"})
    assert result.content[0].text == "a teapot to Oslo"


@pytest.mark.anyio
async def test_ship_on_every_client(elicit_connect, elicit_profile):  # 3 eras x 9 profiles
    user = ScriptedUser(accept(city="Oslo"))
    async with elicit_connect(server, user=user, profile=elicit_profile, hang_seconds=0.05) as c:
        try:
            result = await c.call_tool("ship", {"item": "a teapot"})
        except MCPError as error:  # 2026-07-28: no capability, or a form that never returns
            assert c.protocol_version == "2026-07-28"
            assert error.code in (-32021, -32001)
            return
    assert result.content[0].text in ("a teapot to Oslo", "Not shipped.") or result.is_error
"""


def test_the_plugin_in_a_users_project(tmp_path: Path, starts_processes: None) -> None:
    """The README's pytest example, in a project of its own: the entry point loads the plugin."""
    (tmp_path / "test_ship.py").write_text(USER_TEST_FILE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_ship.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "30 passed" in done.stdout
