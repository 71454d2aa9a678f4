"""One owner for Ctrl-C while a command's event loop runs.

Left alone, three parties take turns at SIGINT during ``elicitkit demo`` and ``try``:
asyncio's runner (which cancels the main task once, a single cancellation that code
unwinding from it can absorb), prompt_toolkit (which installs a handler of its own around
every prompt and removes it after), and the interpreter's default (which raises, and a
``KeyboardInterrupt`` raised inside a weakref callback or a ``__del__`` is dropped). A
Ctrl-C that landed at the wrong moment was lost: CI saw the demo go on to draw its first
form and wait there.

Here `elicitkit._interrupt.CTRL_C` holds SIGINT for the whole run and never raises for the
first Ctrl-C: it cancels the run's anyio scope, which anyio delivers again at every
``await`` until the scope has exited, so nothing on the way out can swallow it, and the run
then ends with ``KeyboardInterrupt`` for the command to report in one line. A Ctrl-C pressed
before the run (while the command imported, and dropped there) stops it before it starts.
A second Ctrl-C, while the clean-up still waits (a server slow to stop), raises at once. At
a prompt the terminal is in raw mode, where Ctrl-C is a key that cancels the form, so
prompts run with ``handle_sigint=False`` and never take the signal over.

Work that must still talk to its peer on the way out (``try`` sends a task's
``tasks/cancel``) runs inside `ctrl_c_cancels_here`: there the first Ctrl-C cancels that
block alone, so the connection's own tasks (the reader that brings the server's answer)
are still running while the block unwinds; then the run's scope is cancelled as before.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar

import anyio

from elicitkit._interrupt import CTRL_C

T = TypeVar("T")


def run_interruptibly(main: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``anyio.run(main, *args)``, where a Ctrl-C at any moment stops the whole run.

    Raises:
        KeyboardInterrupt: Ctrl-C was pressed; everything the run started has unwound.
    """
    if threading.current_thread() is not threading.main_thread():
        return anyio.run(main, *args)  # signals reach the main thread only: nothing to own
    CTRL_C.check()
    # Installed here too, for a caller that is not the command line's process (a test).
    previous = signal.getsignal(signal.SIGINT)
    CTRL_C.install()
    try:
        outcome = anyio.run(_cancelled_by_ctrl_c, main, args)
    finally:
        if previous is not None:  # None: a handler not set from Python, left as it is
            signal.signal(signal.SIGINT, previous)
    CTRL_C.check()
    if not outcome:
        raise KeyboardInterrupt  # not reached: only a Ctrl-C cancels the scope
    return outcome[0]


async def _cancelled_by_ctrl_c(
    main: Callable[..., Awaitable[T]], args: tuple[Any, ...]
) -> tuple[T, ...]:
    # Returned after the block, which ends without a return when the scope swallowed the
    # Ctrl-C's cancellation (mypy takes a generator's context manager to swallow nothing).
    outcome: tuple[T, ...] = ()
    with _first_ctrl_c_cancels(then=None):
        outcome = (await main(*args),)
    return outcome  # noqa: RET504  (empty when a Ctrl-C cancelled it: run_interruptibly raises)


@contextmanager
def _first_ctrl_c_cancels(*, then: Callable[[], None] | None) -> Generator[None, None, None]:
    """A cancel scope that the first Ctrl-C cancels; on the way out, ``then`` owns it."""
    loop = asyncio.get_running_loop()
    with anyio.CancelScope() as scope:
        # The handler runs between two bytecodes of whatever the loop was doing: the
        # cancellation itself is left to the loop.
        def cancel() -> None:
            loop.call_soon_threadsafe(scope.cancel)

        CTRL_C.on_first = cancel
        try:
            yield
        finally:
            CTRL_C.on_first = then


@asynccontextmanager
async def ctrl_c_cancels_here() -> AsyncGenerator[None]:
    """Inside, the first Ctrl-C cancels this block alone; once it has unwound, the run.

    Outside `run_interruptibly` (another thread, a test's own event loop) nothing owns
    Ctrl-C, and the block runs as it is.
    """
    cancel_the_run = CTRL_C.on_first
    if cancel_the_run is None:
        yield
        return
    with _first_ctrl_c_cancels(then=cancel_the_run):
        yield
    if CTRL_C.pressed:  # in the block (it unwound), or as it ended: the run stops here
        cancel_the_run()
        await anyio.sleep_forever()  # until that cancellation arrives, on the next turn
