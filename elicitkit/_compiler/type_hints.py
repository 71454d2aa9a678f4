"""Reading annotations: the only module that calls the ``typing`` introspection API.

Everything the compiler and the runtime ask of an annotation is answered here:
resolving a class's or a function's hints (``get_type_hints(..., include_extras=True)``),
peeling type aliases (``TypeAliasType`` and Python 3.12's ``type X = ...``), ``NewType``,
``Annotated`` and ``| None`` off a field's type (`unwrap`), stripping TypedDict's
``Required``/``NotRequired``/``ReadOnly``, and telling what a bare ``Literal`` or a
collection holds. ``get_origin`` and ``get_args`` are called nowhere else, so a difference
between Python versions or between ``typing`` and ``typing_extensions`` is met in one place.

It imports nothing from the rest of the compiler except `FieldSettings` (which `unwrap`
feeds with the metadata it finds inside ``Annotated``), so every other module may use it.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, cast

import typing_extensions
from typing_extensions import TypeAliasType

from elicitkit._compiler.field_settings import FieldSettings
from elicitkit.errors import FormDefinitionError

_UNION_ORIGINS: tuple[Any, ...] = (Union, types.UnionType)
_MAPPING_ORIGINS = (dict, Mapping, typing.Mapping, typing.MutableMapping)
_COLLECTIONS: dict[Any, type] = {list: list, set: set, frozenset: frozenset, tuple: tuple}


def type_name(tp: Any) -> str:
    """Name a type the way its author wrote it, for messages."""
    if isinstance(tp, type) and not typing.get_args(tp):
        # Outer.Inner stays qualified; a class defined in a function loses the noise.
        return tp.__qualname__.rsplit("<locals>.", 1)[-1]
    text = repr(tp)
    for prefix in ("typing_extensions.", "typing.", "datetime.", "decimal.", "annotated_types."):
        text = text.replace(prefix, "")
    return re.sub(r"<class '(?:[\w.]+\.)?([\w]+)'>", r"\1", text)


# --------------------------------------------------------------------------------------
# Resolving hints
# --------------------------------------------------------------------------------------


def resolved_hints(tp: Any) -> dict[str, Any]:
    """Return a form class's resolved annotations, ``Annotated`` metadata kept.

    Raises:
        FormDefinitionError: An annotation names something the form's module cannot see.
    """
    try:
        # `typing` is in scope for `make_dataclass`, which annotates untyped fields with the
        # string "typing.Any" whatever the calling module imported.
        return typing.get_type_hints(tp, localns={"typing": typing}, include_extras=True)
    except NameError as exc:
        raise FormDefinitionError(
            f"Cannot build a form from {type_name(tp)}: the annotation name '{exc.name}' "
            "cannot be resolved. Define or import it at module level, where the form's "
            "module can see it."
        ) from exc


def parameter_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Return a function's resolved parameter annotations, ``Annotated`` metadata kept.

    Raises:
        FormDefinitionError: An annotation names something the function's module cannot see.
    """
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except NameError as exc:
        raise FormDefinitionError(
            f"Cannot ask for the missing arguments of {fn.__qualname__}: the annotation name "
            f"'{exc.name}' cannot be resolved. Define or import it at module level."
        ) from exc


def strip_typeddict_qualifiers(hint: Any) -> tuple[Any, bool | None]:
    """Return a TypedDict hint without ``Required``/``NotRequired``/``ReadOnly``.

    Returns:
        The bare hint, and ``True``/``False`` if ``Required``/``NotRequired`` was written
        on it (``None`` if neither was).
    """
    required: bool | None = None
    while True:
        # Matched by name: typing's and typing_extensions' qualifiers are different objects
        # on some Python versions.
        origin = typing.get_origin(hint)
        if _named(origin, "Required"):
            required, hint = True, typing.get_args(hint)[0]
        elif _named(origin, "NotRequired"):
            required, hint = False, typing.get_args(hint)[0]
        elif _named(origin, "ReadOnly"):
            hint = typing.get_args(hint)[0]
        else:
            return hint, required


def _named(origin: Any, name: str) -> bool:
    # typing.Required (3.11+) and typing_extensions.Required are different objects.
    return origin is not None and getattr(origin, "_name", None) == name


# --------------------------------------------------------------------------------------
# Unwrapping one annotation
# --------------------------------------------------------------------------------------


@dataclass
class Unwrapped:
    """An annotation with aliases, ``NewType``, ``Annotated`` and ``| None`` peeled off."""

    core: Any
    """The one value type left."""
    optional: bool
    """Whether ``None`` was one of the union's members."""
    settings: FieldSettings
    """The settings given, with the metadata found inside ``Annotated`` read into them."""


def unwrap(
    annotation: Any, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> Unwrapped:
    """Peel aliases, NewType, Annotated and ``| None`` off an annotation.

    Args:
        annotation: The annotation as written.
        settings: Where the metadata inside each ``Annotated`` layer is read into.
        problem: Makes the error for the field being unwrapped.

    Raises:
        FormDefinitionError: The annotation is a union of several value types, or ``None``.
    """
    optional = False
    tp = annotation
    while True:
        if isinstance(tp, TypeAliasType) or _is_typing_alias_type(tp):
            tp = typing.cast("Any", tp).__value__
        elif isinstance(tp, typing.NewType):
            tp = tp.__supertype__
        elif typing.get_origin(tp) is typing.Annotated or _named(
            typing.get_origin(tp), "Annotated"
        ):
            tp, *metadata = typing.get_args(tp)
            for item in metadata:
                settings.read(item)
        elif typing.get_origin(tp) in _UNION_ORIGINS:
            members = [arg for arg in typing.get_args(tp) if arg is not type(None)]
            if len(members) < len(typing.get_args(tp)):
                optional = True
            if len(members) != 1:
                raise problem(
                    f"{type_name(tp)} is a union of {len(members)} value types, which one "
                    "form field cannot express. Use one type, or ask with two separate fields."
                )
            tp = members[0]
        elif tp is type(None) or tp is None:
            raise problem("None alone holds no answer. Give the field a value type.")
        else:
            return Unwrapped(core=tp, optional=optional, settings=settings)


def without_metadata(tp: Any) -> Any:
    """``tp`` without the metadata of its outer ``Annotated`` layers."""
    while typing.get_origin(tp) is typing.Annotated or _named(typing.get_origin(tp), "Annotated"):
        tp = typing.get_args(tp)[0]
    return tp


def without_none(annotation: Any) -> Any:
    """``X`` for ``X | None`` (or ``Optional[X]``); any other annotation as it is, unpeeled."""
    if typing.get_origin(annotation) in _UNION_ORIGINS:
        members = typing.get_args(annotation)
        rest = [member for member in members if member is not type(None)]
        if len(rest) == 1 and len(rest) < len(members):
            return rest[0]
    return annotation


def _is_typing_alias_type(tp: Any) -> bool:
    alias_type = getattr(typing, "TypeAliasType", None)  # Python 3.12+ `type X = ...`
    return alias_type is not None and isinstance(tp, alias_type)


def accepts_none(annotation: Any) -> bool:
    """Whether an annotation admits ``None`` (``X | None``, ``Optional[X]``, through aliases)."""
    try:
        return unwrap(annotation, FieldSettings(), FormDefinitionError).optional
    except FormDefinitionError:
        return False


def value_type(annotation: Any) -> Any:
    """Return the one type an annotation holds, aliases, ``Annotated`` and ``| None`` peeled.

    ``None`` if it holds no single type (a union of several, or ``None`` alone).
    """
    try:
        return unwrap(annotation, FieldSettings(), FormDefinitionError).core
    except FormDefinitionError:
        return None


def admitting_text(annotation: Any) -> Any:
    """Return a return annotation widened to ``annotation | str``, unless it admits text."""
    annotated = typing.get_origin(annotation) is typing.Annotated
    inner = typing.get_args(annotation)[0] if annotated else annotation
    options = typing.get_args(inner) if typing.get_origin(inner) in _UNION_ORIGINS else (inner,)
    if any(option in (str, Any, object) for option in options):
        return annotation
    return cast("Any", Union)[annotation, str]


# --------------------------------------------------------------------------------------
# What an unwrapped type holds
# --------------------------------------------------------------------------------------


def literal_values(tp: Any) -> tuple[Any, ...] | None:
    """Return the values of a ``Literal[...]``, or ``None`` if ``tp`` is not a Literal."""
    if typing.get_origin(tp) is not Literal:
        return None
    return typing_extensions.get_args(tp)


def is_typeddict(tp: Any) -> bool:
    """Whether ``tp`` is a TypedDict class, from ``typing`` or ``typing_extensions``."""
    # typing_extensions' check knows both kinds; typing's own misses typing_extensions'.
    return typing_extensions.is_typeddict(tp)


def is_mapping(tp: Any) -> bool:
    """Whether ``tp`` is a mapping type (``dict``, ``dict[str, int]``, ``Mapping[...]``)."""
    return typing.get_origin(tp) in _MAPPING_ORIGINS or tp in _MAPPING_ORIGINS


@dataclass(frozen=True)
class Collection:
    """A list, set, frozenset or tuple type, taken apart."""

    container: type
    """``list``, ``set``, ``frozenset`` or ``tuple``: what a decoded answer is built as."""
    item: Any
    """The item type as written (``Any`` for a bare ``list``)."""
    fixed_length: bool
    """A tuple of fixed length (``tuple[X, Y]``, or a bare ``tuple``), not ``tuple[X, ...]``."""


def collection(tp: Any) -> Collection | None:
    """Take a list, set, frozenset or tuple type apart; ``None`` for any other type."""
    origin = typing.get_origin(tp) or tp
    if origin not in _COLLECTIONS:
        return None
    args = typing.get_args(tp)
    fixed = origin is tuple and not (len(args) == 2 and args[1] is Ellipsis)
    return Collection(
        container=_COLLECTIONS[origin], item=args[0] if args else Any, fixed_length=fixed
    )


# --------------------------------------------------------------------------------------
# Durable steps: which return annotations round-trip through JSON
# --------------------------------------------------------------------------------------

_STEP_SCALARS: tuple[Any, ...] = (type(None), None, bool, int, float, str, Any, object)


def return_hint(fn: Callable[..., Any]) -> Any:
    """Return a function's resolved return annotation, or ``Any`` if it has none.

    An annotation that cannot be resolved (a forward reference the function's module
    cannot see) also reads as ``Any``: the step's value is then checked when it exists.
    """
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001  (any unresolvable annotation: check the value instead)
        return Any
    return hints.get("return", Any)


def step_type_problem(tp: Any, is_record: Callable[[Any], bool]) -> object:
    """Return the part of ``tp`` that has no JSON round trip as a step's result, or ``None``.

    Allowed: ``None``, ``bool``, ``int``, ``float``, ``str``, ``date``/``datetime`` and
    ``Enum`` subclasses, records (``is_record``: dataclasses, pydantic models, msgspec
    Structs), ``list[X]``, ``dict[str, X]``, unions and ``Annotated`` of these, and ``Any``
    (checked on the value). An awaitable's result is what is checked.
    """
    return next(
        (leaf for leaf in _step_leaves(tp) if not _step_leaf_allowed(leaf, is_record)), None
    )


def step_classes(tp: Any, is_record: Callable[[Any], bool]) -> frozenset[type] | None:
    """Return the Enum and record classes a step's result of type ``tp`` may hold.

    A dataclass's fields count too (their values are recorded with their own classes);
    a pydantic model or a Struct rebuilds its fields itself. ``None`` where ``tp`` lets the
    value hold anything: ``Any``, ``object``, a bare ``list`` or ``dict``, an annotation
    that cannot be resolved. Only these classes are rebuilt from a step's record.
    """
    found: set[type] = set()
    todo = [tp]
    while todo:
        for leaf in _step_leaves(todo.pop()):
            if leaf is Any or leaf is object:
                return None
            if isinstance(leaf, type) and leaf not in found and _step_class(leaf, is_record):
                found.add(leaf)
                if dataclasses.is_dataclass(leaf):
                    try:
                        todo.extend(typing.get_type_hints(leaf, include_extras=True).values())
                    except Exception:  # noqa: BLE001  (unresolvable: the fields may hold anything)
                        return None
    return frozenset(found)


def _step_leaves(tp: Any) -> typing.Iterator[Any]:
    """The types a step's result of type ``tp`` is made of.

    Unions, ``Annotated``, aliases, ``NewType``, ``list`` and ``dict`` values and an
    awaitable's result are peeled off; a bare ``list`` or ``dict`` holds ``Any``; a mapping
    whose keys are not ``str`` (no JSON round trip) is a leaf of its own.
    """
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        yield from _step_leaves(args[0])
    elif _is_typing_alias_type(tp) or isinstance(tp, TypeAliasType):
        yield from _step_leaves(tp.__value__)
    elif isinstance(tp, typing.NewType):
        yield from _step_leaves(tp.__supertype__)
    elif origin in _UNION_ORIGINS:
        for arg in args:
            yield from _step_leaves(arg)
    elif origin is list or tp is list:
        yield from _step_leaves(args[0]) if args else iter([Any])
    elif origin in _MAPPING_ORIGINS or tp in _MAPPING_ORIGINS:
        if args and args[0] is not str:
            yield tp
        else:
            yield from _step_leaves(args[1]) if args else iter([Any])
    elif origin is not None and getattr(origin, "__name__", "") in _AWAITABLES and args:
        yield from _step_leaves(args[_AWAITABLES[origin.__name__]])
    else:
        yield tp


_AWAITABLES = {"Coroutine": 2, "Awaitable": 0}  # where each one's result type sits


def _step_leaf_allowed(leaf: Any, is_record: Callable[[Any], bool]) -> bool:
    import datetime as dt  # noqa: PLC0415  (only steps need it here)

    if (
        typing.get_origin(leaf) is Literal
        or leaf in _STEP_SCALARS
        or leaf in (dt.date, dt.datetime)
    ):
        return True
    return isinstance(leaf, type) and _step_class(leaf, is_record)


def _step_class(tp: type, is_record: Callable[[Any], bool]) -> bool:
    """Whether a step's recorded value names ``tp`` (an Enum or a record) to rebuild it."""
    import enum  # noqa: PLC0415  (only steps need it here)

    return issubclass(tp, enum.Enum) or is_record(tp)
