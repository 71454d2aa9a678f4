"""The clock elicitkit reads, and the fake one tests install: time moves only when told."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

import anyio
import pytest

import elicitkit._clock as clock
from elicitkit._replay.once import AtMostOnce
from elicitkit.stores import Claim, MemoryStore
from elicitkit.testing import FakeClock
from tests.python_child import RunPython

pytestmark = pytest.mark.anyio


def test_the_system_clock_is_installed_by_default_and_put_back() -> None:
    assert clock.current() is clock.SYSTEM
    with FakeClock(start=1_000.0) as fake:
        assert clock.current() is fake
        assert clock.now() == 1_000.0
        fake.jump(2.5)
        assert clock.now() == 1_002.5
        with FakeClock() as inner:
            assert clock.current() is inner
        assert clock.current() is fake
    assert clock.current() is clock.SYSTEM


def test_skew_sets_the_wall_clock_alone_back_or_forth() -> None:
    fake = FakeClock(start=50.0)
    started, booted = fake.monotonic(), fake.machine()
    fake.skew(-3_600)  # set back an hour, as NTP or a person may
    fake.jump(10)
    fake.skew(7)
    assert fake.now() == 50.0 - 3_600 + 10 + 7
    assert (fake.monotonic() - started, fake.machine() - booted) == (10.0, 10.0)


def test_the_machine_clock_is_one_for_every_process_of_the_machine(run_python: RunPython) -> None:
    """What another process reads lies between two readings of this one (the leases of a
    SQLite file several processes share are read on it)."""
    before = clock.machine()
    child = run_python("import elicitkit._clock as c; print(repr(c.machine()))")
    after = clock.machine()
    assert child.returncode == 0, child.stderr
    assert before <= float(child.stdout) <= after
    # And a fake clock starts from the real reading, so leases written before it keep theirs.
    assert before <= FakeClock().machine() <= clock.machine()


def test_wall_and_monotonic_time_move_together_and_only_forward() -> None:
    fake = FakeClock(start=50.0)
    started = fake.monotonic()
    fake.jump(0)
    fake.jump(10)
    assert (fake.now(), fake.monotonic() - started) == (60.0, 10.0)
    with pytest.raises(ValueError, match=r"^A FakeClock moves forward only, so it cannot move -1 "):
        fake.jump(-1)


def test_the_fake_clock_starts_at_the_real_time() -> None:
    before = clock.SYSTEM.now()
    assert before <= FakeClock().now() <= clock.SYSTEM.now()


async def test_sleepers_wake_in_order_when_time_reaches_them() -> None:
    woke: list[tuple[str, float]] = []
    with FakeClock(start=0.0) as fake:

        async def sleeper(name: str, seconds: float) -> None:
            await clock.sleep(seconds)
            woke.append((name, fake.now()))

        async with anyio.create_task_group() as group:
            group.start_soon(sleeper, "late", 3.0)
            group.start_soon(sleeper, "early", 1.0)
            await anyio.wait_all_tasks_blocked()
            fake.jump(0.5)
            await anyio.wait_all_tasks_blocked()
            assert woke == []
            await fake.advance(5.0)
    assert woke == [("early", 1.0), ("late", 3.0)]
    assert fake.now() == 5.5


async def test_advance_lets_a_loop_run_at_each_of_its_moments() -> None:
    """A renewal loop renews at 1, 2, 3...: each wake-up's task runs before the next."""
    ticks: list[float] = []
    with FakeClock(start=0.0) as fake:

        async def every_second() -> None:
            while True:
                await clock.sleep(1.0)
                ticks.append(fake.now())

        async with anyio.create_task_group() as group:
            group.start_soon(every_second)
            await fake.advance(3.5)
            group.cancel_scope.cancel()
    assert ticks == [1.0, 2.0, 3.0]


async def test_jump_wakes_only_the_waits_already_started() -> None:
    ticks: list[float] = []
    with FakeClock(start=0.0) as fake:

        async def every_second() -> None:
            while True:
                await clock.sleep(1.0)
                ticks.append(fake.now())

        async with anyio.create_task_group() as group:
            group.start_soon(every_second)
            await anyio.wait_all_tasks_blocked()
            fake.jump(3.5)
            await anyio.wait_all_tasks_blocked()
            group.cancel_scope.cancel()
    assert ticks == [3.5]  # woken once, at the time it was woken


async def test_a_bounded_wait_ends_on_the_fake_clock_and_a_cancelled_one_is_forgotten() -> None:
    with FakeClock() as fake:
        done = anyio.Event()
        outcome: list[bool] = []

        async def waiter() -> None:
            with clock.move_on_after(10) as scope:
                await anyio.Event().wait()
            outcome.append(scope.cancelled_caught)
            done.set()

        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await fake.advance(9.9)
            assert outcome == []
            await fake.advance(0.1)
            await done.wait()
        assert outcome == [True]
        with clock.move_on_after(1):
            pass  # left before its time: its timer must not fire later
        fake.jump(5)


async def test_a_timer_runs_its_callback_unless_cancelled() -> None:
    calls: list[str] = []
    with FakeClock() as fake:
        clock.call_later(2, lambda: calls.append("ran"))
        clock.call_later(1, lambda: calls.append("cancelled")).cancel()
        fake.jump(1.9)
        assert calls == []
        fake.jump(0.1)
    assert calls == ["ran"]


async def test_a_memory_store_lease_lapses_on_the_fake_clock() -> None:
    """The example of FakeClock's docstring."""
    store = MemoryStore()
    with FakeClock() as fake:
        await store.open("d", keep=60)
        assert await store.claim("d", "a", lease=10, keep=60, known=True) == Claim("claimed")
        fake.jump(9.9)
        assert await store.claim("d", "b", lease=10, keep=60, known=True) == Claim("busy")
        fake.jump(0.2)
        assert (await store.claim("d", "b", lease=10, keep=60, known=True)).status == (
            "interrupted"
        )


def test_the_pytest_fixture_installs_a_fake_clock(elicit_clock: FakeClock) -> None:
    assert clock.current() is elicit_clock


class TextOutcomes:
    """`Outcomes` for rounds that return text; none asks for more input."""

    def dump(self, result: str) -> tuple[str | None, Any]:
        return None, result

    def load(self, kind: str | None, data: Any) -> str:
        return str(data)

    def error_data(self, error: BaseException) -> Mapping[str, Any] | None:
        return None

    def raise_error(self, data: Mapping[str, Any]) -> NoReturn:
        raise RuntimeError(data["message"])

    def needs_input(self, result: str) -> bool:
        return False

    def refused(self, message: str) -> str:
        return f"refused: {message}"


async def test_a_round_longer_than_its_lease_renews_it_on_the_injected_clock() -> None:
    """Three leases long by the fake clock, in no real time: renewed, never lapsed."""
    store = MemoryStore()
    once = AtMostOnce(store, keep=600, lease=10)
    await store.open("d", keep=600)
    ended = anyio.Event()

    async def long_round() -> str:
        await ended.wait()
        return "done"

    with FakeClock() as fake:
        async with anyio.create_task_group() as group:

            async def run() -> None:
                assert await once.run("d", long_round, TextOutcomes(), known=True) == "done"

            group.start_soon(run)
            await fake.advance(35)  # renewed at 3.3, 6.7, 10, ...
            assert await store.claim("d", "racer", lease=10, keep=600, known=True) == Claim("busy")
            ended.set()
        assert await store.claim("d", "late", lease=10, keep=600, known=True) == Claim(
            "recorded", '{"r":"done"}'
        )


async def test_a_round_whose_renewal_stops_lapses_on_the_injected_clock() -> None:
    """The same round with its lease never renewed (a store that forgets renewals) lapses."""

    class Forgetful(MemoryStore):
        async def renew(self, dialogue: str, token: str, *, lease: float, keep: float) -> bool:
            return True  # says so, but keeps nothing

    store = Forgetful()
    once = AtMostOnce(store, keep=600, lease=10)
    await store.open("d", keep=600)
    ended = anyio.Event()

    async def long_round() -> str:
        await ended.wait()
        return "done"

    with FakeClock() as fake:
        async with anyio.create_task_group() as group:
            group.start_soon(once.run, "d", long_round, TextOutcomes())
            await fake.advance(10.1)
            claim = await store.claim("d", "racer", lease=10, keep=600, known=True)
            assert claim == Claim("interrupted")
            ended.set()
