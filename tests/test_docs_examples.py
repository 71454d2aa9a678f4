"""Every ```py block in the README and docs/ runs, as a reader would copy it."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```py\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks() -> list[object]:
    blocks = []
    for path in DOCS:
        for number, match in enumerate(BLOCK.finditer(path.read_text()), start=1):
            blocks.append(pytest.param(match.group(1), id=f"{path.name}#{number}"))
    return blocks


def test_there_are_examples() -> None:
    assert len(_blocks()) >= 2


@pytest.mark.parametrize("source", _blocks())
def test_example_runs(source: str, tmp_path: Path) -> None:
    # Run as a module file, as a reader would: dataclasses and annotations need a real module.
    script = tmp_path / "example.py"
    script.write_text(source)
    runpy.run_path(str(script), run_name="__main__")
