"""The one way an elicitkit error also becomes an SDK's exception: its class is swapped.

Each server SDK passes on the text of its own exceptions only (a ``ToolError``, an
``MCPError``); an elicitkit error raised in a tool must still read as elicitkit's sentence
and still be caught by ``except InvalidContent``. So the error's class becomes a subclass of
its own class and of the SDK's, made once per combination. No SDK is imported here: the
classes are given (`_uninstalled` finds them in ``sys.modules``, so that ``import
elicitkit`` pays for no SDK).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import new_class


def become(
    error: Exception,
    bases: tuple[type[Exception], ...],
    fields: Mapping[str, object],
    *,
    module: str | None = None,
) -> bool:
    """Give ``error`` a class that subclasses its own and each of ``bases``; False if it did.

    ``fields`` are class attributes that the bases' ``__init__`` would have set, since it
    never runs for ``error``. The class is named as the error's own and lives in ``module``
    (default: the error's own module), so tracebacks and logs read as before.
    """
    kind = type(error)
    added = tuple(base for base in bases if not issubclass(kind, base))
    if not added:
        return False
    home = kind.__module__ if module is None else module
    key = (kind, added, home, tuple(fields.items()))
    both = _MADE.get(key)
    if both is None:
        namespace = {"__module__": home, **fields}
        both = _MADE[key] = new_class(
            kind.__name__, (kind, *added), {}, lambda ns: ns.update(namespace)
        )
    error.__class__ = both
    return True


# (class, bases, module, fields) -> their subclass; a handful of entries at most.
_MADE: dict[
    tuple[type[Exception], tuple[type[Exception], ...], str, tuple[tuple[str, object], ...]],
    type[Exception],
] = {}
