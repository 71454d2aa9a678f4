"""The official digests of the vendored spec files (``tests/spec/SHA256SUMS``).

Written with ``sha256sum`` in ``../shared/spec`` when the files were copied, so the copies can
be checked wherever the tests run, from the sdist too.
"""

from __future__ import annotations

import functools

from tests.spec_check import SPEC_DIR

OFFICIAL_DIGESTS = SPEC_DIR / "SHA256SUMS"


@functools.cache
def official_digests() -> dict[str, str]:
    """Relative path (``2026-07-28/schema.json``) -> the official file's SHA-256, in hex."""
    digests = {}
    for line in OFFICIAL_DIGESTS.read_text().splitlines():
        digest, relative = line.split("  ", 1)
        digests[relative] = digest
    return digests
