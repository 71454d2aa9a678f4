"""Command line: ``python -m elicitkit demo``."""

from __future__ import annotations

import argparse
import sys

from elicitkit._demo import run_demo


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m elicitkit", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="run a real MCP server and client through ask() on both protocol eras"
    )
    demo.add_argument(
        "--scripted",
        action="store_true",
        help="let a script answer the forms even at a terminal",
    )
    args = parser.parse_args(argv)
    if args.command == "demo":
        return run_demo(interactive=False if args.scripted else None)
    return 2  # pragma: no cover  (argparse rejects unknown commands first)


if __name__ == "__main__":
    sys.exit(main())
