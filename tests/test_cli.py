"""The command line: --version, --help, ``schema``, ``check``, and ``try`` without a terminal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import elicitkit
from elicitkit.cli.main import main
from tests.test_stdio import BOOKING, SHIPPING, _load_example

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

REPO = Path(__file__).resolve().parent.parent
SAMPLES = Path("tests") / "cli_samples"
SURVEY = str(SAMPLES / "survey.py")
# What check says once per run about clients beyond their forms (ClientProfile.notes).
NOTES = [
    (
        "note: ai-sdk: Over stdio on its default settings it gives up on its server/discover "
        "probe after one second and sends initialize on the same connection, which a server "
        "slower to start (a Python server on a busy machine) answers with -32022; its users "
        "set transport.waitsForProtocolVersionDiscovery = true (docs/clients.md; "
        "tests/interop/test_ai_sdk.py: test_default_settings_lose_the_stdio_probe_race)."
    ),
    (
        "note: ai-sdk: It has no Tasks extension, so on 2026-07-28 the code after go_async() "
        "runs again in each later round of questions: act in a step() or after the last "
        "question (tests/interop/test_ai_sdk.py: "
        "test_go_async_without_tasks_follows_the_replay_rule)."
    ),
    (
        "note: mcp-inspector-cli: It declares no elicitation and starts a new stdio server for "
        'every call: install(server, on_unsupported="ask_model") lets it finish a form '
        "through answer_form, once, with the default records (docs/records.md; "
        "tests/interop/test_inspector_cli.py)."
    ),
]
# Each warning says what to do; {it} is "it" for one field, "each" for several.
CODEX_NUMBERS = (
    "codex has no number input, so it shows only approve/decline and sends no content "
    "(laravel/mcp PR#190). If its users must answer, ask {it} as a choice (a Literal of the "
    "values, or an Enum) or as text (str) the tool converts."
)
# strands-agents hands the schema, defaults included, to the application's callback and
# sends its answer as it is: a default comes back only if the callback sends it.
STRANDS_DEFAULTS = (
    "strands-agents does not prefill defaults, so an answer left empty arrives absent and the "
    "server fills in the default (tests/interop/test_strands.py: "
    "test_answers_travel_as_the_callback_gave_them). Name the default in each field's "
    "description (FormField(description=...)) if its users should know what an empty answer "
    "means."
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "elicitkit", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )


def test_version_from_the_console_script() -> None:
    script = shutil.which("elicitkit", path=str(Path(sys.executable).parent))
    assert script is not None, "the console script is installed with the package"
    done = subprocess.run([script, "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert done.stdout == "elicitkit 0.1.0\n"


def test_help_lists_every_command_with_an_example() -> None:
    done = run("--help")
    assert done.returncode == 0
    for command in ("demo", "schema", "check", "try"):
        assert f"\n    {command} " in done.stdout
        assert f"elicitkit {command}" in done.stdout


def test_help_examples_need_no_checkout(tmp_path: Path) -> None:
    """A wheel has no examples/: the examples that run use the demo server it ships."""
    done = run("--help")
    assert "examples/" not in done.stdout
    assert "elicitkit schema elicitkit.cli.demo_server:ShippingAddress --protocol 2025-06-18" in (
        done.stdout
    )
    # Run from a directory without the checkout's files, as after `pip install elicitkit`.
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    schema = subprocess.run(
        [sys.executable, "-m", "elicitkit", "schema",
         "elicitkit.cli.demo_server:ShippingAddress", "--protocol", "2025-06-18"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert schema.returncode == 0, schema.stderr
    assert json.loads(schema.stdout)["properties"]["speed"]["enumNames"] == [
        "Standard (3-5 days)",
        "Express (next day)",
    ]
    demo_server = f"{sys.executable} -m elicitkit.cli.demo_server"
    listed = subprocess.run(
        [sys.executable, "-m", "elicitkit", "try", demo_server],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path, env=env,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "  ship(item): Ship an item: ask where to, then ask to confirm." in listed.stdout


def test_no_command_shows_usage() -> None:
    done = run()
    assert done.returncode == 2
    assert done.stderr.startswith("usage: elicitkit [-h] [--version] COMMAND ...")


@pytest.mark.parametrize("protocol", elicitkit.protocol.PROTOCOL_VERSIONS)
def test_schema_prints_the_wire_schema(
    protocol: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    shipping = _load_example(SHIPPING)
    code = main(["schema", f"{SHIPPING.relative_to(REPO)}:ShippingAddress", "--protocol", protocol])
    out = capsys.readouterr().out
    assert code == 0
    assert json.loads(out) == elicitkit.requested_schema(
        _loaded("shipping").ShippingAddress, protocol=protocol
    )
    # The same form, as the example module itself defines it.
    assert json.loads(out) == elicitkit.requested_schema(
        shipping.ShippingAddress, protocol=protocol
    )


def _loaded(stem: str) -> object:
    return sys.modules[f"_elicitkit_cli_{stem}"]


def test_schema_defaults_to_the_latest_protocol_and_takes_dotted_modules(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    assert main(["schema", "elicitkit.cli.demo_server:ShippingAddress"]) == 0
    from elicitkit.cli.demo_server import ShippingAddress  # noqa: PLC0415

    assert json.loads(capsys.readouterr().out) == elicitkit.requested_schema(ShippingAddress)


@pytest.mark.parametrize(
    ("target", "code", "message"),
    [
        pytest.param(
            f"{SURVEY}:Nope",
            1,
            f"elicitkit schema: {REPO / SURVEY} has no 'Nope'. Give the name of a form type "
            "defined or imported there.",
            id="no-such-name",
        ),
        pytest.param(
            "nope.mod:X",
            1,
            "elicitkit schema: Cannot import 'nope.mod': No module named 'nope'. Give a dotted "
            "module name importable from here, or a path to a .py file.",
            id="no-such-module",
        ),
        pytest.param(
            "tests/cli_samples/missing.py:X",
            1,
            "elicitkit schema: Cannot load 'tests/cli_samples/missing.py': there is no such file.",
            id="no-such-file",
        ),
        pytest.param(
            f"{SURVEY}:Nested",
            1,
            "elicitkit schema: Cannot build a form field for 'inner' of Nested: dict[str, int] "
            "is a nested mapping, and MCP forms are flat. Declare one field per key instead.",
            id="not-a-form",
        ),
        pytest.param(
            SURVEY,
            2,
            f"elicitkit schema: give MODULE:NAME, not {SURVEY!r}.",
            id="no-name",
        ),
    ],
)
def test_schema_errors(
    target: str,
    code: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    assert main(["schema", target]) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == message + "\n"


def test_schema_rejects_an_unknown_protocol() -> None:
    done = run("schema", f"{SURVEY}:Survey", "--protocol", "2024-11-05")
    assert done.returncode == 2
    assert "argument --protocol: invalid choice: '2024-11-05'" in done.stderr


def test_check_reports_errors_and_client_warnings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    assert main(["check", SURVEY]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{SURVEY}:19: Survey",  # its multi-select 'topics' goes as checkboxes on 2025-06-18
        f"  warning: Fields 'score', 'weight': {CODEX_NUMBERS.format(it='each')}",
        (
            "  warning: Field 'topics': codex has no multi-select input, so it shows only "
            "approve/decline and sends no content (laravel/mcp PR#190). If its users must "
            "answer, ask it as one choice, or as one yes/no (bool) per option."
        ),
        f"  warning: Fields 'weight', 'mood': {STRANDS_DEFAULTS}",
        f"{SURVEY}:32: bool",
        "  ok",
        f"{SURVEY}:33: Nested",
        (
            "  error: Cannot build a form field for 'inner' of Nested: dict[str, int] is a "
            "nested mapping, and MCP forms are flat. Declare one field per key instead."
        ),
        *NOTES,
        "3 forms checked: 1 error, 3 warnings.",
    ]


@pytest.mark.parametrize(
    ("example", "form", "marker", "field", "defaults"),
    [
        # Found through `ask(Booking, ...)`, and through `@form` on the class.
        pytest.param(
            BOOKING, "Booking", "await ask(Booking", "guests", "'time', 'area', 'note'",
            id="booking",
        ),
        pytest.param(
            SHIPPING, "ShippingAddress", "class ShippingAddress", "floor", "'speed', 'floor'",
            id="shipping",
        ),
    ],
)  # fmt: skip
def test_check_the_examples_warns_about_numbers_on_codex_and_defaults_on_strands(
    example: Path,
    form: str,
    marker: str,
    field: str,
    defaults: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    path = str(example.relative_to(REPO))
    assert main(["check", f"{path}:{form}"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: {form}",
        f"  warning: Field {field!r}: {CODEX_NUMBERS.format(it='it')}",
        f"  warning: Fields {defaults}: {STRANDS_DEFAULTS}",
        *NOTES,
        "1 form checked: 0 errors, 2 warnings.",
    ]
    assert main(["check", path]) == 0
    line = next(
        number for number, text in enumerate(example.read_text().splitlines(), 1) if marker in text
    )
    assert f"{path}:{line}: {form}" in capsys.readouterr().out


def test_check_warns_about_optional_fields_a_client_fills_in(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The interop suite's form of optional fields: fast-agent sends three of them as
    # answers when left alone (docs/clients.json, untouched_optional_form); `view` has a
    # default and `floor` is a number, which stays absent.
    monkeypatch.chdir(REPO)
    assert main(["check", "tests/interop/server.py:Preferences"]) == 0
    assert capsys.readouterr().out.splitlines()[-3 - len(NOTES) :] == [
        f"  warning: Fields 'pillow', 'view', 'towels', 'floor': {STRANDS_DEFAULTS}",
        (
            "  warning: Fields 'pillow', 'newsletter', 'towels': fast-agent fills in optional "
            "fields the user leaves alone (a choice with its first option, a yes/no with "
            "false, a multi-select with []), so the server cannot tell them from answers; "
            "give each a default (a 'no preference' option, say) if that matters "
            "(docs/clients.json, from the interop suite, fact 'untouched_optional_form')."
        ),
        *NOTES,
        "1 form checked: 0 errors, 4 warnings.",
    ]


def test_check_a_module_whose_form_fails_at_import(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    target = str(SAMPLES / "broken.py")
    assert main(["check", target]) == 1
    assert capsys.readouterr().out.splitlines() == [
        (
            f"{target}: error: Cannot build a form field for 'tags' of Tags: list[str] has no flat "
            "JSON form. Use list[Literal[...]] or list[SomeEnum] for a multi-select."
        ),
        "1 error, 0 warnings.",
    ]


def test_check_a_module_without_forms(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    target = str(SAMPLES / "empty.py")
    assert main(["check", target]) == 0
    assert (
        capsys.readouterr().out == f"{target}: no forms found (no @form classes, no ask() calls).\n"
    )


@pytest.mark.parametrize(
    ("option", "version"),
    [
        pytest.param((), "2026-07-28", id="newest"),
        pytest.param(("--protocol", "2025-11-25"), "2025-11-25", id="2025-11-25"),
        pytest.param(("--protocol", "2025-06-18"), "2025-06-18", id="2025-06-18"),
    ],
)
def test_try_lists_the_tools_of_a_server(option: tuple[str, ...], version: str) -> None:
    done = run("try", str(BOOKING.relative_to(REPO)), *option)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"Connected: MCP {version}.",
        "Tools (call one with --tool NAME --args JSON):",
        "  book_table(restaurant): Book a table; the user fills in the details.",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            "{",
            "elicitkit try: --args is not JSON (Expecting property name enclosed in double "
            'quotes at character 1). Pass an object, like --args \'{"item": "a teapot"}\'.',
            id="not-json",
        ),
        pytest.param(
            "[1]",
            'elicitkit try: --args must be a JSON object, like --args \'{"item": "a teapot"}\'.',
            id="not-an-object",
        ),
    ],
)
def test_try_rejects_bad_arguments(args: str, message: str) -> None:
    done = run("try", str(BOOKING), "--tool", "book_table", "--args", args)
    assert done.returncode == 2
    assert done.stderr == message + "\n"


def test_try_reports_a_tool_error_with_exit_status_1() -> None:
    done = run("try", str(BOOKING), "--tool", "nope", "--args", "{}", "--protocol", "2025-11-25")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "Connected: MCP 2025-11-25.",
        "-> nope {}",
        "<- error: Unknown tool: nope",
    ]


def test_try_without_arguments_names_the_tools_when_the_tool_is_unknown() -> None:
    done = run("try", str(BOOKING), "--tool", "nope")
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "Connected: MCP 2026-07-28.",
        "elicitkit try: the server has no tool 'nope' (its tools: book_table).",
    ]


def test_try_a_script_that_never_runs_its_server_says_what_to_add() -> None:
    done = run("try", "tests/cli_samples/norun.py")
    assert done.returncode == 1
    assert done.stdout == (
        "elicitkit try: tests/cli_samples/norun.py exited without answering, and wrote "
        "nothing to stderr: it probably creates a server but never runs it. End it with\n"
        '    if __name__ == "__main__":\n'
        '        server.run("stdio")\n'
        "(server being your MCPServer or FastMCP) so that it serves over stdio when started, "
        "then try again.\n"
    )
    assert done.stderr == ""


def test_try_reports_a_server_that_does_not_start() -> None:
    done = run("try", "tests/cli_samples/missing.py")
    assert done.returncode == 1
    assert done.stdout.startswith(
        "elicitkit try: the session with tests/cli_samples/missing.py failed: "
    )
    assert "can't open file" in done.stderr
