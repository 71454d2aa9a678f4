"""Fixtures of the interop suite: real clients, their artifacts, and the facts they show.

Every test here carries the `interop` marker; run them alone with `pytest -m interop`, or
leave them out with `pytest -m "not interop"`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop._facts import DOCUMENTED, Observe, documented
from tests.interop._tools import ARTIFACTS

_observed: dict[str, dict[str, dict[str, Any]]] = {}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.interop)


@pytest.fixture(scope="session")
def artifacts() -> Iterator[Path]:
    """The folder for screenshots, terminal captures and observations.json (emptied first)."""
    if ARTIFACTS.exists():
        shutil.rmtree(ARTIFACTS)
    ARTIFACTS.mkdir(parents=True)
    yield ARTIFACTS
    (ARTIFACTS / "observations.json").write_text(
        json.dumps(_observed, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


@pytest.fixture(scope="module")
def flavour(request: pytest.FixtureRequest) -> str:
    """Which interop server the clients run: ``mcp`` or ``fastmcp`` (see server.py).

    Every test that starts a server chooses, with `both_flavours` or `mcp_only` (_tools.py).
    """
    if not hasattr(request, "param"):
        raise RuntimeError(
            f"A test in {request.node.name} does not say which server flavour it runs on: "
            "mark it @both_flavours or @mcp_only (tests/interop/_tools.py)."
        )
    chosen: str = request.param
    return chosen


@pytest.fixture(scope="session")
def observe(artifacts: Path) -> Observe:
    """Record a fact a client showed, and check it against docs/clients.json."""
    facts = documented()

    def check(client: str, era: str, fact: str, value: Any) -> None:
        _observed.setdefault(client, {}).setdefault(era, {})[fact] = value
        expected = facts["clients"][client]["eras"][era].get(fact, "(not documented)")
        assert value == expected, (
            f"{client} on {era}: '{fact}' was {value!r}, but {DOCUMENTED.name} says "
            f"{expected!r}. Update docs/clients.json, then run python -m tests.interop._facts "
            "to regenerate docs/clients.md."
        )

    del artifacts
    return check
