"""Every install hint elicitkit prints works today: it names the package an extra adds.

elicitkit is not on PyPI yet, so ``pip install "elicitkit[cli]"`` finds nothing; a hint
names the extra's own requirement, exactly as the installed metadata declares it.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys

import fastmcp
import pytest
from mcp.server.mcpserver import MCPServer

from elicitkit import install
from elicitkit.cli.main import NO_TERMINAL_FORMS


def _requirement(extra: str) -> tuple[str, set[str]]:
    """The one requirement ``extra`` adds: its name, and its version bounds."""
    declared = importlib.metadata.requires("elicitkit") or []
    (found,) = [line for line in declared if line.endswith(f"; extra == '{extra}'")]
    name, bounds = re.fullmatch(r"([A-Za-z0-9_.-]+)(\S*); .*", found).groups()  # type: ignore[union-attr]
    return name, set(bounds.split(","))


def _hinted(message: str) -> tuple[str, set[str]]:
    """The name and bounds of the one ``pip install "..."`` of a PyPI package in a message."""
    (spec,) = re.findall(r'pip install "([A-Za-z][^"\[]*)"', message)  # not ".[cli]"
    name, bounds = re.fullmatch(r"([A-Za-z0-9_-]+)(\S*)", spec).groups()  # type: ignore[union-attr]
    return name, set(bounds.split(","))


def _no_terminal_forms() -> str:
    return NO_TERMINAL_FORMS


def _old_fastmcp(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(fastmcp, "__version__", "4.1.6")
    with pytest.raises(TypeError) as caught:
        install(fastmcp.FastMCP("old"))
    return str(caught.value)


def _redis_missing(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)  # the import fails, as uninstalled
    monkeypatch.setenv("ELICITKIT_STORE", "redis://127.0.0.1:1/0")
    with pytest.raises(TypeError) as caught:
        install(MCPServer("no-redis"))
    return str(caught.value)


@pytest.mark.parametrize(
    ("extra", "message_of"),
    [
        pytest.param("cli", lambda _: _no_terminal_forms(), id="cli"),
        pytest.param("fastmcp", _old_fastmcp, id="fastmcp"),
        pytest.param("redis", _redis_missing, id="redis"),
    ],
)
def test_a_hint_names_what_the_extra_installs(
    monkeypatch: pytest.MonkeyPatch, extra: str, message_of: object
) -> None:
    message = message_of(monkeypatch)  # type: ignore[operator]
    assert "elicitkit[" not in message
    assert _hinted(message) == _requirement(extra)
