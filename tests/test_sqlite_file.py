"""The SQLite file every record kind of a server shares: this process never breaks its locks.

A store, a task store and a URL router each hold a connection to one file, and other
processes hold theirs. SQLite keeps its write-ahead log (``-wal``) while any connection is
open, which it learns from the POSIX locks on the file; a process that opens and closes a
descriptor of the file outside SQLite drops every lock it holds there. Then another process
whose last connection closes deletes the log under this one's connections, and the next
write here finds the file malformed. That happened in the suite (two workers, the interop
servers sharing a worker's records): `SqliteFile` only opens the file itself to create it.
"""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from elicitkit._replay.sqlite_file import SqliteFile
from tests.python_child import RunPython

pytestmark = pytest.mark.anyio


def _log_kept_after_another_process_came_and_went(path: Path, run_python: RunPython) -> bool:
    opened = f"import sqlite3\ndb = sqlite3.connect({str(path)!r})\n"
    done = run_python(
        opened + 'db.execute("SELECT count(*) FROM entries").fetchall()\n'  # noqa: S608  (no input: our own child's code)
        # Its last connection: SQLite deletes the log if no other process holds the file.
        "db.close()\n"
    )
    assert done.returncode == 0, done.stderr
    return Path(f"{path}-wal").exists()


def _write(db: sqlite3.Connection, key: str) -> None:
    db.execute(
        "INSERT INTO entries VALUES (?, 'open', '', 0, '', 1e12, 1)",
        (key,),
    )


async def test_a_second_record_kinds_first_connection_keeps_the_log_of_the_first(
    tmp_path: Path, run_python: RunPython
) -> None:
    path = tmp_path / "records.sqlite3"
    records = SqliteFile(path, busy_timeout=5.0, synchronous=None)
    await records.run(lambda db: _write(db, "before"))
    # This process's connection is open: the log stays.
    assert _log_kept_after_another_process_came_and_went(path, run_python)
    # The tasks' connection to the same file, opened now, in this process.
    tasks = SqliteFile(path, busy_timeout=5.0, synchronous=None)
    assert await tasks.read("SELECT count(*) FROM entries") == [(1,)]
    assert _log_kept_after_another_process_came_and_went(path, run_python), (
        "the second connection dropped this process's locks on the file"
    )
    await records.run(lambda db: _write(db, "after"))
    assert await tasks.read("PRAGMA integrity_check") == [("ok",)]
    assert await records.read("SELECT id FROM entries ORDER BY id") == [("after",), ("before",)]


async def test_a_new_file_is_made_for_its_owner_only_and_an_old_one_keeps_its_mode(
    tmp_path: Path,
) -> None:
    new = tmp_path / "new.sqlite3"
    await SqliteFile(new, busy_timeout=5.0, synchronous=None).read("SELECT 1")
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    old = tmp_path / "old.sqlite3"
    sqlite3.connect(old).close()
    old.chmod(0o640)
    await SqliteFile(old, busy_timeout=5.0, synchronous=None).read("SELECT 1")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
