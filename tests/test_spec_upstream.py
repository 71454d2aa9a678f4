"""The vendored spec files are still the official ones of ``../shared/spec``.

``tests/spec/SHA256SUMS`` holds the digests the vendored copies are checked against
(``tests/test_spec_copies.py``); this checks those digests against the official folder beside
the checkout, file by file, and that every official file of each vendored version was
vendored. The sdist leaves this file out: it has no ``../shared/spec`` to compare with.
Without that folder the tests skip, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.spec_digests import official_digests

SHARED_SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec"
VERSIONS = sorted({relative.split("/", 1)[0] for relative in official_digests()})


@pytest.fixture(scope="module")
def shared_spec() -> Path:
    if not SHARED_SPEC.is_dir():
        message = f"There is no official spec folder at {SHARED_SPEC} to compare the copies with."
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI is set, and CI runs beside ../shared/spec.)")
        pytest.skip(message)
    return SHARED_SPEC


@pytest.mark.parametrize("relative", sorted(official_digests()))
def test_official_digest_is_the_shared_files(shared_spec: Path, relative: str) -> None:
    digest = hashlib.sha256((shared_spec / relative).read_bytes()).hexdigest()
    assert official_digests()[relative] == digest


@pytest.mark.parametrize("version", VERSIONS)
def test_every_official_file_of_a_version_is_vendored(shared_spec: Path, version: str) -> None:
    official = sorted(
        path.relative_to(shared_spec).as_posix()
        for path in (shared_spec / version).rglob("*")
        if path.is_file()
    )
    vendored = sorted(relative for relative in official_digests() if relative.startswith(version))
    assert vendored == official
