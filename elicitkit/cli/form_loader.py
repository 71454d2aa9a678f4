"""Find form types for the command line: load ``MODULE[:NAME]`` and collect its forms.

A module's forms are the classes decorated with ``@form`` and the types passed to ``ask()``
in its source, found by reading the source (nothing is called), then looked up among the
module's names (or the builtins, for ``ask(bool, ...)``).
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


class LoadError(Exception):
    """The module or name given on the command line cannot be loaded; the message says why."""


@dataclass(frozen=True)
class FoundForm:
    """A form type and where it was found.

    Attributes:
        name: The name it is known by in the module (``Booking``, ``bool``).
        tp: The type itself.
        line: The source line that made it a form, or 0 when named on the command line.
    """

    name: str
    tp: Any
    line: int = 0


def split_target(target: str) -> tuple[str, str | None]:
    """Split ``MODULE[:NAME]``; a Windows drive letter is not a separator."""
    module, sep, name = target.rpartition(":")
    if not sep or not module or len(module) == 1:
        return target, None
    return module, name or None


def load_module(module: str) -> ModuleType:
    """Import a dotted module name, or run a ``.py`` file (or a path) as a module.

    Raises:
        LoadError: Nothing by that name, or it failed while importing.
    """
    path = Path(module)
    try:
        if module.endswith(".py") or path.is_file():
            return _load_path(path)
        if "" not in sys.path and "." not in sys.path:
            sys.path.insert(0, "")  # as `python -m` does: the working directory first
        return importlib.import_module(module)
    except LoadError:
        raise
    except ModuleNotFoundError as error:
        raise LoadError(
            f"Cannot import {module!r}: {error}. Give a dotted module name importable from "
            "here, or a path to a .py file."
        ) from error


def _load_path(path: Path) -> ModuleType:
    if not path.is_file():
        raise LoadError(f"Cannot load {str(path)!r}: there is no such file.")
    name = f"_elicitkit_cli_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover  (a .py file always has one)
        raise LoadError(f"Cannot load {str(path)!r} as a Python module.")
    sys.path.insert(0, str(path.resolve().parent))  # its sibling modules import as in a run
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # registered, so dataclasses and type hints resolve
    spec.loader.exec_module(loaded)
    return loaded


def named(module: ModuleType, name: str) -> FoundForm:
    """Look up ``NAME`` (dotted for nested attributes) in ``module``.

    Raises:
        LoadError: The module has no such name.
    """
    missing = object()
    value = _resolve(module, name, missing, builtins_too=False)
    if value is missing:
        raise LoadError(
            f"{_display(module)} has no {name!r}. Give the name of a form type defined "
            "or imported there."
        )
    return FoundForm(name, value)


def forms_in(module: ModuleType) -> list[FoundForm]:
    """Every form the module's source declares with ``@form`` or passes to ``ask()``."""
    source_file = getattr(module, "__file__", None)
    if source_file is None:
        return []
    tree = ast.parse(Path(source_file).read_text(encoding="utf-8"), source_file)
    found: dict[int, FoundForm] = {}
    for node in ast.walk(tree):
        name: str | None = None
        line: int = getattr(node, "lineno", 0)
        if isinstance(node, ast.ClassDef) and any(_is_form(d) for d in node.decorator_list):
            name = node.name
        elif isinstance(node, ast.Call) and _called(node.func) == "ask" and node.args:
            name = _dotted(node.args[0])
        if name is None:
            continue
        value = _resolve(module, name, None, builtins_too=True)
        if value is not None and id(value) not in found:
            found[id(value)] = FoundForm(name, value, line)
    return sorted(found.values(), key=lambda form: form.line)


def _is_form(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return _called(target) == "form"


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None  # a subscript (Literal[...]) or a call: only what has a name is looked up


def _resolve(module: ModuleType, name: str, missing: object, *, builtins_too: bool) -> Any:
    head, *rest = name.split(".")
    value: Any = getattr(module, head, missing)
    if value is missing and builtins_too:
        value = getattr(builtins, head, missing)
    for part in rest:
        if value is missing:
            break
        value = getattr(value, part, missing)
    return value


def _display(module: ModuleType) -> str:
    return getattr(module, "__file__", None) or module.__name__
