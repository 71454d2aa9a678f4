"""The one entry guard (elicitkit/_runtime/entry.py) and the one key claimer (keys.py).

What escapes an entry point uncaught reaches the client as elicitkit's sentence, whichever
raise site it came from: a malformed or reused key of ``ask()`` (once only "Error executing
tool NAME"), and of ``ask_url()``, whose key went unchecked (a 310-character key went out
as an ``inputRequests`` key; a key ``ask()`` had used was taken silently on 2025-11-25).
Driven with the real SDK client in memory, on every era and both server SDKs (fastmcp with
``mask_error_details=True`` too, which hides the text of any exception but a ToolError).
And each public entry point names itself outside a call, and is refused inside a step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver.resolve import Elicit, Resolve
from pydantic import BaseModel

from elicitkit import (
    ElicitError,
    Question,
    ask,
    ask_all,
    ask_text,
    choose,
    confirm,
    go_async,
    step,
)
from elicitkit.replay import replaying
from elicitkit.testing import ScriptedUser, accept, connect
from elicitkit.url import ask_url, require_url
from tests.mrtr import never_called, text_of
from tests.sdks import ERAS, in_memory, new_server, tool_error

pytestmark = pytest.mark.anyio

# The server a test runs on: each SDK, and fastmcp hiding the text of unexpected errors.
HOSTS = [
    pytest.param(("mcp", {}), id="mcp"),
    pytest.param(("fastmcp", {}), id="fastmcp"),
    pytest.param(("fastmcp", {"mask_error_details": True}), id="fastmcp-masked"),
]
PROTOCOLS = ["2025-06-18", "2025-11-25", "2026-07-28"]


@dataclasses.dataclass
class Address:
    street: str


def malformed(key: str, subject: str) -> str:
    return (
        f"Cannot use {key!r} as the key of a question to {subject}: a key is 1 to 64 letters, "
        "digits, '_', '-' or '.'. Choose a key like 'user_name'."
    )


def reused(key: str, function: str) -> str:
    return (
        f"Two questions in one call use the key {key!r}, so their answers could not be told "
        f"apart. Give each {function} its own key, e.g. key=f'item_{{i}}' in a loop."
    )


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result
    return text_of(result)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("host", HOSTS)
async def test_an_uncaught_bad_key_of_ask_reaches_the_client_as_its_sentence(
    host: tuple[str, dict[str, Any]], protocol: str
) -> None:
    sdk, options = host
    server = new_server(sdk, "keys", **options)

    @server.tool()
    async def bad_key() -> str:
        await ask(Address, key="a b")
        return "unreachable"

    @server.tool()
    async def twice() -> str:
        await ask(str, "Name?", key="item")
        await ask(int, "Count?", key="item")
        return "unreachable"

    user = ScriptedUser(accept(value="Ada"))  # the first question of twice(); no other
    async with connect(server, protocol=protocol, user=user) as client:
        assert client.protocol_version == protocol
        bad = await client.call_tool("bad_key", {})
        dup = await client.call_tool("twice", {})
    assert error_text(bad) == tool_error(sdk, "bad_key", malformed("a b", "Address"))
    assert error_text(dup) == tool_error(sdk, "twice", reused("item", "ask()"))
    assert [request.message for request in user.requests] == ["Name?"]


LONG_KEY = "sign in / " * 30 + "now #1 !!"  # 310 characters, with spaces, '/' and '#'
URL = "https://acme.example/login"


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
@pytest.mark.parametrize("host", HOSTS)
async def test_ask_url_checks_its_key_as_ask_does_and_says_so_to_the_client(
    host: tuple[str, dict[str, Any]], mode: str, protocol: str
) -> None:
    sdk, options = host
    server = new_server(sdk, "keys", **options)
    asked: list[str] = []

    @server.tool()
    async def long_key() -> str:
        await ask_url("Sign in", URL, key=LONG_KEY)
        return "unreachable"

    @server.tool()
    async def shared_key() -> str:
        await ask(bool, "Sure?", key="login")
        await ask_url("Sign in", URL, key="login")
        return "unreachable"

    @server.tool()
    async def required_twice() -> str:
        await ask(bool, "Sure?", key="login")
        await require_url("Sign in first", URL, key="login")
        return "unreachable"

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"value": True})

    async with Client(in_memory(server), mode=mode, elicitation_callback=answer) as client:
        assert client.protocol_version == protocol
        long = await client.call_tool("long_key", {})
        shared = await client.call_tool("shared_key", {})
        required = await client.call_tool("required_twice", {})
    assert error_text(long) == tool_error(sdk, "long_key", malformed(LONG_KEY, "open a page"))
    assert error_text(shared) == tool_error(sdk, "shared_key", reused("login", "ask_url()"))
    assert error_text(required) == tool_error(
        sdk, "required_twice", reused("login", "require_url()")
    )
    assert asked == ["Sure?", "Sure?"]  # no page was ever offered


# Every public entry point, called as an author would, with arguments that would be fine.
async def _page() -> object:
    return await ask_url("Sign in", URL)


async def _required() -> object:
    return await require_url("Sign in first", URL)


async def _noop() -> str:
    return "done"


ENTRY_POINTS: dict[str, Callable[[], Awaitable[object]]] = {
    "ask()": lambda: ask(bool, "Sure?"),
    "ask_all()": lambda: ask_all(bool, Question(str, "Name?")),
    "confirm()": lambda: confirm("Sure?"),
    "choose()": lambda: choose("Size?", ["s", "m"]),
    "ask_text()": lambda: ask_text("Name?"),
    "ask_url()": _page,
    "require_url()": _required,
    "step()": lambda: step("noop", _noop),
    "go_async()": go_async,
}


def outside(function: str) -> str:
    return (
        f"{function} was called outside a tool call of a server elicitkit is installed on, so "
        "there is no client to ask. Call elicitkit.install(server) once after creating the "
        f"server, and call {function} only inside its tools."
    )


@pytest.mark.parametrize("function", list(ENTRY_POINTS))
async def test_each_entry_point_outside_a_call_names_itself(function: str) -> None:
    with pytest.raises(ElicitError) as raised:
        await ENTRY_POINTS[function]()
    assert str(raised.value) == outside(function)


def test_replaying_outside_a_call_is_false_not_an_error() -> None:
    assert replaying() is False


def in_step(function: str) -> str:
    """What each entry point that a step refuses says inside step 'inner'."""
    if function in ("ask_url()", "require_url()"):
        return (
            f"The step 'inner' called {function} to send the user to a page, which a step "
            "cannot do: its outcome is recorded once, but a question ends the round before "
            "it. Send the user to the page before or after the step."
        )
    if function == "go_async()":
        return (
            "The step 'inner' called go_async(), which a step cannot do: its outcome is "
            "recorded once, and the task would outlive it. Call go_async() before or after "
            "the step."
        )
    return (
        "The step 'inner' asked the user a question, which a step cannot do: its outcome is "
        "recorded once, but a question ends the round before it. Ask before or after the step."
    )


REFUSED_IN_A_STEP = [function for function in ENTRY_POINTS if function != "step()"]


@pytest.mark.parametrize("function", REFUSED_IN_A_STEP)
@pytest.mark.parametrize(("mode", "protocol"), ERAS)
async def test_each_entry_point_inside_a_step_is_refused(
    sdk: str, mode: str, protocol: str, function: str
) -> None:
    server = new_server(sdk, "steps")
    caught: list[str] = []

    async def inner() -> str:
        try:
            await ENTRY_POINTS[function]()
        except ElicitError as error:  # the refusal is raised to the step's function
            caught.append(str(error))
            raise
        return "ran"

    @server.tool()
    async def outer() -> str:
        return await step("inner", inner)

    async with Client(in_memory(server), mode=mode, elicitation_callback=never_called) as client:
        assert client.protocol_version == protocol
        result = await client.call_tool("outer", {})
    assert caught == [in_step(function)]
    assert error_text(result) == tool_error(sdk, "outer", in_step(function))


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
async def test_a_step_inside_a_step_and_replaying_are_not_refused(
    sdk: str, mode: str, protocol: str
) -> None:
    """A nested step is recorded like any other; ``replaying()`` is for logs anywhere."""
    server = new_server(sdk, "steps")

    async def inner() -> str:
        return f"{await step('nested', _noop)}:{replaying()}"

    @server.tool()
    async def outer() -> str:
        return await step("inner", inner)

    async with Client(in_memory(server), mode=mode, elicitation_callback=never_called) as client:
        assert text_of(await client.call_tool("outer", {})) == "done:False"


class Account(BaseModel):
    account: str


async def which_account() -> Elicit[Account]:
    return Elicit("Which account?", Account)


def beside_resolve(tool: str) -> str:
    return (
        f"Error executing tool {tool}: The tool {tool!r} uses both the SDK's Resolve(...) "
        "parameters and elicitkit's ask(), which cannot share one call: on MCP 2026-07-28 both "
        "carry their progress in the one requestState, and the user would be asked the same "
        "questions over and over. Ask every question with ask() or ask_all() in the tool body, "
        "or only with Resolve(...)."
    )


@pytest.mark.parametrize(("mode", "protocol"), ERAS)
async def test_a_page_beside_the_sdks_resolve_is_refused_as_a_form_is(
    mode: str, protocol: str
) -> None:
    """On 2026-07-28 the two took turns at the one requestState: asked again and again.

    Refused on 2025-11-25 too, where it would work, so that a tool that works there works
    on 2026-07-28 (as ``ask()`` is). ``step()`` and ``go_async()`` ask nothing, and run.
    """
    server = new_server("mcp", "bank")
    shown: list[str] = []

    @server.tool()
    async def sign_in(account: Annotated[Account, Resolve(which_account)]) -> str:
        await ask_url("Sign in", URL)
        return "signed in"

    @server.tool()
    async def must_sign_in(account: Annotated[Account, Resolve(which_account)]) -> str:
        await require_url("Sign in first", URL)
        return "unreachable"

    @server.tool()
    async def quietly(account: Annotated[Account, Resolve(which_account)]) -> str:
        quote = await step("quote", _noop)
        return f"{account.account}:{quote}:{await go_async()}"

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        shown.append(params.message)
        return types.ElicitResult(action="accept", content={"account": "savings"})

    async with Client(in_memory(server), mode=mode, elicitation_callback=answer) as client:
        assert client.protocol_version == protocol
        page = await client.call_tool("sign_in", {})
        required = await client.call_tool("must_sign_in", {})
        fine = await client.call_tool("quietly", {})
    assert error_text(page) == beside_resolve("sign_in")
    assert error_text(required) == beside_resolve("must_sign_in")
    assert text_of(fine) == "savings:done:False"
    assert shown == ["Which account?"] * 3  # Resolve's own question only, once per call


@pytest.mark.parametrize("host", HOSTS)
async def test_a_one_liners_own_argument_errors_reach_the_client_too(
    host: tuple[str, dict[str, Any]],
) -> None:
    """Checked before the one-liner asked (once only "Error executing tool NAME")."""
    sdk, options = host
    server = new_server(sdk, "oneliners", **options)

    @server.tool()
    async def yes_no() -> str:
        return str(await confirm("Sure?", default=1))  # type: ignore[arg-type]

    @server.tool()
    async def pick() -> str:
        return str(await choose("Size?", []))

    target = in_memory(server)
    async with Client(target, mode="legacy", elicitation_callback=never_called) as client:
        refused = await client.call_tool("yes_no", {})
        empty = await client.call_tool("pick", {})
    assert error_text(refused) == tool_error(
        sdk,
        "yes_no",
        "Cannot ask confirm() with the default 1: a yes/no question takes True or False. Pass "
        "default=True or default=False.",
    )
    assert error_text(empty) == tool_error(
        sdk,
        "pick",
        "Cannot ask choose() without options: there is nothing to choose. Pass at least one "
        "option.",
    )
