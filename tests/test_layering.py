"""The package's shape: no import cycles, and every import points down the layers.

The folder tree is the architecture: ``errors``/``protocol`` at the bottom, then the
compiler (types -> forms) and the replay machinery (sealed state, stores), then the runtime
(``ask()`` and friends), then the SDK integrations, then the public facades. The command
line and the testing kit sit on top: no core module imports them. Every import counts,
including those inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "elicitkit"

# Layer of each module, by its dotted name's prefix (the longest prefix wins).
LAYERS = {
    "elicitkit.errors": "base",
    "elicitkit.protocol": "base",
    "elicitkit._compat": "base",
    "elicitkit._lru": "base",
    "elicitkit._clock": "base",
    "elicitkit._compiler": "compiler",
    "elicitkit._replay": "replay",
    "elicitkit._runtime": "runtime",
    "elicitkit.integrations": "integrations",
    "elicitkit._client": "client",
    "elicitkit": "facade",  # the root, elicitkit.replay, elicitkit.stores, elicitkit.url, __main__
    "elicitkit.cli": "cli",
    "elicitkit.testing": "testing",
}
CORE = {"base", "compiler", "replay", "runtime", "integrations"}
# What each layer may import (besides itself).
MAY_IMPORT = {
    "base": set(),
    "compiler": {"base"},
    "replay": {"base"},
    "runtime": {"base", "compiler", "replay"},
    "integrations": {"base", "compiler", "replay", "runtime"},
    "client": {"base"},
    "facade": CORE | {"cli"},  # elicitkit.__main__ starts the command line
    "cli": CORE | {"client", "facade"},
    "testing": CORE | {"client", "facade"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> str:
    best = max(
        (prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")),
        key=len,
    )
    return LAYERS[best]


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every elicitkit module ``path`` imports (``from a import b`` counts b if it is a module)."""
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name in modules}


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: imports_of(path, set(MODULES)) - {name} for name, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    assert {name: layer(name) for name in MODULES}  # layer() raises for a module outside


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    own = layer(module)
    upward = sorted(
        target
        for target in GRAPH[module]
        if layer(target) != own and layer(target) not in MAY_IMPORT[own]
    )
    assert upward == [], f"{module} ({own}) imports {upward} ({[layer(t) for t in upward]})"


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the import cycles, as groups of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def without_parents(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ importing its own submodules is how a package re-exports; Python
    # loads the package first, so that edge alone makes no cycle. A submodule importing its
    # package (``from elicitkit import ask`` inside elicitkit) still counts.
    return {
        name: {target for target in targets if not target.startswith(name + ".")}
        for name, targets in graph.items()
    }


def test_no_import_cycles() -> None:
    assert strongly_connected(without_parents(GRAPH)) == []


def test_the_detector_finds_a_cycle_and_an_upward_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    assert layer("elicitkit._compiler.render") == "compiler"
    assert "runtime" not in MAY_IMPORT["compiler"]
