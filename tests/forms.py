"""Small helpers to build one-field forms for table tests."""

from __future__ import annotations

import dataclasses
from typing import Any

_NO_DEFAULT: Any = dataclasses.MISSING


def one_field_form(annotation: Any, default: Any = _NO_DEFAULT, *, name: str = "answer") -> type:
    """A dataclass with one field ``name`` of the given annotation (and default)."""
    spec: tuple[Any, ...] = (name, annotation)
    if default is not _NO_DEFAULT:
        spec = (name, annotation, dataclasses.field(default=default))
    return dataclasses.make_dataclass("Form", [spec])
