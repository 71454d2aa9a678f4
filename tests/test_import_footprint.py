"""What ``import elicitkit`` loads: not msgspec, which only Struct authors need.

Each check runs in a fresh interpreter, since this test process has long since imported
msgspec through other tests. A Struct form still works when msgspec is imported after
elicitkit: the compiler looks msgspec up when it meets a type, not when it is imported.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).parents[1]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    # cwd=ROOT: `python -c` puts the working directory first on sys.path, so the elicitkit
    # under test is imported, whatever is installed.
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_import_elicitkit_does_not_import_msgspec() -> None:
    done = run_python("import elicitkit, sys; assert 'msgspec' not in sys.modules")
    assert done.returncode == 0, done.stderr


def test_a_struct_declared_after_import_elicitkit_is_a_form() -> None:
    done = run_python(
        """
        from typing import Annotated

        import elicitkit
        import msgspec

        class Rating(msgspec.Struct):
            stars: Annotated[int, msgspec.Meta(ge=1, le=5, title="Stars")]
            note: str = ""

        schema = elicitkit.requested_schema(Rating)
        assert schema["properties"]["stars"] == {
            "type": "integer", "title": "Stars", "minimum": 1, "maximum": 5
        }, schema
        assert schema["required"] == ["stars"], schema
        assert elicitkit.parse_content(Rating, {"stars": 4}) == Rating(stars=4, note="")
        """
    )
    assert done.returncode == 0, done.stderr
