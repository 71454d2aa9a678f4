"""Differences between the Python versions elicitkit supports, in one place."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:  # pragma: no cover  (Python 3.10: anyio depends on the backport there)
    from exceptiongroup import BaseExceptionGroup

__all__ = ["BaseExceptionGroup"]
