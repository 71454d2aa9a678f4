"""What the user typed stays out of the server's log, on both SDKs and both eras.

An uncaught `InvalidContent` reaches the model as a tool error that quotes the value (the
model needs it to say what was wrong); every log record the real SDK server and elicitkit
write on the way (captured at DEBUG, from the root logger down) holds no trace of it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterator
from typing import Annotated, Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from elicitkit import Email, InvalidContent, ask
from elicitkit.errors import FieldError
from elicitkit.integrations._quiet_log import withheld
from tests.sdks import ERAS, in_memory, new_server, tool_error

TYPED = "not-an-email-555-12-3456"


@dataclasses.dataclass
class Contact:
    email: Annotated[str, Email]


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def log() -> Iterator[Captured]:
    """Every record of every logger, at DEBUG."""
    root = logging.getLogger()
    handler, level = Captured(), root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def make_server(sdk: str) -> Any:
    server = new_server(sdk, "quiet")

    @server.tool()
    async def contact() -> str:
        await ask(Contact, "Your email?", retries=0)
        return "unreachable"

    return server


async def _call(sdk: str, mode: str, tool: str) -> str:
    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"email": TYPED})

    with anyio.fail_after(10):
        server = in_memory(make_server(sdk))
        async with Client(server, mode=mode, elicitation_callback=callback) as client:
            result = await client.call_tool(tool, {})
    assert result.is_error
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _leaks(records: list[logging.LogRecord]) -> list[str]:
    found: list[str] = []
    for record in records:
        parts = [str(record.msg), record.getMessage(), *map(str, record.args or ())]
        if record.exc_info and record.exc_info[1] is not None:
            parts.append(str(record.exc_info[1]))
        if any(TYPED in part for part in parts):
            found.append(f"{record.name} {record.levelname}: {record.getMessage()}")
    return found


SAID = (
    "The answer to Contact has 1 problem: email: Expected an email address like "
    f"name@example.com, got '{TYPED}'."
)


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_an_uncaught_invalid_answer_is_told_to_the_model_not_the_log(
    sdk: str, mode: str, version: str, log: Captured
) -> None:
    assert await _call(sdk, mode, "contact") == tool_error(sdk, "contact", SAID)
    assert _leaks(log.records) == []
    if sdk == "mcp":  # MCPServer logs the tool error: with the summary in place of the text
        assert any(
            record.getMessage() == f"Tool 'contact' failed: 'Error executing tool contact: {QUIET}'"
            for record in log.records
        )


QUIET = (
    "The answer to Contact has 1 problem, in email (the values the user sent are left out "
    "of the log)."
)


def test_the_summary_names_the_form_and_each_field_once() -> None:
    error = InvalidContent(
        "Signup",
        [
            FieldError("email", f"Expected an email address, got '{TYPED}'."),
            FieldError("email", "Must be at most 80 characters long."),
            FieldError(None, f"{TYPED} is taken."),
        ],
    )
    assert withheld(error) == (
        "The answer to Signup has 3 problems, in email, the answer as a whole (the values "
        "the user sent are left out of the log)."
    )
