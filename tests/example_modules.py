"""Example files imported as fresh modules, for tests that drive their servers in memory.

Each import is a new module (its ledgers empty), registered in ``sys.modules`` while the
test runs, since dataclasses and forms resolve postponed annotations through it, and
forgotten after.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

_numbers = itertools.count()


@contextlib.contextmanager
def fresh_examples() -> Iterator[Callable[[Path], ModuleType]]:
    """A loader of example files as fresh modules; they leave ``sys.modules`` at the end."""
    loaded: list[str] = []

    def load(path: Path) -> ModuleType:
        name = f"_example_{path.stem}_{next(_numbers)}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loaded.append(name)
        spec.loader.exec_module(module)
        return module

    try:
        yield load
    finally:
        for name in loaded:
            del sys.modules[name]
