"""The one clock elicitkit reads: wall time, monotonic time, sleeps, bounded waits and timers.

Every time elicitkit reads or waits on for its own logic goes through the installed `Clock`:
state and ticket stamps and expiry (`now`), the memory stores' leases and entry lifetimes,
the task engine's renewals and deadlines, URL routes and the time an answer took
(`monotonic`), the pauses of polls and lease renewals (`sleep`, `call_later`) and the waits
for a change bounded by a poll interval (`move_on_after`). Production uses `SYSTEM`, the
real clocks; a test installs another (`elicitkit.testing.FakeClock`) to move time at will,
so that nothing it checks depends on how fast the machine is.

What the clock does not own, on purpose:

* Timeouts that bound real I/O (``anyio.fail_after`` around a store or Redis call, the
  shielded clean-ups' ``move_on_after``) stay on the event loop's own clock: they guard
  against a peer that hangs, in real seconds, and a fake clock must never fire them early
  nor hold them back.
* Leases a Redis store judges (its Lua scripts read Redis's ``TIME``, and keys expire on
  Redis's clock) stay judged by Redis: a worker's clock, fake or skewed, cannot move them.

Three readings, for three kinds of time: `now` (the wall clock) for what must outlive a
reboot (stamps and expiry, hours apart); `monotonic` for deadlines inside one process;
`machine` for leases several processes on one machine judge (the SQLite stores'), which
must neither lapse nor stay alive because someone set the wall clock.

The clock is process-wide (`install`), not per task: a server's request tasks, the task
engine's background tasks and the worker threads of sync steps must all see the same time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

import anyio


def _boot_id() -> str:
    """This boot of the machine (Linux), or ``""`` where it cannot be read."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


BOOT = _boot_id()
"""This boot of the machine: what a store wrote during another boot may be incomplete."""

# CLOCK_BOOTTIME counts from the boot, suspend included, the same in every process; it means
# something only beside the boot it was read in, so it is used only where BOOT is known.
_BOOTTIME: int | None = getattr(time, "CLOCK_BOOTTIME", None) if BOOT else None

MACHINE_STAMP = f"{BOOT} boottime" if _BOOTTIME is not None else BOOT
"""What a store writes beside a `machine` reading: the boot, and the clock, it was read on.

A reading stamped otherwise (another boot, or an earlier elicitkit that wrote wall-clock
deadlines beside the bare boot id) is not compared with this one's: its lease is judged
lapsed, which fails closed.
"""


class Timer(Protocol):
    """A callback scheduled by `Clock.call_later`; cancelling it keeps it from running."""

    def cancel(self) -> None:
        """Keep the callback from running (a no-op once it ran)."""
        ...


class Clock(Protocol):
    """What elicitkit asks of a clock."""

    def now(self) -> float:
        """Wall-clock time, in seconds since the epoch: what records and expiries carry."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back: deadlines and intervals in this process."""
        ...

    def machine(self) -> float:
        """Seconds on a clock every process on this machine shares, never going back.

        What leases that several processes judge are read on: Linux's ``CLOCK_BOOTTIME``,
        valid within one boot (`MACHINE_STAMP` says which); where no boot id can be read,
        the wall clock.
        """
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` on this clock."""
        ...

    def move_on_after(self, seconds: float) -> AbstractContextManager[anyio.CancelScope]:
        """A cancel scope that ends the wait inside it after ``seconds`` on this clock."""
        ...

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Timer:
        """Run ``callback`` (on the running asyncio loop) after ``seconds`` on this clock."""
        ...


class SystemClock:
    """The real clocks: `time.time`, `time.monotonic`, the boot time, the loop's timers."""

    def now(self) -> float:
        """See `Clock.now`."""
        return time.time()

    def monotonic(self) -> float:
        """See `Clock.monotonic`."""
        return time.monotonic()

    def machine(self) -> float:
        """See `Clock.machine`."""
        return time.time() if _BOOTTIME is None else time.clock_gettime(_BOOTTIME)

    async def sleep(self, seconds: float) -> None:
        """See `Clock.sleep`."""
        await anyio.sleep(seconds)

    def move_on_after(self, seconds: float) -> AbstractContextManager[anyio.CancelScope]:
        """See `Clock.move_on_after`."""
        return anyio.move_on_after(seconds)

    def call_later(self, seconds: float, callback: Callable[[], object]) -> Timer:
        """See `Clock.call_later` (a loop timer costs about 1.4 µs, a task about 60 µs)."""
        return asyncio.get_running_loop().call_later(seconds, callback)


SYSTEM = SystemClock()
_installed: Clock = SYSTEM


def current() -> Clock:
    """The installed clock."""
    return _installed


def install(clock: Clock) -> Clock:
    """Make ``clock`` the one elicitkit reads, process-wide; return the one it replaces."""
    global _installed
    previous, _installed = _installed, clock
    return previous


def now() -> float:
    """The installed clock's wall time (`Clock.now`)."""
    return _installed.now()


def monotonic() -> float:
    """The installed clock's monotonic time (`Clock.monotonic`)."""
    return _installed.monotonic()


def machine() -> float:
    """The installed clock's machine-wide time (`Clock.machine`)."""
    return _installed.machine()


async def sleep(seconds: float) -> None:
    """Wait ``seconds`` on the installed clock (`Clock.sleep`)."""
    await _installed.sleep(seconds)


def move_on_after(seconds: float) -> AbstractContextManager[anyio.CancelScope]:
    """A wait bounded by ``seconds`` on the installed clock (`Clock.move_on_after`)."""
    return _installed.move_on_after(seconds)


def call_later(seconds: float, callback: Callable[[], object]) -> Timer:
    """Run ``callback`` after ``seconds`` on the installed clock (`Clock.call_later`)."""
    return _installed.call_later(seconds, callback)
