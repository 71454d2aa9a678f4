"""The pytest plugin is cheap to load: pytest loads it in every session of every project that
has elicitkit installed, so it must not import the MCP SDK's client until a test uses
``elicit_connect``."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

ROOT = Path(__file__).parents[1]


def test_loading_the_plugin_does_not_import_the_sdk_client() -> None:
    probe = (
        "import sys, elicitkit.testing.pytest_plugin; "
        "print(sorted(name for name in sys.modules if name.startswith('mcp.client')))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert shown == "[]\n"


def test_a_pytest_session_imports_the_sdk_client_only_for_elicit_connect(tmp_path: Path) -> None:
    # A user's project: pytest finds the plugin through its entry point, as it does there.
    (tmp_path / "test_user_project.py").write_text(
        textwrap.dedent(
            """
            import sys

            def test_started_without_the_sdk_client(elicit_protocol):
                assert "mcp.client" not in sys.modules

            def test_zz_elicit_connect_brings_it(elicit_connect):
                assert "mcp.client" in sys.modules
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's elicitkit
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
         "test_user_project.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    # Each test once per protocol version: the plugin's fixtures were there.
    assert run.stdout.splitlines()[-1].startswith("6 passed")
