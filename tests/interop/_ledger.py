"""The ledger of tests/servers/zero_config.py, and the listing's ticket, for the model's path.

zero_config.py (a server that configures nothing, ``on_unsupported="ask_model"``) writes one
row per effect to an SQLite file at ``$LEDGER``, whichever process served the call: counting
rows says how often a payment happened, however many server processes a client started.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Protocol


class _Shown(Protocol):
    @property
    def result(self) -> dict[str, Any] | None: ...


def count(ledger: Path, item: str, what: str) -> int:
    """How many rows of WHAT (``reserve``, ``pay``, ``round``) the calls for ITEM wrote."""
    with sqlite3.connect(ledger) as db:
        (found,) = db.execute(
            "SELECT count(*) FROM rows WHERE item = ? AND what = ?", (item, what)
        ).fetchone()
    return int(found)


def round_pids(ledger: Path, item: str) -> set[int]:
    """The processes that ran the tool for ITEM (each run writes a ``round`` row first)."""
    with sqlite3.connect(ledger) as db:
        rows = db.execute("SELECT pid FROM rows WHERE item = ? AND what = 'round'", (item,))
        return {int(pid) for (pid,) in rows}


def ticket(result: dict[str, Any]) -> str:
    """The ticket of an `ask_model` listing: a normal result, with it in structuredContent."""
    assert result["isError"] is False, result
    return str(result["structuredContent"]["ticket"])


def answers(listing: _Shown, **given: Any) -> dict[str, Any]:
    """`answer_form`'s arguments: the listing's ticket and the user's answers, by name."""
    assert listing.result is not None
    return {"ticket": ticket(listing.result), "answers": given}
