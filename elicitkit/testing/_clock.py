"""A clock that moves only when the test says: leases, expiry and deadlines without sleeping."""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Generator
from contextlib import contextmanager
from types import TracebackType

import anyio
from typing_extensions import Self

import elicitkit._clock as clock


class _Timer:
    """One wait on the fake clock: a sleeper's event, a scope's cancel, or a callback."""

    __slots__ = ("action", "cancelled", "deadline")

    def __init__(self, deadline: float, action: Callable[[], object]) -> None:
        self.deadline = deadline
        self.action = action
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock for tests: time stands still until `advance` (or `jump`) moves it.

    Installed (``with FakeClock() as clock:``), it is the clock elicitkit reads everywhere:
    the stamps and expiry of states and tickets, the memory stores' leases and lifetimes,
    the task engine's renewals and deadlines, URL routes, and the pauses of its polls and
    lease renewals. A test then moves time by exactly what it means to check, and nothing
    depends on how fast the machine is::

        from elicitkit.testing import FakeClock

        async def test_a_lapsed_lease_is_interrupted():
            store = MemoryStore()
            with FakeClock() as clock:
                await store.open("d", keep=60)
                await store.claim("d", "a", lease=10, keep=60, known=True)
                clock.jump(11)
                claim = await store.claim("d", "b", lease=10, keep=60, known=True)
                assert claim.status == "interrupted"

    It does not move the event loop's clock: timeouts that bound real I/O (a store or a
    client that does not answer) stay real, and so do leases a Redis server judges by its
    own ``TIME``. Time starts at the real time of its creation, so states made before it
    was installed stay valid.
    """

    def __init__(self, *, start: float | None = None) -> None:
        """A clock at ``start`` (seconds since the epoch; by default, now)."""
        self._wall = clock.SYSTEM.now() if start is None else start
        self._monotonic = clock.SYSTEM.monotonic()
        # The machine clock moves with the monotonic one, from the real reading, so that
        # leases a SQLite file holds from before the clock was installed keep their meaning.
        self._machine_offset = clock.SYSTEM.machine() - self._monotonic
        self._timers: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()
        self._previous: clock.Clock | None = None

    def __enter__(self) -> Self:
        """Install this clock (process-wide) until the block ends."""
        self._previous = clock.install(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Put back the clock that was installed before."""
        clock.install(self._previous or clock.SYSTEM)

    def now(self) -> float:
        """Wall-clock time, in seconds since the epoch."""
        return self._wall

    def monotonic(self) -> float:
        """Monotonic time, in seconds (it moves with `now`, but not with `skew`)."""
        return self._monotonic

    def machine(self) -> float:
        """The machine's time since boot, in seconds (it moves with `monotonic`)."""
        return self._monotonic + self._machine_offset

    async def sleep(self, seconds: float) -> None:
        """Wait until the clock has moved ``seconds`` on (a checkpoint if not positive)."""
        if seconds <= 0:
            await anyio.lowlevel.checkpoint()
            return
        woken = anyio.Event()
        timer = self._schedule(seconds, woken.set)
        try:
            await woken.wait()
        finally:
            timer.cancel()

    @contextmanager
    def move_on_after(self, seconds: float) -> Generator[anyio.CancelScope, None, None]:
        """A cancel scope that the clock cancels once it has moved ``seconds`` on."""
        with anyio.CancelScope() as scope:
            timer = self._schedule(seconds, scope.cancel)
            try:
                yield scope
            finally:
                timer.cancel()

    def call_later(self, seconds: float, callback: Callable[[], object]) -> _Timer:
        """Run ``callback`` when the clock has moved ``seconds`` on (from `jump`/`advance`)."""
        return self._schedule(seconds, callback)

    def jump(self, seconds: float) -> None:
        """Move time ``seconds`` on at once, waking every wait that ends meanwhile.

        The woken tasks run when the test next awaits; waits they start then begin at the
        new time. To let them run between the waits that end, `advance` instead.
        """
        self._move(self._monotonic + self._check(seconds), settle=False)

    def skew(self, seconds: float) -> None:
        """Set the wall clock ``seconds`` on, or back when negative, as NTP or a person does.

        Only `now` moves: no wait ends, and what runs on the monotonic and machine clocks
        (leases, intervals, deadlines) does not notice. Stamps and expiries read `now`.
        """
        self._wall += seconds

    async def advance(self, seconds: float) -> None:
        """Move time ``seconds`` on, one wait at a time, letting the woken tasks run.

        Each wait that ends wakes its task, and the clock stands still until every task is
        blocked again (`anyio.wait_all_tasks_blocked`), so a loop that renews a lease every
        few seconds renews it at each of those moments, as it would in real time.
        """
        target = self._monotonic + self._check(seconds)
        await anyio.wait_all_tasks_blocked()
        while self._due(target):
            self._move(self._timers[0][0], settle=True)
            await anyio.wait_all_tasks_blocked()
        self._move(target, settle=False)
        await anyio.wait_all_tasks_blocked()

    def _schedule(self, seconds: float, action: Callable[[], object]) -> _Timer:
        timer = _Timer(self._monotonic + max(seconds, 0.0), action)
        heapq.heappush(self._timers, (timer.deadline, next(self._order), timer))
        return timer

    def _due(self, target: float) -> bool:
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return bool(self._timers) and self._timers[0][0] <= target

    def _move(self, target: float, *, settle: bool) -> None:
        # settle: fire the first due wait only (advance lets its task run before the next).
        while self._due(target):
            deadline, _, timer = heapq.heappop(self._timers)
            self._set(deadline)
            timer.cancelled = True
            timer.action()
            if settle:
                return
        self._set(target)

    def _set(self, monotonic: float) -> None:
        if monotonic > self._monotonic:
            self._wall += monotonic - self._monotonic
            self._monotonic = monotonic

    @staticmethod
    def _check(seconds: float) -> float:
        if seconds < 0:
            raise ValueError(
                f"A FakeClock moves forward only, so it cannot move {seconds:g} seconds. "
                "Pass a number of seconds of 0 or more."
            )
        return seconds
