"""ask_url() and require_url() on MCP 2025-11-25 and 2026-07-28, with the real SDK client.

The user's "browser" is the client's elicitation callback: it follows the URL to a fake
OAuth provider served by a real uvicorn on 127.0.0.1, whose callback calls
``complete_url``. Two clients are connected; only the one that asked is told. Every test
that goes through a server runs on both server SDKs (the ``sdk`` fixture).
"""

from __future__ import annotations

import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from fastmcp import FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.routing import Route

from elicitkit import ask, install
from elicitkit._runtime import url_routes
from elicitkit.errors import ElicitationTimeout, ElicitationUnsupported
from elicitkit.testing import FakeClock
from elicitkit.url import (
    LocalUrlRouter,
    ask_url,
    complete_url,
    new_elicitation_id,
    require_url,
    use_url_router,
)
from tests.loopback import serving
from tests.sdks import in_memory, new_server, tool_error

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def fake_oauth() -> AsyncIterator[str]:
    """A fake OAuth provider and the server's callback, on a real uvicorn; yields its base."""

    async def authorize(request: Request) -> RedirectResponse:
        state = request.query_params["state"]
        return RedirectResponse(f"/callback?state={state}&code=xyz", status_code=302)

    async def callback(request: Request) -> PlainTextResponse:
        done = await complete_url(request.query_params["state"])
        return PlainTextResponse("signed in" if done else "unknown")

    app = Starlette(routes=[Route("/authorize", authorize), Route("/callback", callback)])
    async with serving(app) as base:
        yield base


def make_server(base: str, sdk: str, **options: Any) -> Any:
    server = new_server(sdk, "oauth", **options)

    @server.tool()
    async def connect() -> str:
        eid = new_elicitation_id()
        answer = await ask_url(
            "Sign in to Acme", f"{base}/authorize?state={eid}", elicitation_id=eid
        )
        return f"{answer.action}:{answer.content == eid}"

    @server.tool()
    async def needs_login() -> str:
        await require_url("Sign in to Acme first", "https://acme.example/login")
        return "unreachable"

    @server.tool()
    async def plain(url: str) -> str:
        try:
            await ask_url("Open this", url)
        except ValueError as error:
            return str(error)
        return "asked"

    @server.tool()
    async def ask_anyway() -> str:
        try:
            await ask_url("Sign in", "https://acme.example/login")
        except ElicitationUnsupported as error:
            return str(error)
        return "asked"

    return server


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_url_mode_end_to_end_completion_reaches_only_the_initiating_client(
    sdk: str,
) -> None:
    async with fake_oauth() as base:
        server = in_memory(make_server(base, sdk))
        seen: list[types.ElicitRequestURLParams] = []
        completed: dict[str, list[str]] = {"asker": [], "bystander": []}
        done = anyio.Event()

        def listener(name: str) -> Any:
            async def on_message(message: Any) -> None:
                if isinstance(message, types.ElicitCompleteNotification):
                    completed[name].append(message.params.elicitation_id)
                    done.set()

            return on_message

        async def browser(context: Any, params: Any) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            seen.append(params)

            def visit() -> str:  # the user's browser: follows the redirect to the callback
                with urllib.request.urlopen(params.url, timeout=5) as page:  # noqa: S310
                    return page.read().decode()

            assert await anyio.to_thread.run_sync(visit) == "signed in"
            return types.ElicitResult(action="accept")

        async def never(context: Any, params: Any) -> types.ElicitResult:
            raise AssertionError("the bystander is never asked")

        async with (
            Client(
                server,
                mode="legacy",
                elicitation_callback=browser,
                message_handler=listener("asker"),
            ) as asker,
            Client(
                server,
                mode="legacy",
                elicitation_callback=never,
                message_handler=listener("bystander"),
            ) as bystander,
        ):
            assert asker.protocol_version == bystander.protocol_version == "2025-11-25"
            result = await asker.call_tool("connect", {})
            with anyio.fail_after(5):
                await done.wait()
            await bystander.list_tools()  # the bystander's session has processed its inbox
    assert text_of(result) == "accept:True"
    [params] = seen
    assert params.mode == "url"
    assert params.message == "Sign in to Acme"
    eid = params.elicitation_id
    assert eid is not None
    assert len(eid) >= 22  # 128 random bits
    assert params.url == f"{base}/authorize?state={eid}"
    assert completed == {"asker": [eid], "bystander": []}
    assert await complete_url(eid) is False  # once only


async def test_require_url_raises_the_url_elicitation_required_error(sdk: str) -> None:
    async def never(context: Any, params: Any) -> types.ElicitResult:
        raise AssertionError("nothing is asked")

    server = in_memory(make_server("http://127.0.0.1:1", sdk))
    async with Client(server, mode="legacy", elicitation_callback=never) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("needs_login", {})
    assert caught.value.error.code == -32042
    data = caught.value.error.data
    assert isinstance(data, dict)
    [elicitation] = data["elicitations"]
    assert elicitation["mode"] == "url"
    assert elicitation["url"] == "https://acme.example/login"
    assert elicitation["message"] == "Sign in to Acme first"
    assert len(elicitation["elicitationId"]) >= 22


async def test_require_url_on_2026_asks_in_the_round_until_the_page_is_done(sdk: str) -> None:
    # 2026-07-28 reserves -32042 and forbids sending it: the URL is the round's question.
    server = new_server(sdk, "pay")
    paid: list[bool] = []

    @server.tool()
    async def pay(amount: int) -> str:
        if not paid:
            await require_url(f"Pay {amount} EUR on our page", "https://acme.example/pay")
        return f"paid {amount}"

    seen: list[dict[str, Any]] = []

    async def browser(context: Any, params: Any) -> types.ElicitResult:
        seen.append(params.model_dump(by_alias=True, exclude_none=True))
        if len(seen) == 2:  # the user pays on the second visit only
            paid.append(True)
        return types.ElicitResult(action="accept")

    async with Client(in_memory(server), elicitation_callback=browser) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("pay", {"amount": 5})
    assert text_of(result) == "paid 5"
    assert (
        seen
        == [{"mode": "url", "message": "Pay 5 EUR on our page", "url": "https://acme.example/pay"}]
        * 2
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        pytest.param(
            "http://acme.example/login",
            "ask_url() refuses the plain-HTTP URL 'http://acme.example/login': what the user "
            "enters there would travel unencrypted. Use https:// (plain http is allowed only "
            "on localhost).",
            id="plain-http",
        ),
        pytest.param(
            "https://ada:hunter2@acme.example/login",
            "ask_url() refuses a URL that carries a user name or password: the client, its "
            "logs and the model would all see them. Put a one-time token in the query "
            "instead, or let the page ask the user to sign in.",
            id="credentials",
        ),
        pytest.param(
            "javascript:alert(1)",
            "ask_url() cannot send the user to 'javascript:alert(1)': it is not an http(s) URL "
            "with a host. Pass the full address of your page, e.g. "
            "'https://example.com/connect'.",
            id="not-http",
        ),
        pytest.param("http://localhost:8000/cb", "asked", id="localhost-http-allowed"),
        pytest.param("http://[::1]:8000/cb", "asked", id="loopback-v6-allowed"),
    ],
)
async def test_unsafe_urls_are_refused_before_anything_is_sent(
    sdk: str, url: str, message: str
) -> None:
    async def decline(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    server = in_memory(make_server("http://127.0.0.1:1", sdk))
    async with Client(server, mode="legacy", elicitation_callback=decline) as client:
        assert text_of(await client.call_tool("plain", {"url": url})) == message


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        pytest.param(
            "legacy",
            "This client cannot open a URL for the user (it declared elicitation without URL "
            "mode), so the tool could not send the user to the page. Give the user the link "
            "in the tool's result instead.",
            id="form-only-client",
        ),
        pytest.param(
            "2025-06-18",
            "URL mode is not available on this call: it speaks MCP 2025-06-18, which has no URL "
            "mode (it arrived in 2025-11-25). Send the user the link in the tool's result "
            "instead.",
            id="2025-06-18",
        ),
    ],
)
async def test_url_capability_is_checked_apart_from_forms(
    sdk: str, mode: str, message: str
) -> None:
    """A client that declares forms only (Claude Code) is told URL mode is missing."""
    from elicitkit.testing import PROFILES, connect  # noqa: PLC0415

    server = make_server("http://127.0.0.1:1", sdk)
    profile = PROFILES["form-only"] if mode == "legacy" else None
    protocol = "2025-11-25" if mode == "legacy" else mode
    async with connect(server, profile=profile, protocol=protocol) as client:
        result = await client.call_tool("ask_anyway", {})
    assert text_of(result) == message


async def test_url_mode_on_2026_07_28_asks_again_until_the_completion_check_says_done(
    sdk: str,
) -> None:
    server = new_server(sdk, "oauth-2026")
    done: set[str] = set()
    checked: list[str] = []
    effects: list[str] = []

    async def is_done(cid: str) -> bool:
        checked.append(cid)
        return cid in done

    @server.tool()
    async def connect() -> str:
        answer = await ask_url(
            "Sign in to Acme",
            lambda cid: f"https://acme.example/authorize?state={cid}",
            completed=is_done,
        )
        effects.append("connected")
        return f"{answer.action}:{answer.content}"

    shown: list[types.ElicitRequestURLParams] = []

    async def browser(context: Any, params: Any) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        shown.append(params)
        if len(shown) == 2:  # the second time, the user finishes on the page
            done.add(params.url.rsplit("=", 1)[1])
        return types.ElicitResult(action="accept")

    async with Client(in_memory(server), mode="auto", elicitation_callback=browser) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("connect", {})
    first, second = shown
    assert first.url == second.url  # the same page, the same id, from the sealed state
    assert first.elicitation_id is None  # no id and no notification on 2026-07-28
    cid = first.url.rsplit("=", 1)[1]
    assert len(cid) >= 22
    assert checked == [cid, cid]
    assert text_of(result) == f"accept:{cid}"
    assert effects == ["connected"]


@pytest.mark.parametrize("masked", [False, True], ids=["default", "mask_error_details"])
async def test_require_url_reaches_fastmcps_own_client_as_the_error(masked: bool) -> None:
    """fastmcp would report any error from a tool as a tool error (hiding its text, masked)."""
    import fastmcp  # noqa: PLC0415

    server = make_server("http://127.0.0.1:1", "fastmcp", mask_error_details=masked)

    async def never(message: str, response_type: Any, params: Any, context: Any) -> Any:
        raise AssertionError("nothing is asked")

    async with fastmcp.Client(server, mode="legacy", elicitation_handler=never) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("needs_login", {}, raise_on_error=False)
    assert caught.value.error.code == -32042
    data = caught.value.error.data
    assert isinstance(data, dict)
    [elicitation] = data["elicitations"]
    assert elicitation["url"] == "https://acme.example/login"
    assert elicitation["message"] == "Sign in to Acme first"


def asking_server(sdk: str, name: str, router: LocalUrlRouter) -> Any:
    """A server of ``sdk`` whose tool ``connect`` asks for a URL, routed by ``router``."""
    server: Any = install(MCPServer(name) if sdk == "mcp" else FastMCP(name), url_router=router)

    @server.tool()
    async def connect() -> str:
        answer = await ask_url("Sign in", "https://acme.example/login")
        return answer.action

    return server


async def test_two_installed_servers_keep_both_completion_routes_deliverable(sdk: str) -> None:
    """Each server routes through its own router; installing the second replaces nothing."""
    routers = {"one": LocalUrlRouter(), "two": LocalUrlRouter()}
    servers = {name: asking_server(sdk, name, router) for name, router in routers.items()}
    asked: dict[str, str] = {}
    told: dict[str, list[str]] = {"one": [], "two": []}
    arrived = {"one": anyio.Event(), "two": anyio.Event()}

    def client(name: str) -> Client:
        async def browser(context: Any, params: Any) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams)
            assert params.elicitation_id is not None
            asked[name] = params.elicitation_id
            return types.ElicitResult(action="accept")

        async def on_message(message: Any) -> None:
            if isinstance(message, types.ElicitCompleteNotification):
                told[name].append(message.params.elicitation_id)
                arrived[name].set()

        return Client(
            in_memory(servers[name]),
            mode="legacy",
            elicitation_callback=browser,
            message_handler=on_message,
        )

    async with client("one") as one, client("two") as two:
        assert text_of(await one.call_tool("connect", {})) == "accept"
        assert text_of(await two.call_tool("connect", {})) == "accept"
        # The first server's route is with its own router, not the second's.
        assert await complete_url(asked["one"], router=routers["two"]) is False
        assert await complete_url(asked["one"]) is True  # found among the installed routers
        assert await complete_url(asked["two"], router=routers["two"]) is True
        with anyio.fail_after(5):
            await arrived["one"].wait()
            await arrived["two"].wait()
    assert told == {"one": [asked["one"]], "two": [asked["two"]]}
    assert await complete_url(asked["one"]) is False  # once only


class _StoreDown(LocalUrlRouter):
    """A router whose store cannot be reached."""

    async def complete(self, elicitation_id: str) -> bool:
        raise ConnectionError("the store is down")


async def test_a_router_whose_store_is_down_does_not_stop_complete_url_finding_the_id(
    sdk: str, caplog: pytest.LogCaptureFixture
) -> None:
    down, up = _StoreDown(), LocalUrlRouter()
    server = asking_server(sdk, "up", up)
    asked: list[str] = []

    async def browser(context: Any, params: Any) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams)
        assert params.elicitation_id is not None
        asked.append(params.elicitation_id)
        return types.ElicitResult(action="accept")

    use_url_router(down)  # the process default: complete_url asks it first
    try:
        async with Client(in_memory(server), mode="legacy", elicitation_callback=browser) as user:
            assert text_of(await user.call_tool("connect", {})) == "accept"
            assert await complete_url(asked[0]) is True
    finally:
        use_url_router(url_routes._DEFAULT_ROUTER)  # pyright: ignore[reportPrivateUsage]
    assert "could not ask" in caplog.text
    assert "the store is down" in caplog.text


def test_installing_again_with_another_router_is_refused() -> None:
    server = install(MCPServer("routed"), url_router=LocalUrlRouter())
    with pytest.raises(TypeError) as raised:
        install(server, url_router=LocalUrlRouter())
    assert str(raised.value) == (
        "Cannot install elicitkit on this MCPServer again with another URL router: it "
        "is already installed, and the URL elicitations it opened are routed through the "
        "first. Call install(server, url_router=...) once, before serving."
    )


def link_server(sdk: str) -> Any:
    server = new_server(sdk, "links")

    @server.tool()
    async def connect() -> str:
        return (await ask_url("Sign in to Acme", "https://acme.example/login", timeout=0.3)).action

    return server


async def _refusing(context: Any, params: Any) -> types.ErrorData:
    return types.ErrorData(code=-32603, message="URL elicitation failed")


async def _unanswering(context: Any, params: Any) -> types.ElicitResult:
    await anyio.sleep_forever()  # until the server withdraws the question
    raise AssertionError("the question was not withdrawn")


async def test_a_late_answer_to_a_link_is_a_timeout_on_2026_07_28_as_a_forms_is(
    sdk: str, elicit_clock: FakeClock
) -> None:
    """One reader for every replayed answer: past its deadline, a URL's is refused too.

    The timeout is carried: the next round (the tool went on to ask a form) raises it
    again, so the tool takes the same path every round.
    """
    server = new_server(sdk, "late-link")
    seen: list[str] = []

    @server.tool()
    async def connect() -> str:
        try:
            await ask_url("Sign in to Acme", "https://acme.example/authorize", timeout=0.2)
        except ElicitationTimeout as error:
            seen.append(str(error))
        again = await ask(bool, "Try another way?")
        return f"{again.action}:{again.content}"

    async def slow(context: Any, params: Any) -> types.ElicitResult:
        if isinstance(params, types.ElicitRequestURLParams):
            elicit_clock.jump(0.3)  # the user takes longer than the link's 0.2 s
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"value": True})

    async with Client(in_memory(server), mode="auto", elicitation_callback=slow) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("connect", {})
    assert text_of(result) == "accept:True"
    late = (
        "The user did not answer the link within 0.2 seconds, so the question was withdrawn. "
        "Ask again if it is still needed, or pass a longer timeout= to ask_url()."
    )
    assert seen == [late, late]  # the round the late answer came in, and the next one


@pytest.mark.parametrize(
    ("callback", "text"),
    [
        pytest.param(
            _refusing,
            "The client answered the link with an error instead of an answer: URL "
            "elicitation failed (code -32603).",
            id="client-error",
        ),
        pytest.param(
            _unanswering,
            "The user did not answer the link within 0.3 seconds, so the question was "
            "withdrawn. Ask again if it is still needed, or pass a longer timeout= to "
            "ask_url().",
            id="timeout",
        ),
    ],
)
async def test_url_mode_failures_speak_of_the_link_not_a_form(
    sdk: str, callback: Any, text: str
) -> None:
    """mcp-agent claims URL mode and answers it with -32603: the model reads of a link."""
    async with Client(
        in_memory(link_server(sdk)), mode="legacy", elicitation_callback=callback
    ) as client:
        result = await client.call_tool("connect", {})
    assert result.is_error
    assert text_of(result) == tool_error(sdk, "connect", text)
