"""A Ctrl-C while the command line is still starting leaves with one line, not a traceback.

``python -m elicitkit`` and the ``elicitkit`` command import this package (pydantic, the
SDK's types: a fifth of a second, seconds on a loaded machine) before any of the command
line's own code runs, so no ``try`` of the command line can catch a Ctrl-C pressed in that
moment: Python prints a 50-line ``KeyboardInterrupt`` traceback. For those two ways of
starting, and only for them, the package's first import sets ``sys.excepthook`` to print
one line for an uncaught ``KeyboardInterrupt`` (any other exception is shown as before).
A program that merely imports elicitkit is left alone.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType

INTERRUPTED = "Interrupted."
INTERRUPTED_STATUS = 130
"""The shell's status for a process ended by Ctrl-C (128 + SIGINT): every command's."""


def quiet_when_interrupted_at_start() -> None:
    """Print one line for a Ctrl-C that nothing caught, if this process is elicitkit's CLI."""
    if not _is_the_command_line():
        return
    previous = sys.excepthook

    def one_line(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        if issubclass(kind, KeyboardInterrupt):
            print(f"\n{INTERRUPTED}", file=sys.stderr)  # noqa: T201  (the command line's own words)
            return
        previous(kind, error, traceback)

    sys.excepthook = one_line


def _is_the_command_line() -> bool:
    # sys.orig_argv (3.10+) is the interpreter's own command line: `python -m elicitkit ...`
    # is known before runpy has set sys.argv[0], which is "-m" while the package imports.
    line = list(sys.orig_argv)
    if "-m" in line:
        after = line.index("-m") + 1
        return line[after : after + 1] == ["elicitkit"]
    script = Path(sys.argv[0]).name if sys.argv else ""
    return script in ("elicitkit", "elicitkit.exe")
