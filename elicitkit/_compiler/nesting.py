"""Nested forms: a field whose type is itself a form, flattened into prefixed wire keys.

MCP forms are flat, so ``address: Address`` becomes one wire field per field of
``Address``, keyed ``address_street``, ``address_city`` and titled with their path
("Address › Street"). Every leaf carries the chain of `Group` s it sits in, and decoding
rebuilds the nested instances from them (see `decode`).

An optional nested form (``address: Address | None = None``, or one with a default) becomes
a group of optional fields: left wholly empty, it is ``None`` (or its default); partly
filled, it is wanted, so its own required fields must be filled too, each missing one a
field error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Final

from elicitkit._compiler.form_spec import MISSING, FieldSpec, FormSpec, Group
from elicitkit._compiler.type_hints import type_name
from elicitkit.errors import FormDefinitionError

MAX_NESTING_DEPTH: Final = 3
"""How many levels of nested forms a form may hold (``form › a › b › c``)."""

KEY_SEPARATOR: Final = "_"
"""Joins a nested field's wire key to its group's: ``address`` + ``street``."""

TITLE_SEPARATOR: Final = " › "
"""Joins a nested field's title to its group's: "Address › Street"."""

# The form types being flattened, outermost first: finds recursion and measures depth.
_enclosing: ContextVar[tuple[Any, ...]] = ContextVar("elicitkit_enclosing_forms", default=())


def flatten_group(
    *,
    outer: Any,
    inner: Any,
    group: Callable[[FormSpec], Group],
    inspect: Callable[[Any], FormSpec],
    problem: Callable[[str], FormDefinitionError],
) -> list[FieldSpec]:
    """Return the wire fields of the nested form ``inner``, a field of ``outer``.

    Args:
        outer: The form type holding the field.
        inner: The field's form type.
        group: Makes the field's `Group` from the inner form's spec.
        inspect: Describes a form type (``inspect_form``), called for ``inner``.
        problem: Makes the error for this field.

    Raises:
        FormDefinitionError: ``inner`` contains itself, nests too deep, or cannot be a form.
    """
    chain = _enclosing.get() or (outer,)
    if inner in chain:
        path = TITLE_SEPARATOR.join(type_name(tp) for tp in (*chain, inner))
        raise problem(
            f"{type_name(inner)} contains itself ({path}), and a form must be finite. Ask for "
            "the inner part with a separate ask()."
        )
    if len(chain) > MAX_NESTING_DEPTH:
        raise problem(
            f"{type_name(inner)} would be nested {len(chain)} levels deep, and forms nest at "
            f"most {MAX_NESTING_DEPTH} levels (every level lengthens keys and titles). Ask "
            "for the inner part with a separate ask()."
        )
    token = _enclosing.set((*chain, inner))
    try:
        spec = inspect(inner)
    finally:
        _enclosing.reset(token)
    made = group(spec)
    return [_leaf(made, leaf) for leaf in spec.fields]


def _leaf(group: Group, leaf: FieldSpec) -> FieldSpec:
    key = f"{group.key}{KEY_SEPARATOR}{leaf.key}"
    has_default = leaf.default is not MISSING or leaf.default_factory is not None
    return dataclasses.replace(
        leaf,
        key=key,
        attr=key,  # the decoder's slot for it: unique in the flat form
        name=f"{group.name}.{leaf.name}",
        title=f"{group.title}{TITLE_SEPARATOR}{leaf.title}",
        required=leaf.required and not group.optional,
        groups=(group, *leaf.groups),
        # A nested type applies its own defaults when it is built from what was answered.
        omit_when_absent=leaf.omit_when_absent or has_default,
    )
