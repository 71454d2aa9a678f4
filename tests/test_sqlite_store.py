"""`SqliteStore` beyond the shared contract (tests/test_stores.py): its file and its faults.

Real SQLite files in a temporary folder: two stores on one file stand for two processes
(each holds its own connection, so SQLite's file locks are what keeps them apart; the
multi-process end-to-end tests are in tests/test_records_default.py). Faults fail closed: a
full store refuses new calls and keeps the old; a deleted, locked or corrupted file makes the
round refused, never run twice.
"""

from __future__ import annotations

import logging
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.lowlevel
import pytest

from elicitkit._clock import BOOT
from elicitkit._replay import sqlite_file, sqlite_store
from elicitkit._replay.once import STORE_FULL, STORE_UNAVAILABLE, AtMostOnce
from elicitkit.stores import Claim, SqliteStore, StoreFull
from elicitkit.testing import FakeClock

pytestmark = pytest.mark.anyio

KEEP = 60.0


@pytest.fixture(autouse=True)
def fake_clock() -> Iterator[FakeClock]:
    with FakeClock() as clock:
        yield clock


class Refusals:
    """Outcomes for `AtMostOnce` that are plain strings: what a round was told."""

    def dump(self, result: str) -> tuple[str | None, object]:
        return None, result

    def load(self, kind: str | None, data: object) -> str:
        return str(data)

    def error_data(self, error: BaseException) -> None:
        return None

    def raise_error(self, data: object) -> None:
        raise AssertionError(data)

    def needs_input(self, result: str) -> bool:
        return result == "asks"

    def refused(self, message: str) -> str:
        return message


async def test_two_stores_on_one_file_see_one_claim(tmp_path: Path) -> None:
    """Two processes' connections: the second sees the first's lease, then its record."""
    path = tmp_path / "records.sqlite3"
    first, second = SqliteStore(path), SqliteStore(path)
    await first.open("d", keep=KEEP)
    assert await first.claim("d", "a", lease=60, keep=KEEP, known=True) == Claim("claimed")
    assert await second.claim("d", "b", lease=60, keep=KEEP, known=True) == Claim("busy")
    await first.record("d", "done", keep=KEEP)
    assert await second.claim("d", "b", lease=60, keep=KEEP, known=True) == Claim(
        "recorded", "done"
    )
    # And many claims at once, from both, on threads of their own: exactly one wins.
    await first.open("race", keep=KEEP)
    won: list[str] = []

    async def claim(store: SqliteStore, token: str) -> None:
        found = await store.claim("race", token, lease=60, keep=KEEP, known=True)
        if found.status == "claimed":
            won.append(token)

    async with anyio.create_task_group() as group:
        for number in range(20):
            group.start_soon(claim, (first, second)[number % 2], f"t{number}")
    assert len(won) == 1


async def test_a_full_store_refuses_new_calls_and_keeps_every_old_one(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3", max_entries=3)
    for dialogue in ("d1", "d2", "d3"):
        await store.open(dialogue, keep=KEEP)
    with pytest.raises(StoreFull, match=r"is full \(3 entries.*Raise max_entries or max_bytes"):
        await store.open("d4", keep=KEEP)
    with pytest.raises(StoreFull):
        await store.claim("d5", "x", lease=60, keep=KEEP, known=False)
    with pytest.raises(StoreFull):
        await store.record("d6", "done", keep=KEEP)  # a record of an unknown call is new too
    # The unfinished ones are all still there, and go on to completion.
    assert await store.claim("d1", "a", lease=60, keep=KEEP, known=True) == Claim("claimed")
    await store.record("d1", "x" * 30_000, keep=KEEP)  # an update: always taken
    assert await store.claim("d1", "b", lease=60, keep=KEEP, known=True) == Claim(
        "recorded", "x" * 30_000
    )
    assert (await store.totals())[0] == 3
    # Through AtMostOnce, the round that would open a fourth is told, in words for a client.
    once = AtMostOnce(store, keep=KEEP)
    told = await once.begin(_asks, lambda: "d6", Refusals())
    assert told == STORE_FULL


async def test_a_full_store_takes_new_calls_once_old_ones_expire(
    tmp_path: Path, fake_clock: FakeClock
) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3", max_bytes=64 * 1024)
    await store.record("big", "x" * 64 * 1024, keep=1.0)
    with pytest.raises(StoreFull):
        await store.open("next", keep=KEEP)
    fake_clock.jump(1.5)
    await store.open("next", keep=KEEP)
    caller_row = 2 * len("next") + 20  # its anonymous caller's row, counted while it is open
    assert (await store.totals()) == (1, len("next") + 100 + caller_row)


async def test_a_file_deleted_under_a_running_server_fails_closed(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite3"
    store = SqliteStore(path)
    await store.open("before", keep=KEEP)
    for name in ("records.sqlite3", "records.sqlite3-wal", "records.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    # A fresh file: the dialogue recorded in the old one is refused, never run as new.
    assert await store.claim("before", "a", lease=60, keep=KEEP, known=True) == Claim("forgotten")
    assert path.exists()
    await store.open("after", keep=KEEP)
    assert await SqliteStore(path).claim("after", "a", lease=60, keep=KEEP, known=True) == Claim(
        "claimed"
    )


async def test_a_locked_file_refuses_the_round_and_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite3"
    store = SqliteStore(path, busy_timeout=0.05)
    await store.open("d", keep=KEEP)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    runs: list[str] = []

    async def round_() -> str:
        runs.append("ran")
        return "done"

    once = AtMostOnce(store, keep=KEEP)
    try:
        told = await once.run("d", round_, Refusals(), known=True)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert told == STORE_UNAVAILABLE
    assert runs == []
    assert await once.run("d", round_, Refusals(), known=True) == "done"  # released: it runs


async def test_a_corrupted_file_refuses_the_round_and_says_why_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "records.sqlite3"
    path.write_bytes(b"not a database, " * 1024)
    runs: list[str] = []

    async def round_() -> str:
        runs.append("ran")
        return "done"

    once = AtMostOnce(SqliteStore(path), keep=KEEP)
    with caplog.at_level(logging.ERROR, logger="elicitkit"):
        told = await once.run("d", round_, Refusals(), known=True)
    assert told == STORE_UNAVAILABLE
    assert runs == []
    assert "file is not a database" in caplog.text


async def test_a_file_of_another_schema_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite3"
    with sqlite3.connect(path) as other:
        other.execute("PRAGMA user_version = 99")
    with pytest.raises(sqlite3.DatabaseError, match=r"schema 99.*Point the store at another file"):
        await SqliteStore(path).open("d", keep=KEEP)


def test_a_sqlite_store_needs_room(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"max_entries of at least 1"):
        SqliteStore(tmp_path / "x", max_entries=0)
    with pytest.raises(ValueError, match="max_bytes of at least 65536"):
        SqliteStore(tmp_path / "x", max_bytes=1000)


async def _asks() -> str:
    return "asks"


async def test_a_machine_rebooted_mid_call_refuses_the_calls_in_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A power cut may lose the last commits (synchronous=NORMAL): after the reboot, an open
    or leased entry is not trusted, since the write that closed it may be what was lost."""
    path = tmp_path / "records.sqlite3"
    before = SqliteStore(path)
    for dialogue in ("open", "leased", "safe", "done"):
        await before.open(dialogue, keep=KEEP)
    for dialogue in ("leased", "safe", "done"):
        assert await before.claim(dialogue, "a", lease=60, keep=KEEP, known=True) == Claim(
            "claimed"
        )
    assert await before.hold("safe", "a", retry_safe=True, lease=60, keep=KEEP)
    await before.record("done", "result", keep=KEEP)
    before.close()
    monkeypatch.setattr(sqlite_store, "STAMP", "another-boot")  # what the store compares
    after = SqliteStore(path)
    claims = {
        dialogue: await after.claim(dialogue, "b", lease=60, keep=KEEP, known=True)
        for dialogue in ("open", "leased", "safe", "done")
    }
    assert claims == {
        "open": Claim("forgotten"),
        "leased": Claim("interrupted"),  # its deadline is a minute away: no matter
        "safe": Claim("interrupted"),
        "done": Claim("recorded", "result"),
    }
    # New calls after the reboot run as ever.
    await after.open("new", keep=KEEP)
    assert await after.claim("new", "b", lease=60, keep=KEEP, known=True) == Claim("claimed")


async def test_leases_follow_the_time_since_boot_not_a_wall_clock_someone_sets(
    tmp_path: Path, fake_clock: FakeClock
) -> None:
    """The wall clock set forward an hour, then back two (NTP, a person, a VM resumed): a
    live round's lease stays live and a dead round's lapses on time. Judged on the wall
    clock, as before, the first read as interrupted and the second stayed busy all hour."""
    path = tmp_path / "records.sqlite3"
    DAY = 86_400.0  # noqa: N806  (expiry follows the wall clock: kept past its moves)
    one, two = SqliteStore(path), SqliteStore(path)
    for dialogue in ("live", "dead"):
        await one.open(dialogue, keep=DAY)
        assert await one.claim(dialogue, "a", lease=10, keep=DAY, known=True) == Claim("claimed")
    fake_clock.skew(3_600)
    assert await two.claim("live", "b", lease=10, keep=DAY, known=True) == Claim("busy")
    fake_clock.skew(-7_200)
    fake_clock.jump(6)
    assert await one.renew("live", "a", lease=10, keep=DAY)
    fake_clock.jump(5)  # dead's lease (10 s) lapsed; live's was renewed to 16 s
    assert await two.claim("dead", "b", lease=10, keep=DAY, known=True) == Claim("interrupted")
    assert await two.claim("live", "b", lease=10, keep=DAY, known=True) == Claim("busy")


async def test_expiry_follows_the_wall_clock_which_outlives_a_reboot(
    tmp_path: Path, fake_clock: FakeClock
) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3")
    await store.open("d", keep=KEEP)
    await store.record("d", "result", keep=KEEP)
    fake_clock.skew(KEEP - 1)
    assert await store.claim("d", "b", lease=10, keep=KEEP, known=True) == Claim(
        "recorded", "result"
    )
    fake_clock.skew(2)
    assert await store.claim("d", "b", lease=10, keep=KEEP, known=True) == Claim("forgotten")


@pytest.mark.skipif(not BOOT, reason="no boot id: leases stay on the wall clock")
async def test_a_lease_an_earlier_version_wrote_on_the_wall_clock_has_lapsed(
    tmp_path: Path,
) -> None:
    """Up to this version a lease's deadline was wall-clock seconds beside the bare boot id:
    read as time since boot, it would stay alive for decades. It is judged as one of
    another boot instead (the round interrupted), and the new call beside it runs."""
    path = tmp_path / "records.sqlite3"
    store = SqliteStore(path)
    await store.open("new", keep=KEEP)
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO entries VALUES ('old', 'lease', 'a', ?, ?, ?, 100)",
            (time.time() + 60, BOOT, time.time() + KEEP),
        )
    assert await store.claim("old", "b", lease=60, keep=KEEP, known=True) == Claim("interrupted")
    assert await store.claim("new", "b", lease=60, keep=KEEP, known=True) == Claim("claimed")


async def test_the_default_durability_follows_the_boot_id(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3")
    await store.open("d", keep=KEEP)
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    expected = "NORMAL" if sqlite_file.BOOT else "FULL"
    assert store._file.synchronous == expected  # pyright: ignore[reportPrivateUsage]


async def test_a_file_another_process_holds_is_waited_for_off_the_event_loop(
    tmp_path: Path,
) -> None:
    """The loop goes on while the operation waits for the lock: here, the loop itself is
    what lets the other process go (were the wait on the loop, this would hang)."""
    path = tmp_path / "records.sqlite3"
    store = SqliteStore(path, busy_timeout=30)
    await store.open("warm", keep=KEEP)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    opened = anyio.Event()

    async def open_it() -> None:
        await store.open("d", keep=KEEP)
        opened.set()

    with anyio.fail_after(20):  # a hang guard only
        async with anyio.create_task_group() as group:
            group.start_soon(open_it)
            for _ in range(5):
                await anyio.lowlevel.checkpoint()
            assert not opened.is_set()
            holder.execute("ROLLBACK")  # the other process lets go, from the loop
            await opened.wait()
    holder.close()
    assert await store.claim("d", "a", lease=60, keep=KEEP, known=True) == Claim("claimed")


async def test_a_new_file_and_its_wal_are_for_their_owner_only(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "records.sqlite3")
    await store.open("d", keep=KEEP)
    for name in ("records.sqlite3", "records.sqlite3-wal", "records.sqlite3-shm"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
