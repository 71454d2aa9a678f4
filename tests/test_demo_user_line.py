"""The demo's "User:" line says who answers the forms, and for a script why no person can."""

from __future__ import annotations

import io
import sys

import pytest

from elicitkit.cli.demo import _who_answers  # pyright: ignore[reportPrivateUsage]


class _Stream(io.StringIO):
    def __init__(self, *, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.mark.parametrize(
    ("interactive", "stdin", "stdout", "said"),
    [
        pytest.param(True, True, True, "you, at this terminal", id="person"),
        pytest.param(
            False,
            False,
            True,
            "a script (stdin is not a terminal, so nobody can type answers here)",
            id="stdin-not-a-terminal",
        ),
        pytest.param(
            False,
            True,
            False,
            "a script (stdout is not a terminal, so the forms cannot be shown here)",
            id="stdout-not-a-terminal",
        ),
        pytest.param(False, True, True, "a script (--scripted)", id="scripted"),
    ],
)
def test_the_user_line_says_why(
    monkeypatch: pytest.MonkeyPatch, interactive: bool, stdin: bool, stdout: bool, said: str
) -> None:
    monkeypatch.setattr(sys, "stdin", _Stream(tty=stdin))
    monkeypatch.setattr(sys, "stdout", _Stream(tty=stdout))
    assert _who_answers(interactive=interactive) == said
