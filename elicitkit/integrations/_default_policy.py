"""Tells the SDKs' default request-state policy from one the author chose.

With no ``request_state_security=``, both SDKs seal ``requestState`` with
``RequestStateSecurity.ephemeral()``: a key made at start and held by this process only, so
a state sealed by one worker (or by this server before a restart, or by the server process
a client started for its previous call) cannot be opened by another. elicitkit replaces
that default, and only that default, with the key kept beside the server's record file
(`elicitkit.integrations._machine_records`), so every process on the machine agrees. A
policy the author built keeps its keys, always.

Neither SDK records which policy was its default (fastmcp keeps ``None`` for it, the
official ``MCPServer`` nothing), so elicitkit notes every policy ``ephemeral()`` makes
(`made_by_default`): ``ephemeral`` is wrapped, without changing what it returns, when
``mcp.server.request_state`` is first imported (a finder on ``sys.meta_path`` that removes
itself), or at once if it is already loaded. ``import elicitkit`` does not import the SDK
(it takes about half a second), so a server built before elicitkit was imported keeps its
process key; fastmcp's ``None`` still tells its default apart then.
``tests/test_sdk_assumptions.py`` checks that both SDKs still call ``ephemeral()``.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

_MODULE = "mcp.server.request_state"
_WRAPPED = "_elicitkit_notes_defaults"
_defaults: weakref.WeakSet[Any] = weakref.WeakSet()


def made_by_default(security: object) -> bool:
    """Whether ``security`` was made by ``RequestStateSecurity.ephemeral()``."""
    try:
        return security in _defaults
    except TypeError:  # not weak-referenceable: not one of ours
        return False


def _wrap(module: ModuleType) -> None:
    security_class: Any = getattr(module, "RequestStateSecurity", None)
    if security_class is None:
        return
    found: Any = security_class.__dict__.get("ephemeral")
    if not isinstance(found, classmethod):
        return
    original: Any = found.__func__  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if getattr(original, _WRAPPED, False):
        return

    def ephemeral(cls: Any, *args: Any, **kwargs: Any) -> Any:
        made: Any = original(cls, *args, **kwargs)
        _defaults.add(made)
        return made

    ephemeral.__doc__ = original.__doc__
    setattr(ephemeral, _WRAPPED, True)
    security_class.ephemeral = classmethod(ephemeral)


class _WrapWhenImported:
    """Finds nothing itself: it wraps the loader of the SDK's module so `_wrap` runs after.

    A plain class with ``find_spec`` (all ``sys.meta_path`` asks of a finder): subclassing
    ``importlib.abc.MetaPathFinder`` would cost ``import elicitkit`` 13 ms.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != _MODULE:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find: Any = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = None if find is None else find(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader: Any = spec.loader
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return spec

        def exec_and_wrap(module: ModuleType) -> None:
            exec_module(module)
            _wrap(module)

        loader.exec_module = exec_and_wrap  # this module's own loader instance
        return spec


def watch() -> None:
    """Note every default policy from now on (idempotent)."""
    loaded = sys.modules.get(_MODULE)
    if loaded is not None:
        _wrap(loaded)
    elif not any(isinstance(finder, _WrapWhenImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, _WrapWhenImported())
