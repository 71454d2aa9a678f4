"""One structured log record per question on the ``elicitkit`` logger, on both eras."""

from __future__ import annotations

import dataclasses
import logging
from typing import Annotated, Any

import mcp_types as types
import pytest
from annotated_types import MinLen
from mcp import Client
from mcp.server.mcpserver import MCPServer

from elicitkit import ask, install
from elicitkit._runtime import question_log
from elicitkit.testing import FakeClock
from elicitkit.url import ask_url
from tests.sdks import ERAS

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Login:
    user: str
    nickname: Annotated[str, MinLen(3)]


def make_server() -> MCPServer:
    server = install(MCPServer("observe"))

    @server.tool()
    async def sign_up() -> str:
        go = await ask(bool, "Go?", key="go")
        login = await ask(Login, "Who?", key="login")
        return f"{go.action} {login.action}"

    return server


def records(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [
        dict(record.elicitkit)  # type: ignore[attr-defined]
        for record in caplog.records
        if record.name == "elicitkit" and hasattr(record, "elicitkit")
    ]


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_one_record_per_question_with_invalid_field_names_never_values(
    mode: str, version: str, caplog: pytest.LogCaptureFixture, elicit_clock: FakeClock
) -> None:
    replies = [
        {"value": True},
        {"user": "ada", "nickname": "zq"},  # too short
        {"user": "ada", "nickname": "zebra"},
    ]

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        elicit_clock.jump(2)  # the user takes two seconds over each form
        return types.ElicitResult(action="accept", content=replies.pop(0))

    caplog.set_level(logging.DEBUG, logger="elicitkit")
    async with Client(make_server(), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("sign_up", {})
    assert not result.is_error
    go, login = records(caplog)
    assert {k: v for k, v in go.items() if k != "seconds"} == {
        "tool": "sign_up",
        "protocol": version,
        "mode": "form",
        "key": "go",
        "outcome": "accept",
        "retries": 0,
        "invalid_fields": (),
        "likely_automatic": False,
    }
    assert {k: v for k, v in login.items() if k != "seconds"} == {
        "tool": "sign_up",
        "protocol": version,
        "mode": "form",
        "key": "login~1",
        "outcome": "accept",
        "retries": 1,
        "invalid_fields": ("nickname",),
        "likely_automatic": False,
    }
    assert isinstance(login["seconds"], float)
    # By elicitkit's clock, from the question to its answer (a state stamps it to the ms).
    assert (go["seconds"], login["seconds"]) == (pytest.approx(2, abs=0.01),) * 2
    text = " ".join(record.getMessage() for record in caplog.records)
    assert "zq" not in text  # the invalid value itself is never logged
    assert "zebra" not in text


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_an_instant_decline_is_flagged_as_likely_automatic(
    mode: str, version: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def declines(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    caplog.set_level(logging.DEBUG, logger="elicitkit")
    async with Client(make_server(), mode=mode, elicitation_callback=declines) as client:
        await client.call_tool("sign_up", {})
    go, login = records(caplog)
    assert go["outcome"] == login["outcome"] == "decline"
    assert go["likely_automatic"] is login["likely_automatic"] is True
    flagged = [r for r in caplog.records if r.name == "elicitkit"]
    assert all(r.levelno == logging.WARNING for r in flagged)
    assert flagged[0].getMessage() == (
        f"question go in sign_up: decline after {go['seconds']:g}s, 0 retries "
        "(likely an automatic decline)"
    )


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_url_question_is_logged_without_its_id(
    mode: str, version: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = install(MCPServer("observe-url"))

    @server.tool()
    async def connect() -> str:
        answer = await ask_url("Sign in", lambda eid: f"https://acme.example/auth?state={eid}")
        return str(answer.content)

    async def browser(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept")

    caplog.set_level(logging.DEBUG, logger="elicitkit")
    async with Client(server, mode=mode, elicitation_callback=browser) as client:
        result = await client.call_tool("connect", {})
    assert not result.is_error
    (record,) = records(caplog)
    assert {k: v for k, v in record.items() if k != "seconds"} == {
        "tool": "connect",
        "protocol": version,
        "mode": "url",
        "key": "url" if version == "2025-11-25" else "url#1",
        "outcome": "accept",
        "retries": 0,
        "invalid_fields": (),
        "likely_automatic": False,
    }
    secret = result.content[0].text  # type: ignore[union-attr]
    assert len(secret) >= 22
    assert secret not in " ".join(r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_at_the_servers_default_level_a_question_logs_nothing_and_builds_no_record(
    mode: str, version: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # MCPServer() sets the root logger to INFO (with a rich handler costing ~2.3 ms a record):
    # the per-question record is DEBUG, and is not even built.
    built: list[object] = []
    original = question_log.QuestionRecord

    def counting(**fields: Any) -> question_log.QuestionRecord:
        built.append(fields)
        return original(**fields)

    monkeypatch.setattr(question_log, "QuestionRecord", counting)
    server = make_server()
    caplog.set_level(logging.INFO)  # as MCPServer() sets the root (pytest's handler is there)
    caplog.set_level(logging.NOTSET, logger="elicitkit")  # as nobody configured it
    assert logging.getLogger("elicitkit").getEffectiveLevel() == logging.INFO
    replies = [{"value": True}, {"user": "ada", "nickname": "zebra"}]

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=replies.pop(0))

    async with Client(server, mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("sign_up", {})
    assert not result.is_error, (version, result)
    assert [r for r in caplog.records if r.name == "elicitkit"] == []
    assert built == []
    caplog.set_level(logging.DEBUG, logger="elicitkit")  # the opt-in the docs give
    replies[:] = [{"value": True}, {"user": "ada", "nickname": "zebra"}]
    async with Client(server, mode=mode, elicitation_callback=answer) as client:
        await client.call_tool("sign_up", {})
    assert [r["key"] for r in records(caplog)] == ["go", "login"]
    assert len(built) == 2
