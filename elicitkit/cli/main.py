"""The ``elicitkit`` command line (also ``python -m elicitkit``)."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from importlib.metadata import PackageNotFoundError, version

from elicitkit._interrupt import CTRL_C, INTERRUPTED, INTERRUPTED_STATUS, is_interrupt
from elicitkit.cli.shown_text import shown
from elicitkit.protocol import LATEST_PROTOCOL, PROTOCOL_VERSIONS

DESCRIPTION = """\
Typed MCP elicitation: see the forms your tools send, check them against real clients,
and try any server's tools at this terminal.

examples (the first four use the demo server that ships with elicitkit):
  elicitkit demo                          a real server and client, both protocol eras
  elicitkit demo --schema                 the same, printing each form's requestedSchema
  elicitkit schema elicitkit.cli.demo_server:ShippingAddress --protocol 2025-06-18
  elicitkit try "python -m elicitkit.cli.demo_server" --tool ship --args '{"item": "a kettle"}'
  elicitkit schema myforms:AddressForm    a form of yours: MODULE:NAME, or path/to/file.py:NAME
  elicitkit check myforms.py              errors and client warnings, exit 1 on errors
  elicitkit try my_server.py              list the tools of your stdio server, then call one
"""


def _version() -> str:
    try:
        return version("elicitkit")
    except PackageNotFoundError:  # pragma: no cover  (running from a source tree)
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="elicitkit",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"elicitkit {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="run a real MCP server and client through ask() on both protocol eras"
    )
    demo.add_argument(
        "--scripted", action="store_true", help="let a script answer the forms even at a terminal"
    )
    demo.add_argument(
        "--schema", action="store_true", help="print each form's requestedSchema (JSON) too"
    )

    schema = commands.add_parser(
        "schema", help="print the wire requestedSchema of a form type as JSON"
    )
    schema.add_argument(
        "target",
        metavar="MODULE:NAME",
        help="a dotted module or a path to a .py file, and the form type's name in it",
    )
    schema.add_argument(
        "--protocol",
        choices=PROTOCOL_VERSIONS,
        default=LATEST_PROTOCOL,
        help=f"the MCP protocol version to render for (default: {LATEST_PROTOCOL})",
    )

    check = commands.add_parser(
        "check",
        help="report form definition errors and what known clients will do with each form",
    )
    check.add_argument(
        "target",
        metavar="MODULE[:NAME]",
        help="a dotted module or a .py file; without NAME, every type decorated with @form "
        "or passed to ask() in it",
    )

    try_ = commands.add_parser(
        "try",
        help="call a tool of a stdio MCP server and fill in its forms at this terminal",
        description="Connect to a stdio MCP server, call one of its tools, and answer every "
        "form it asks at this terminal (Enter or y fills in, d declines, c cancels; at a "
        "field, Enter keeps the default, or skips an empty optional one; a yes/no question "
        "takes y or n; Ctrl-C cancels a form). Without --tool, list the tools; "
        "without --args, ask for them. On MCP 2026-07-28 a call the server turns into a "
        "task is followed here: its status, its questions, its result (Ctrl-C cancels it).",
    )
    try_.add_argument("server", metavar="SERVER", help="a .py file, or a command line to run")
    try_.add_argument("--tool", metavar="NAME", help="the tool to call")
    try_.add_argument(
        "--args", metavar="JSON", dest="arguments", help="the tool's arguments, a JSON object"
    )
    try_.add_argument(
        "--protocol",
        choices=PROTOCOL_VERSIONS,
        help="the protocol version to speak (default: the newest both sides speak)",
    )
    try_.add_argument(
        "--schema", action="store_true", help="print each form's requestedSchema (JSON) too"
    )
    try_.add_argument(
        "--no-tasks",
        dest="tasks",
        action="store_false",
        help="do not declare the Tasks extension: the tool runs in the call, never as a task",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        status = _run(argv)
        if status != INTERRUPTED_STATUS:  # not told yet: its KeyboardInterrupt was dropped
            CTRL_C.check()
    except BrokenPipeError:  # `elicitkit schema ... | head`: the reader left, nothing to say
        # Point stdout at nothing, so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except BaseException as error:  # Ctrl-C while a command still loads (each catches its own)
        if not is_interrupt(error):
            raise
        print(f"\n{INTERRUPTED}", file=sys.stderr)
        return INTERRUPTED_STATUS
    return status


def _run(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from elicitkit.cli.demo import run_demo  # noqa: PLC0415  (each command loads only its own)

        interactive = not args.scripted and sys.stdin.isatty() and sys.stdout.isatty()
        if interactive and not _has_terminal_forms():
            print(
                f"{NO_TERMINAL_FORMS} (Or let a script answer: elicitkit demo --scripted.)",
                file=sys.stderr,
            )
            return 2
        return run_demo(interactive=interactive, show_schema=args.schema)
    if args.command == "schema":
        return _schema(args.target, args.protocol)
    if args.command == "check":
        return _check(args.target)
    if not _has_terminal_forms():
        print(NO_TERMINAL_FORMS, file=sys.stderr)
        return 2
    from elicitkit.cli.try_server import run_try  # noqa: PLC0415

    return run_try(
        args.server,
        args.tool,
        args.arguments,
        args.protocol,
        show_schema=args.schema,
        tasks=args.tasks,
    )


# Until elicitkit is on PyPI, "elicitkit[cli]" names nothing pip can find: name the package
# itself, which every install takes, and the extra of a checkout.
NO_TERMINAL_FORMS = (
    'The terminal forms need prompt_toolkit (the cli extra): pip install "prompt-toolkit>=3.0.43", '
    'or in a checkout of elicitkit, pip install -e ".[cli]".'
)


def _has_terminal_forms() -> bool:
    """Whether prompt_toolkit, the ``cli`` extra behind the terminal forms, is installed."""
    try:
        importlib.import_module("prompt_toolkit")
    except ImportError:
        return False
    return True


def _schema(target: str, protocol: str) -> int:
    from elicitkit import requested_schema  # noqa: PLC0415
    from elicitkit.cli.form_loader import LoadError, load_module, named, split_target  # noqa: PLC0415
    from elicitkit.errors import FormDefinitionError  # noqa: PLC0415

    module_name, name = split_target(target)
    if name is None:
        print(shown(f"elicitkit schema: give MODULE:NAME, not {target!r}."), file=sys.stderr)
        return 2
    try:
        found = named(load_module(module_name), name)
        schema = requested_schema(found.tp, protocol=protocol)
    except (LoadError, FormDefinitionError) as error:
        print(shown(f"elicitkit schema: {error}"), file=sys.stderr)
        return 1
    # JSON already escapes C0 controls; shown() writes the rest (C1, bidi) as JSON escapes.
    print(shown(json.dumps(schema, indent=2, ensure_ascii=False)))
    return 0


def _check(target: str) -> int:
    from elicitkit.cli.check import check_form, client_notes  # noqa: PLC0415
    from elicitkit.cli.form_loader import (  # noqa: PLC0415
        LoadError,
        forms_in,
        load_module,
        named,
        split_target,
    )
    from elicitkit.errors import FormDefinitionError  # noqa: PLC0415

    module_name, name = split_target(target)
    try:
        module = load_module(module_name)
        forms = [named(module, name)] if name is not None else forms_in(module)
    except LoadError as error:
        print(shown(f"elicitkit check: {error}"), file=sys.stderr)
        return 1
    except FormDefinitionError as error:  # raised by @form while the module was imported
        print(shown(f"{module_name}: error: {error}"))
        print("1 error, 0 warnings.")
        return 1
    if not forms:
        print(shown(f"{module_name}: no forms found (no @form classes, no ask() calls)."))
        return 0
    errors = warnings = 0
    for report in map(check_form, forms):
        where = f"{module_name}:{report.form.line}" if report.form.line else module_name
        print(shown(f"{where}: {report.form.name}"))
        for problem in report.errors:
            print(shown(f"  error: {problem}"))
        for warning in report.warnings:
            print(shown(f"  warning: {warning}"))
        if not report.errors and not report.warnings:
            print("  ok")
        errors += len(report.errors)
        warnings += len(report.warnings)
    for note in client_notes():
        print(shown(f"note: {note}"))
    noun = "form" if len(forms) == 1 else "forms"
    print(
        f"{len(forms)} {noun} checked: {errors} error{'s' * (errors != 1)}, "
        f"{warnings} warning{'s' * (warnings != 1)}."
    )
    return 1 if errors else 0
