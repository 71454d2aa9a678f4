"""What the README promises a newcomer stays true: its first screen is two commands that set
up what they need, the tests' one is the one CI runs, its quick loop is the one
tests/test_quick_loop.py checks, it has one conformance section, and ``.ci/setup`` announces
every step that installs something before it starts."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_quick_loop import QUICK

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
CI_SETUP = (ROOT / ".ci" / "setup").read_text(encoding="utf-8")
CI_TESTS = (ROOT / ".ci" / "tests").read_text(encoding="utf-8")
CI_DEMO = (ROOT / ".ci" / "demo").read_text(encoding="utf-8")


def _code_lines(text: str) -> list[str]:
    """The lines of every ```bash block, comments cut off."""
    blocks = re.findall(r"^```bash\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines()]


def test_the_first_screen_and_the_full_run_are_the_command_ci_runs() -> None:
    # Two commands, each setting up what it needs; .ci/run ends with the second.
    first_screen = _code_lines(README.split("## Install")[0])
    assert first_screen == ["bash .ci/demo", "bash .ci/tests"]
    assert CI_RUN.rstrip().splitlines()[-1] == "bash .ci/tests"
    tests = [line for line in CI_TESTS.splitlines() if line and not line.startswith("#")]
    assert tests[-2:] == [
        "bash .ci/setup",
        'exec .venv/bin/python -m pytest -n 2 "$@"',
    ]
    demo = [line for line in CI_DEMO.splitlines() if line and not line.startswith("#")]
    assert demo[-1] == 'exec .venv/bin/python -m elicitkit demo "$@"'
    assert 'pip install --quiet -e ".[cli]"' in CI_DEMO  # the demo's terminal forms
    running = README.split("### Running the tests")[1]
    pytest = ".venv/bin/python -m pytest"
    assert _code_lines(running)[:3] == [
        "bash .ci/tests",
        f'{pytest} -m "{QUICK}" -x',
        f'{pytest} -m "not interop" -x',
    ]


def test_one_conformance_section_naming_both_runs() -> None:
    assert re.findall(r"^#+ .*[Cc]onformance.*$", README, re.MULTILINE) == ["## Conformance"]
    section = README.split("## Conformance")[1].split("\n## ")[0]
    assert _code_lines(section) == [".venv/bin/python .ci/conformance.py", "bash .ci/conformance"]
    assert (ROOT / ".ci" / "conformance.py").is_file()
    assert (ROOT / ".ci" / "conformance").is_file()
    # The versions the README names are the ones the scripts pin.
    assert 'SUITE_VERSION = "0.1.16"' in (ROOT / ".ci" / "conformance.py").read_text()
    assert "conformance@0.2.0-alpha.12" in (ROOT / ".ci" / "conformance").read_text()
    assert "0.1.16" in section
    assert "0.2.0-alpha.12" in section


INSTALLS = re.compile(r"apt-get install|pip install|npm install")


def test_ci_setup_announces_each_install_before_it_starts() -> None:
    announced = False
    unannounced = []
    for number, line in enumerate(CI_SETUP.splitlines(), 1):
        code = line.strip()
        # A part of a step (an Inspector after the other) says itself in an echo, then
        # restarts the step's clock; done_in says when it ended.
        if code.startswith("step ") or code == "step_started=$SECONDS":
            announced = True
        elif code.startswith("done_in"):
            announced = False
        elif INSTALLS.search(code) and not code.startswith(("#", "echo")) and not announced:
            unannounced.append(f"{number}: {code}")
    assert unannounced == []
    # Four numbered steps, each said whether it installs or is already in place.
    assert sorted(set(re.findall(r"^\s*step (\d) ", CI_SETUP, re.MULTILINE))) == [
        "1",
        "2",
        "3",
        "4",
    ]
