"""Choosing the eras of ``elicit_connect``: the ``elicit_protocols`` marker, in a user's project.

Each case runs pytest in a fresh project directory, which finds the plugin through its entry
point as a user's project does, and reads which test ids ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("starts_processes")  # every test starts a process

ROOT = Path(__file__).parents[1]


def run_pytest(project: Path, source: str) -> subprocess.CompletedProcess[str]:
    (project / "test_user_project.py").write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "--strict-markers",
         "test_user_project.py"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # this checkout's elicitkit
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip


def passed(run: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(
        line.split(" ")[0].split("::")[1] for line in run.stdout.splitlines() if " PASSED" in line
    )


def test_the_marker_narrows_elicit_connect_and_a_module_mark_applies_to_all(
    tmp_path: Path,
) -> None:
    run = run_pytest(
        tmp_path,
        """
        import pytest
        from mcp.server.mcpserver import MCPServer
        from elicitkit import install

        pytestmark = pytest.mark.elicit_protocols("2026-07-28")

        server = install(MCPServer("eras"))


        @pytest.fixture
        def anyio_backend():
            return "asyncio"

        @pytest.mark.anyio
        async def test_module_wide(elicit_connect):
            async with elicit_connect(server) as client:
                assert client.protocol_version == "2026-07-28"

        @pytest.mark.anyio
        @pytest.mark.elicit_protocols("2025-11-25", "2026-07-28")
        async def test_two_eras(elicit_connect, elicit_protocol):
            async with elicit_connect(server) as client:
                assert client.protocol_version == elicit_protocol

        def test_unmarked_elsewhere(elicit_protocol):
            assert elicit_protocol == "2026-07-28"  # the module's mark
        """,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert passed(run) == [
        "test_module_wide[2026-07-28]",
        "test_two_eras[2025-11-25]",
        "test_two_eras[2026-07-28]",
        "test_unmarked_elsewhere[2026-07-28]",
    ]


def test_without_the_marker_every_era_runs(tmp_path: Path) -> None:
    run = run_pytest(tmp_path, "def test_each(elicit_protocol):\n    assert elicit_protocol\n")
    assert run.returncode == 0, run.stdout[-3000:]
    assert passed(run) == [
        "test_each[2025-06-18]",
        "test_each[2025-11-25]",
        "test_each[2026-07-28]",
    ]


def test_an_unknown_version_is_refused_naming_it(tmp_path: Path) -> None:
    run = run_pytest(
        tmp_path,
        """
        import pytest

        @pytest.mark.elicit_protocols("2025-11-25", "2024-11-05")
        def test_typo(elicit_protocol):
            pass
        """,
    )
    assert run.returncode != 0
    assert (
        "@pytest.mark.elicit_protocols on test_user_project.py::test_typo names '2024-11-05': "
        "give one or more of 2025-06-18, 2025-11-25, 2026-07-28."
    ) in run.stdout + run.stderr
