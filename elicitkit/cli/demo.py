"""``python -m elicitkit demo``: a real MCP server, a real client, both protocol eras.

Starts the bundled demo server (`elicitkit.cli.demo_server`) as a subprocess over stdio, calls
its ``ship`` tool once on 2025-11-25 (the question arrives in the middle of the call) and
once on 2026-07-28 (the call ends with the question and is retried, round by round), and
prints what happens. A scripted user answers, or, on a terminal, the person at it, with
the same terminal forms as ``elicitkit try``: checked as they type, Ctrl-C or Ctrl-D cancels
the form and ends the demo cleanly, and a decline is an answer like any other (exit 0).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters

from elicitkit._interrupt import INTERRUPTED_STATUS, is_interrupt
from elicitkit.cli.interruptible import run_interruptibly
from elicitkit.cli.shown_text import shown

TOOL = "ship"
ARGUMENTS = {"item": "a teapot"}
SCRIPTED_ANSWERS: dict[str, Any] = {
    "name": "Ada Lovelace",
    "street": "12 St James's Square",
    "city": "London",
    "zip_code": "SW1Y 4JH",
    "speed": "express",
    "value": True,  # the yes/no confirmation
}

Answer = Callable[[Mapping[str, Any]], Awaitable[types.ElicitResult]]


def run_demo(*, interactive: bool | None = None, show_schema: bool = False) -> int:
    """Run the demo; return the process exit status (0 unless a tool call failed).

    Args:
        interactive: Let the person at the terminal answer (default: if there is one).
        show_schema: Print each form's ``requestedSchema`` as JSON too.
    """
    answering: bool = (
        sys.stdin.isatty() and sys.stdout.isatty() if interactive is None else interactive
    )
    person = _Person()
    user: Answer = person.answer if answering else _scripted
    print("elicitkit demo: one tool, `await ask(ShippingAddress)`, two protocol eras.")
    print(f"Server: {sys.executable} -m elicitkit.cli.demo_server (a subprocess over stdio)")
    print(f"User: {_who_answers(interactive=answering)}")
    try:
        ok = run_interruptibly(_both_eras, user, person, show_schema)
    except BaseException as error:
        if not is_interrupt(error):
            raise
        print("\nInterrupted: the demo stopped.")
        return INTERRUPTED_STATUS
    return 0 if ok else 1


def _who_answers(*, interactive: bool) -> str:
    """Who answers the forms; for a script, why no person can."""
    if interactive:
        return "you, at this terminal"
    if not sys.stdin.isatty():
        return "a script (stdin is not a terminal, so nobody can type answers here)"
    if not sys.stdout.isatty():
        return "a script (stdout is not a terminal, so the forms cannot be shown here)"
    return "a script (--scripted)"


async def _both_eras(user: Answer, person: _Person, show_schema: bool) -> bool:
    for mode in ("legacy", "auto"):
        if not await _session(mode, user, show_schema):
            return False
        if person.stopped:
            print("\nYou closed the form, so the demo stops here. Run it again any time.")
            return True
    return True


async def _session(mode: str, user: Answer, show_schema: bool) -> bool:
    server = StdioServerParameters(command=sys.executable, args=["-m", "elicitkit.cli.demo_server"])

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:  # noqa: ARG001  (the SDK's callback signature)
        params_seen = params.model_dump(by_alias=True, exclude_none=True)
        return await _show_and_answer(params_seen, user, show_schema)

    async with Client(server, mode=mode, elicitation_callback=on_elicit) as client:
        version = client.protocol_version
        era = "handshake" if mode == "legacy" else "stateless"
        print(shown(f"\n=== MCP {version} ({era} era)"))
        print(f"-> tools/call {TOOL} {json.dumps(ARGUMENTS)}")
        if mode == "legacy":
            print("   (the server sends elicitation/create in the middle of the call)")
            result = await client.call_tool(TOOL, ARGUMENTS)
        else:
            result = await _rounds(client, user, show_schema)
    return _report(result)


async def _rounds(client: Client, user: Answer, show_schema: bool) -> types.CallToolResult:
    """Drive 2026-07-28's input_required rounds by hand, to show them."""
    responses: dict[str, Any] | None = None
    state: str | None = None
    for number in range(1, 11):
        outcome = await client.session.call_tool(
            TOOL,
            ARGUMENTS,
            input_responses=responses,
            request_state=state,
            allow_input_required=True,
        )
        if isinstance(outcome, types.CallToolResult):
            print(f"   round {number}: the tool ran to the end")
            return outcome
        requests = outcome.input_requests or {}
        print(f"   round {number}: the tool stopped at a question; result input_required")
        responses = {}
        for key, request in requests.items():
            print(shown(f"   question key {key}"))
            if not isinstance(request, types.ElicitRequest):
                raise TypeError(f"the demo server sent a {request.method} request")
            params = request.params.model_dump(by_alias=True, exclude_none=True)
            responses[key] = await _show_and_answer(params, user, show_schema)
        state = outcome.request_state
        print(f"-> tools/call {TOOL} again, with the answer and the sealed requestState")
    raise RuntimeError("the demo tool asked more than ten questions")


async def _show_and_answer(
    params: Mapping[str, Any], user: Answer, show_schema: bool
) -> types.ElicitResult:
    schema: Mapping[str, Any] = params["requestedSchema"]
    # The demo server is ours, but what it sends is printed like any server's: shown().
    print(shown(f'   the client shows a form: "{params["message"]}"'))
    required = set(schema.get("required", ()))
    for key, field in schema["properties"].items():
        optional = "" if key in required else ", optional"
        print(shown(f"     - {field.get('title', key)} [{key}: {_describe(field)}{optional}]"))
    if show_schema:  # on request only: the raw JSON wraps over many lines of a terminal
        print(shown(f"     requestedSchema: {json.dumps(schema)}"))
    result = await user(params)
    print(shown(f"   the user answers: {json.dumps(result.model_dump(exclude_none=True))}"))
    return result


def _describe(field: Mapping[str, Any]) -> str:
    if "oneOf" in field:
        return "one of " + ", ".join(f"{o['const']} ({o['title']})" for o in field["oneOf"])
    if "enum" in field:
        return "one of " + ", ".join(field["enum"])
    kind = str(field.get("format", field["type"]))
    limits = [
        f"{name} {field[name]}"
        for name in ("minLength", "maxLength", "minimum", "maximum")
        if name in field
    ]
    return kind + (f" ({', '.join(limits)})" if limits else "")


def _report(result: types.CallToolResult) -> bool:
    text = " ".join(block.text for block in result.content if isinstance(block, types.TextContent))
    print(shown(f"<- {'error' if result.is_error else 'result'}: {text}"))
    if not result.is_error and not text.startswith("Shipped"):
        print("   Nothing was shipped: saying no is a valid answer, and the tool handled it.")
    return not result.is_error


async def _scripted(params: Mapping[str, Any]) -> types.ElicitResult:
    schema: Mapping[str, Any] = params["requestedSchema"]
    content = {
        key: SCRIPTED_ANSWERS[key] for key in schema["properties"] if key in SCRIPTED_ANSWERS
    }
    return types.ElicitResult(action="accept", content=content)


class _Person:
    """The person at the terminal, answering in the shared terminal form."""

    def __init__(self) -> None:
        self.stopped = False

    async def answer(self, params: Mapping[str, Any]) -> types.ElicitResult:
        # prompt_toolkit is the cli extra: only a demo answered at a terminal needs it.
        from elicitkit.cli.terminal_form import fill_in  # noqa: PLC0415

        answer = await fill_in(params)
        self.stopped = self.stopped or answer.interrupted
        return answer.result
