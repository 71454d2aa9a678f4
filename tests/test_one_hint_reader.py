"""Only `elicitkit._compiler.type_hints` reads type hints (CONVENTIONS item 2).

``get_type_hints``, ``get_origin`` and ``get_args`` (from ``typing`` or
``typing_extensions``, called or imported) appear in no other module, so every difference
between Python versions, and every way of writing an annotation, is met in one place.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "elicitkit"
HOME = PACKAGE / "_compiler" / "type_hints.py"
READERS = {"get_type_hints", "get_origin", "get_args"}
# Modules allowed a reader, and why.
EXCEPTIONS = {
    # PROTOCOL_VERSIONS is the arguments of the module's own ProtocolVersion Literal; the
    # base layer cannot import the compiler, and a second list would drift from the Literal.
    PACKAGE / "protocol.py": {"get_args"},
}


def readers_used(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Name) and node.id in READERS:
            found.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in READERS:
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            found.update(alias.name for alias in node.names if alias.name in READERS)
    return found


@pytest.mark.parametrize(
    "path",
    [path for path in sorted(PACKAGE.rglob("*.py")) if path != HOME],
    ids=lambda path: str(path.relative_to(PACKAGE)),
)
def test_no_module_but_type_hints_reads_hints(path: Path) -> None:
    assert readers_used(path) <= EXCEPTIONS.get(path, set())


def test_the_scan_sees_the_readers_in_type_hints() -> None:
    assert readers_used(HOME) == READERS
