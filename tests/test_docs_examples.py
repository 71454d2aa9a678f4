"""Every ```py block in the README and docs/ runs, as a reader would copy it.

A ```py block may be followed by a ```text title="Output" block: then what the block prints
must be exactly that text. A block may be one line ``--8<-- "PATH"`` instead, which
pymdownx.snippets replaces with the file (PATH from the repository root): then that file
runs, as the page shows it. A block that prints must show its output, so no printed claim
in the docs goes unchecked. Blocks are counted from their fence lines too, so a block the
pattern fails to pick up (an indented one, a fence with a typo in its closing) fails a test
instead of silently dropping out.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# A ```py block (a title may follow), then optionally (after blank lines only) its output.
BLOCK = re.compile(
    r'^```py(?: title="[^"\n]*")?\n(?P<source>.*?)^```\n'
    r'(?:\s*^```text title="Output"\n(?P<output>.*?)^```$)?',
    re.MULTILINE | re.DOTALL,
)
# Any line that opens a Python-to-run block, at any indent: the count the pattern must reach.
PY_FENCE = re.compile(r'^\s*```py(?:\s+title="[^"\n]*")?\s*$', re.MULTILINE)
# A block that is one included file, as pymdownx.snippets includes it (base path: the root).
INCLUDED = re.compile(r'\A--8<-- "(?P<path>[^"\n]+)"\n\Z')
# A block that starts a server over stdio, as a reader's client does, leaves the quick loop.
STARTS_A_SERVER = re.compile(r"\bStdioServerParameters\b")
# The files written to be shown whole on a page, each included by exactly one block.
SHOWN = [*sorted((ROOT / "examples" / "gallery").glob("*.py")), ROOT / "examples" / "home.py"]


@dataclass(frozen=True)
class Example:
    source: str
    output: str | None


def _source(block: str) -> str:
    """The Python a block shows: its text, or the file it includes."""
    included = INCLUDED.match(block)
    return (ROOT / included.group("path")).read_text() if included else block


def _examples(path: Path) -> list[Example]:
    return [
        Example(_source(match.group("source")), match.group("output"))
        for match in BLOCK.finditer(path.read_text())
    ]


def _included(path: Path) -> list[str]:
    blocks = (INCLUDED.match(match.group("source")) for match in BLOCK.finditer(path.read_text()))
    return [included.group("path") for included in blocks if included]


def _params() -> list[object]:
    return [
        pytest.param(
            example,
            id=f"{path.relative_to(ROOT)}#{number}",
            marks=[pytest.mark.processes] if STARTS_A_SERVER.search(example.source) else [],
        )
        for path in DOCS
        for number, example in enumerate(_examples(path), start=1)
    ]


@pytest.mark.parametrize("path", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_py_fence_is_collected(path: Path) -> None:
    assert len(_examples(path)) == len(PY_FENCE.findall(path.read_text()))


def test_every_file_written_for_a_page_is_a_block_that_runs() -> None:
    # The gallery's forms and the home page's example are files (the pictures' script serves
    # them to a real client too): each is included by a ```py block, so each runs here.
    included = sorted(name for path in DOCS for name in _included(path))
    assert included == sorted(str(path.relative_to(ROOT)) for path in SHOWN)


def test_there_are_examples() -> None:
    # A floor, not a tally: other pages add blocks; losing many at once means the glob broke.
    assert len(_params()) >= 14


@pytest.mark.parametrize("example", _params())
def test_example_runs(example: Example, tmp_path: Path) -> None:
    # Run as a module file, as a reader would: dataclasses and annotations need a real module.
    script = tmp_path / "example.py"
    script.write_text(example.source)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path(str(script), run_name="__main__")
    if example.output is None:
        assert printed.getvalue() == "", "this block prints: show its output in a text block"
    else:
        assert printed.getvalue() == example.output
