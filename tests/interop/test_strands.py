"""strands-agents' MCP client, driven by a plan, on both eras, both transports, both SDKs.

strands has no terminal or page of its own: an application answers the questions in the
elicitation callback it gives ``MCPClient``. So the suite drives strands' real client with
``strands_client.py``, run by a strands venv's python, which calls the tools through
``MCPClient.call_tool_sync`` (what an agent's tool use goes through) with a scripted answer
per question and ``tasks_config`` set, and reports what strands handed the callback, what it
made of each call and the JSON-RPC traffic between them. With `mcp` 2.1.1 strands speaks
2026-07-28 (era ``mcp-2.1.1``), with `mcp` 1.30.0 it speaks 2025-11-25 (era ``mcp-1.30.0``).

One strands session per cell (era x transport x server flavour) makes every call of `PLAN`
against ``task_server.py`` (the interop server plus ``render``, which asks, calls
``go_async()`` and asks again), over stdio (strands starts the server) or streamable HTTP
(the server runs on loopback); each test reads its calls from that session's report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from elicitkit import requested_schema
from tests.interop._facts import Observe
from tests.interop._inspector import _free_port, listening
from tests.interop._tools import STRANDS_VENVS, both_flavours, require_strands
from tests.interop.server import STAY, Stay

CLIENT = "strands-agents"
ERAS = list(STRANDS_VENVS)
TRANSPORTS = ["stdio", "http"]
HERE = Path(__file__).parent
DRIVER = HERE / "strands_client.py"
TASK_SERVER = HERE / "task_server.py"
THIS_CHECKOUT = HERE / "_this_checkout.py"

# The interop suite's plan_stay answer (as the other clients' tests fill it in).
ADA = {"action": "accept", "content": {"name": "Ada"}}


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


# Every call a session makes, by name, in this order; each test reads the ones it checks.
PLAN: dict[str, dict[str, Any]] = {
    "every_kind": {"tool": "plan_stay", "answers": [accept(**STAY)]},
    "declined": {"tool": "plan_stay", "answers": [{"action": "decline"}]},
    "cancelled": {"tool": "plan_stay", "answers": [{"action": "cancel"}]},
    "invalid": {"tool": "plan_stay", "answers": [accept(**{**STAY, "day": "20261224"})]},
    "reasked": {
        "tool": "stay_reasked",
        "answers": [accept(**{**STAY, "guest": "A"}), accept(**STAY)],
    },
    "yes_no": {"tool": "yes_or_no", "answers": [accept(value=False)]},
    "tip": {"tool": "tip", "answers": [accept(value=2.5)]},
    "preferences": {
        "tool": "preferences",
        "answers": [
            accept(pillow="firm", view="sea", newsletter=True, towels=["parking"], floor=3)
        ],
    },
    "preferences_empty": {"tool": "preferences", "answers": [accept()]},
    "link": {"tool": "open_link", "answers": [{"action": "accept"}]},
    "task": {"tool": "render", "args": {"title": "Q1"}, "answers": [ADA, accept(copies=2)]},
    "task_declined": {
        "tool": "render",
        "args": {"title": "Q2"},
        "answers": [ADA, {"action": "decline"}],
    },
    "task_cancelled": {
        "tool": "render",
        "args": {"title": "Q5"},
        "answers": [ADA, {"action": "cancel"}],
    },
    "task_invalid": {"tool": "render", "args": {"title": "Q3"}, "answers": [ADA, accept(copies=0)]},
    "task_reasked": {
        "tool": "render",
        "args": {"title": "Q4", "retries": 1},
        "answers": [ADA, accept(copies=0), accept(copies=3)],
    },
    # After every call above: how often the code around go_async() ran, per title.
    **{
        f"runs_{title}": {"tool": "runs", "args": {"title": title}}
        for title in ("Q1", "Q2", "Q3", "Q4", "Q5")
    },
}


class Sessions:
    """Runs strands once per cell, the first time a test asks for it, and keeps the report."""

    def __init__(self, workdir: Path, artifacts: Path, observe: Observe) -> None:
        self.workdir = workdir
        self.artifacts = artifacts
        self.observe = observe
        self.reports: dict[tuple[str, str, str], dict[str, Any]] = {}

    def report(self, era: str, transport: str, flavour: str) -> dict[str, Any]:
        cell = (era, transport, flavour)
        if cell not in self.reports:
            python = require_strands(era)
            server = [str(THIS_CHECKOUT), str(TASK_SERVER), flavour]
            if transport == "stdio":
                # strands passes the server only a few variables of its own (mcp's default
                # environment) and these: the server's records stay in this run's folder.
                env = {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}
                stdio = {"command": sys.executable, "args": server, "env": env}
                self.reports[cell] = self._run(python, cell, stdio)
            else:
                port = _free_port()
                log = self.workdir / f"server-{'-'.join(cell)}.log"
                argv = [sys.executable, *server, "--http", str(port)]
                with listening(argv, port, self.workdir, log):
                    url = f"http://127.0.0.1:{port}/mcp"
                    self.reports[cell] = self._run(python, cell, {"url": url})
            self.observe(CLIENT, era, "protocol", self.reports[cell]["protocol"])
        return self.reports[cell]

    def _run(self, python: Path, cell: tuple[str, ...], server: dict[str, Any]) -> dict[str, Any]:
        plan = {"server": server, "tasks": True, "calls": list(PLAN.values())}
        done = subprocess.run(
            [str(python), str(DRIVER)],
            input=json.dumps(plan),
            capture_output=True,
            text=True,
            timeout=600,  # a whole session; it takes seconds, on two busy cores too
            check=False,
            cwd=self.workdir,
        )
        name = f"strands-{'-'.join(cell)}"
        (self.artifacts / f"{name}.log").write_text(done.stderr, encoding="utf-8")
        assert done.returncode == 0, f"strands' driver failed ({cell}):\n{done.stderr[-4000:]}"
        (self.artifacts / f"{name}.json").write_text(done.stdout, encoding="utf-8")
        report: dict[str, Any] = json.loads(done.stdout)
        report["by_name"] = dict(zip(PLAN, report["calls"], strict=True))
        return report


@pytest.fixture(scope="module")
def sessions(
    tmp_path_factory: pytest.TempPathFactory, artifacts: Path, observe: Observe
) -> Sessions:
    return Sessions(tmp_path_factory.mktemp("strands"), artifacts, observe)


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    chosen: str = request.param
    return chosen


@pytest.fixture(params=TRANSPORTS)
def session(sessions: Sessions, era: str, request: pytest.FixtureRequest, flavour: str) -> Any:
    """The report of the strands session of this era, transport and server flavour."""
    return sessions.report(era, request.param, flavour)


def call(session: dict[str, Any], name: str) -> dict[str, Any]:
    made: dict[str, Any] = session["by_name"][name]
    assert made["unused_answers"] == 0, f"{name}: strands asked fewer questions than planned"
    return made


def modern(session: dict[str, Any]) -> bool:
    return bool(session["protocol"] == "2026-07-28")


def task_story(made: dict[str, Any]) -> list[str]:
    """A call's traffic as a story: the requests strands sent and the statuses it read.

    A status already told is left out, and so is ``working`` (whether a poll lands before
    the task asks is the machine's pace), and so is a ``tasks/get`` that read nothing new.
    """
    story: list[str] = []
    told: tuple[str, ...] = ()
    for message in made["wire"]:
        if message["direction"] == "out" and "method" in message:
            story.append(message["method"])
        elif message.get("resultType") == "task":
            story.append("task created")
        elif message.get("status") not in {None, "working"}:
            status = (message["status"], *message.get("inputRequests", ()))
            if status != told:
                story.append(status[0])
                told = status
    return [
        step
        for step, after in zip(story, [*story[1:], ""], strict=True)
        if step != "tasks/get" or after in {"input_required", "completed", "failed", "cancelled"}
    ]


@both_flavours
def test_every_field_kind_arrives_typed(session: dict[str, Any]) -> None:
    made = call(session, "every_kind")
    [request] = made["requests"]
    assert request["mode"] == "form"
    assert request["message"] == "Plan your stay"
    # strands hands the application the schema exactly as elicitkit sent it.
    assert request["requestedSchema"] == requested_schema(Stay, protocol=session["protocol"])
    assert made["text"] == (
        "STAY guest=Ada Lovelace nights=3 cabin=garden extras=breakfast,late "
        "day=2026-12-24 insured=True"
    )
    assert made["status"] == "success"


@both_flavours
def test_the_other_field_kinds(session: dict[str, Any], era: str, observe: Observe) -> None:
    assert call(session, "yes_no")["text"] == "ANSWER False"
    assert call(session, "tip")["text"] == "TIP 2.5"
    assert call(session, "preferences")["text"] == (
        "PREFS pillow=firm view=sea newsletter=True towels=parking floor=3"
    )
    # An empty answer goes as sent: strands fills in nothing, the server its defaults.
    observe(CLIENT, era, "untouched_optional_form", call(session, "preferences_empty")["text"])
    stay = call(session, "every_kind")["text"]
    observe(CLIENT, era, "multi_select_arrives_as", "a list" if stay.startswith("STAY") else stay)


@both_flavours
def test_answers_travel_as_the_callback_gave_them(session: dict[str, Any]) -> None:
    # strands fills in no default and drops nothing: what the server gets is the callback's.
    for name, planned in PLAN.items():
        sent = [
            answer
            for message in call(session, name)["wire"]
            for answer in message.get("answers", ())
        ]
        assert sent == planned.get("answers", []), name


@both_flavours
def test_decline_and_cancel_reach_the_tool(
    session: dict[str, Any], era: str, observe: Observe
) -> None:
    observe(CLIENT, era, "declined_form", call(session, "declined")["text"])
    observe(CLIENT, era, "cancelled_form", call(session, "cancelled")["text"])


@both_flavours
def test_invalid_value_is_reported_per_field(session: dict[str, Any]) -> None:
    assert call(session, "invalid")["text"] == (
        "INVALID day: Expected a date like 2024-12-31, got '20261224'."
    )


@both_flavours
def test_invalid_answer_is_asked_again(session: dict[str, Any]) -> None:
    made = call(session, "reasked")
    first, again = made["requests"]
    assert first["message"] == "Plan your stay"
    assert again["message"] == (
        "Plan your stay\n\nPlease correct your answer. Guest: Must be at least 2 characters long."
    )
    assert made["text"] == "STAY guest=Ada Lovelace nights=3 day=2026-12-24"


@both_flavours
def test_url_mode(session: dict[str, Any], era: str, observe: Observe) -> None:
    assert session["capabilities"]["elicitation"] == {"form": {}, "url": {}}
    made = call(session, "link")
    [request] = made["requests"]
    assert (request["mode"], request["url"]) == ("url", "https://bank.example/authorize")
    observe(CLIENT, era, "url_mode_accepted", made["text"])


@both_flavours
def test_go_async_with_a_question_in_the_task(
    session: dict[str, Any], era: str, observe: Observe
) -> None:
    made = call(session, "task")
    assert [request["message"] for request in made["requests"]] == [
        "Who is the report for?",
        "Q1 is rendered. How many copies?",
    ]
    # On 2026-07-28 the tool runs four times: the first question's round, the round that
    # reaches go_async(), and the task's two legs (the copies question ends the first), so
    # before= is 4 and after= 2 (the legs), when the call ends and after it (runs reads the
    # counters once every call is done).
    where, after = (
        ("as a task; before=4", "after=2")
        if modern(session)
        else ("in the call; before=1", "after=1")
    )
    assert made["text"] == f"REPORT Q1 for Ada: 2 copies, {where} {after}"
    assert call(session, "runs_Q1")["text"] == f"RUNS Q1 {where.split('; ')[1]} {after}"
    observe(CLIENT, era, "go_async_with_question", made["text"].partition(": ")[2])
    if modern(session):
        assert "io.modelcontextprotocol/tasks" in session["capabilities"]["extensions"]
        assert task_story(made) == [
            "tools/call",  # the first question, as an input-required result
            "tools/call",  # answered: the call reaches go_async() and becomes a task
            "task created",
            "tasks/get",
            "input_required",  # the question inside the task, in tasks/get
            "tasks/update",  # the answer
            "tasks/get",
            "completed",
        ]
    else:
        assert not any(step.startswith("tasks/") for step in task_story(made))


@both_flavours
@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        pytest.param("task_declined", "NO COPIES: decline", id="declined"),
        pytest.param("task_cancelled", "NO COPIES: cancel", id="cancelled"),
        pytest.param("task_invalid", "INVALID copies: Must be at least 1.", id="invalid"),
        pytest.param("task_reasked", "3 copies", id="asked-again"),
    ],
)
def test_answers_inside_the_task_reach_the_tool(
    session: dict[str, Any], name: str, outcome: str
) -> None:
    made = call(session, name)
    title = PLAN[name]["args"]["title"]
    legs = 3 if name == "task_reasked" else 2  # a re-ask ends one more leg
    where, after = (
        (f"as a task; before={legs + 2}", f"after={legs}")
        if modern(session)
        else ("in the call; before=1", "after=1")
    )
    assert made["text"] == f"REPORT {title} for Ada: {outcome}, {where} {after}"
    assert call(session, f"runs_{title}")["text"] == f"RUNS {title} {where.split('; ')[1]} {after}"
    if modern(session):
        asked = 2 if name == "task_reasked" else 1
        assert task_story(made) == [
            "tools/call",
            "tools/call",
            "task created",
            *["tasks/get", "input_required", "tasks/update"] * asked,
            "tasks/get",
            "completed",
        ]
