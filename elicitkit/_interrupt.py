"""Ctrl-C leaves the command line with one line, not a traceback, wherever it lands.

``python -m elicitkit`` and the ``elicitkit`` command import this package (pydantic, the
SDK's types: a fifth of a second, seconds on a loaded machine) before any of the command
line's own code runs, so no ``try`` of the command line can catch a Ctrl-C pressed in that
moment: Python prints a 50-line ``KeyboardInterrupt`` traceback. For those two ways of
starting, and only for them, the package's first import sets ``sys.excepthook`` to print
one line for an uncaught interrupt (any other exception is shown as before). A program that
merely imports elicitkit is left alone.

A Ctrl-C does not always arrive as a bare ``KeyboardInterrupt``: one that lands while
pydantic-core builds a validator (every model class, at import) comes back as a
``SchemaError`` whose message ends in ``KeyboardInterrupt:``; one inside a task group comes
inside an exception group; one during cleanup hangs off another error's ``__context__``.
`is_interrupt` looks through all of these, and every place the command line handles Ctrl-C
asks it.

And a Ctrl-C does not always arrive at all. Python runs a signal's handler between two
bytecodes of whatever code is running, a weakref callback or a ``__del__`` included, and
there an exception is printed ("Exception ignored in ...") and dropped: the command went
on as if nothing was pressed (CI saw the demo draw its first form and wait). So the command
line's SIGINT handler, `CTRL_C`, remembers every Ctrl-C before it raises, and the command
line checks it at its own moments (`CtrlC.check`); while an event loop runs, it does not
raise at all (see `elicitkit.cli.interruptible`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType, TracebackType
from typing import cast

from elicitkit._compat import BaseExceptionGroup

INTERRUPTED = "Interrupted."
INTERRUPTED_STATUS = 130
"""The shell's status for a process ended by Ctrl-C (128 + SIGINT): every command's."""

_MOST_LOOKED_AT = 64
"""Exceptions `is_interrupt` reads at most: a chain or group longer than this is not a Ctrl-C's."""

# pydantic-core keeps no reference to the Python error it met while building a validator: it
# writes the error's type and message into its own, one nested builder per line
# ('Error building "literal" validator:\n  KeyboardInterrupt: '), and sets no __cause__.
_INTERRUPT_IN_SCHEMA_ERROR = re.compile(r"^\s*KeyboardInterrupt:", re.MULTILINE)


def is_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C: a ``KeyboardInterrupt``, or one inside a wrapper.

    The wrappers looked through: exception groups, ``__cause__`` and ``__context__`` chains,
    and pydantic-core's ``SchemaError`` (which carries the interrupt only in its message).
    """
    waiting: list[BaseException] = [error]
    seen: set[int] = set()
    while waiting and len(seen) < _MOST_LOOKED_AT:
        current = waiting.pop()
        if id(current) in seen:  # a cycle: A's context is B, B's is A
            continue
        seen.add(id(current))
        if isinstance(current, KeyboardInterrupt) or _is_interrupted_schema_build(current):
            return True
        if isinstance(current, BaseExceptionGroup):
            waiting.extend(cast("BaseExceptionGroup[BaseException]", current).exceptions)
        waiting.extend(inner for inner in (current.__cause__, current.__context__) if inner)
    return False


def _is_interrupted_schema_build(error: BaseException) -> bool:
    kind = type(error)
    # By name: this module runs before the package's imports, and pydantic-core is one of them.
    if kind.__name__ != "SchemaError" or not kind.__module__.startswith("pydantic_core"):
        return False
    return _INTERRUPT_IN_SCHEMA_ERROR.search(str(error)) is not None


class CtrlC:
    """The command line's SIGINT handler: every Ctrl-C is remembered, whatever became of it."""

    def __init__(self) -> None:
        self.pressed = False
        self.on_first: Callable[[], None] | None = None
        """What the first Ctrl-C does instead of raising (set while an event loop runs)."""

    def install(self) -> None:
        """Take SIGINT from here on, unless this process was started to ignore it.

        Main thread only, as every signal handler. A process started with SIGINT ignored
        (``nohup``, a background job of a shell) keeps ignoring it.
        """
        import signal  # noqa: PLC0415  (the command line's process only)

        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, self.handle)

    def handle(self, _signum: int, _frame: FrameType | None) -> None:
        """The handler: remember, then hand the first Ctrl-C over, or raise."""
        first = not self.pressed
        self.pressed = True
        if first and self.on_first is not None:
            self.on_first()
            return
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise the Ctrl-C that was pressed, if one was (its own exception may have been lost).

        Raises:
            KeyboardInterrupt: Ctrl-C was pressed.
        """
        if self.pressed:
            raise KeyboardInterrupt


CTRL_C = CtrlC()
"""The command line's one handler: installed as the package starts, if this is the CLI."""


def quiet_when_interrupted_at_start() -> None:
    """Print one line for a Ctrl-C that nothing caught, if this process is elicitkit's CLI."""
    if not _is_the_command_line():
        return
    CTRL_C.install()
    _quiet_when_dropped()
    previous = sys.excepthook

    def one_line(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        if not is_interrupt(error):
            previous(kind, error, traceback)
            return
        print(f"\n{INTERRUPTED}", file=sys.stderr)  # noqa: T201  (the command line's own words)
        if not isinstance(error, KeyboardInterrupt):
            _end_as_interrupted()

    sys.excepthook = one_line


def _quiet_when_dropped() -> None:
    """Say nothing of a Ctrl-C that Python dropped in a ``__del__``: `CTRL_C` still has it."""
    previous = sys.unraisablehook

    def unless_interrupt(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and CTRL_C.pressed:
            return  # raised again at the command line's next CtrlC.check()
        previous(unraisable)

    sys.unraisablehook = unless_interrupt


def _end_as_interrupted() -> None:
    # Python ends a process whose KeyboardInterrupt nobody caught as killed by SIGINT, so the
    # shell sees a Ctrl-C; a wrapped one it would end with status 1. End it as Python would.
    import os  # noqa: PLC0415  (only on the way out)
    import signal  # noqa: PLC0415

    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


def _is_the_command_line() -> bool:
    # sys.orig_argv (3.10+) is the interpreter's own command line: `python -m elicitkit ...`
    # is known before runpy has set sys.argv[0], which is "-m" while the package imports.
    line = list(sys.orig_argv)
    if "-m" in line:
        after = line.index("-m") + 1
        return line[after : after + 1] == ["elicitkit"]
    script = Path(sys.argv[0]).name if sys.argv else ""
    return script in ("elicitkit", "elicitkit.exe")
