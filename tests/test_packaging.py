"""The install story is true: the project builds a wheel and an sdist, and the wheel installs
into a fresh virtual environment and works there.

Offline and fast: the build runs without isolation (the build backend is a dev dependency),
the wheel is installed with ``--no-deps --no-index``, and the fresh environment borrows the
dependencies of the test environment through a path entry (not the test environment's own,
editable elicitkit: a ``.pth`` line adds a directory without running the ``.pth`` files in it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
VERSION = "0.1.0"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory, starts_processes: None) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Without --sdist/--wheel, build makes the sdist and then the wheel *from the sdist*, so
    # the wheel also proves the sdist is complete.
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return out


def test_the_wheel_holds_the_package_and_its_marker_and_no_tests(dist: Path) -> None:
    with zipfile.ZipFile(dist / f"elicitkit-{VERSION}-py3-none-any.whl") as wheel:
        names = set(wheel.namelist())
    sources = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "elicitkit").rglob("*")
        if path.is_file() and path.suffix in {".py", ".typed"}
    }
    packaged = {name for name in names if not name.startswith(f"elicitkit-{VERSION}.dist-info/")}
    assert "elicitkit/py.typed" in packaged
    assert packaged == sources


def test_the_wheel_offers_each_sdk_integration_as_an_extra(dist: Path) -> None:
    with zipfile.ZipFile(dist / f"elicitkit-{VERSION}-py3-none-any.whl") as wheel:
        metadata = wheel.read(f"elicitkit-{VERSION}.dist-info/METADATA").decode()
    lines = set(metadata.splitlines())
    assert "Provides-Extra: fastmcp" in lines
    assert "Requires-Dist: fastmcp<5,>=4.2; extra == 'fastmcp'" in lines
    # fastmcp is optional: nothing outside an extra requires it.
    required = [line for line in lines if line.startswith("Requires-Dist: fastmcp")]
    assert all("extra ==" in line for line in required)


def test_the_terminal_forms_are_the_cli_extra(dist: Path) -> None:
    with zipfile.ZipFile(dist / f"elicitkit-{VERSION}-py3-none-any.whl") as wheel:
        metadata = wheel.read(f"elicitkit-{VERSION}.dist-info/METADATA").decode()
    lines = set(metadata.splitlines())
    assert "Provides-Extra: cli" in lines
    required = sorted(line for line in lines if line.startswith("Requires-Dist: prompt-toolkit"))
    assert required == [
        "Requires-Dist: prompt-toolkit>=3.0.43; extra == 'cli'",
        "Requires-Dist: prompt-toolkit>=3.0.43; extra == 'dev'",
    ]


def test_the_sdist_holds_what_the_tests_and_docs_need(dist: Path) -> None:
    with tarfile.open(dist / f"elicitkit-{VERSION}.tar.gz") as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for needed in [
        "pyproject.toml",
        "README.md",
        "CHANGELOG.md",
        "mkdocs.yml",
        "elicitkit/py.typed",
        "tests/test_packaging.py",
        "tests/spec/SHA256SUMS",
        "tests/spec/2026-07-28/schema.json",
        "docs/getting-started.md",
        "examples/http_server.py",
    ]:
        assert needed in names, needed
    # It compares with ../shared/spec, which no sdist has beside it: it could only skip.
    assert "tests/test_spec_upstream.py" not in names


def test_the_wheel_installs_into_a_fresh_venv_and_imports(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    wheel = dist / f"elicitkit-{VERSION}-py3-none-any.whl"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "borrowed_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    probe = (
        "import elicitkit, pathlib, sys; "
        "print(pathlib.Path(elicitkit.__file__).is_relative_to(sys.prefix)); "
        "print((pathlib.Path(elicitkit.__file__).parent / 'py.typed').is_file()); "
        "print(elicitkit.requested_schema(bool)['properties'])"
    )
    # Not the caller's PYTHONPATH: it may point at a source tree, which would hide the wheel.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    shown = subprocess.run(
        [str(python), "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout
    assert shown == (
        "True\nTrue\n{'value': {'type': 'boolean', 'title': 'Confirm', 'default': False}}\n"
    )


# The forms the README, getting-started and the fastmcp page give for a wheel with an extra,
# as written there: "dist/" is where `python -m build` writes, "/path/to/" any folder.
WHEEL_WITH_EXTRA = [
    pytest.param("README.md", "dist/{wheel}[cli]", "cli", id="readme-path"),
    pytest.param("README.md", "elicitkit[cli] @ file:///path/to/{wheel}", "cli", id="readme-url"),
    pytest.param("docs/getting-started.md", "dist/{wheel}[cli]", "cli", id="getting-started"),
    pytest.param("docs/fastmcp.md", "dist/{wheel}[fastmcp]", "fastmcp", id="fastmcp"),
]


@pytest.mark.parametrize(("page", "form", "extra"), WHEEL_WITH_EXTRA)
def test_the_documented_wheel_with_an_extra_is_what_pip_installs(
    dist: Path, page: str, form: str, extra: str
) -> None:
    wheel = f"elicitkit-{VERSION}-py3-none-any.whl"
    assert f'pip install "{form.format(wheel=wheel)}"' in (ROOT / page).read_text()
    given = form.format(wheel=wheel).replace("dist/", f"{dist}/").replace("/path/to/", f"{dist}/")
    # A dry run in this environment, which holds every dependency: offline, and it installs
    # nothing. (Installing either form into a fresh venv from an index installs the extra.)
    report = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--quiet",
         "--report", "-", given],
        check=True,
        capture_output=True,
        text=True,
    ).stdout  # fmt: skip
    (planned,) = json.loads(report)["install"]
    assert planned["metadata"]["name"] == "elicitkit"
    assert planned["requested_extras"] == [extra]
    assert planned["download_info"]["url"] == (dist / wheel).as_uri()
