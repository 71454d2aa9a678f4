"""Where a form's fields come from: one reader per vocabulary, one record per field.

A dataclass (pydantic dataclasses included), a pydantic model, a msgspec Struct and a
TypedDict each declare names, wire keys (aliases), annotations, defaults and metadata in
their own way. Each reader here turns them into `DeclaredField` records, so everything
after this module (`introspect`) meets one shape of field whatever declared it. A tool's
parameters are a field source too: `parameter_default` reads pydantic ``Field(...)``
defaults the way both SDKs do.

Nothing here builds a `FieldSpec` or recurses into nested forms: a field whose type is
itself a form is just a record here, and `introspect` flattens it. So this module never
calls back into `introspect`, and there is no import cycle to break.

msgspec is recognised without being imported: ``import elicitkit`` must not pay for a
library only some authors use, and if msgspec was never imported, no type is a Struct.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

import pydantic
from pydantic.fields import FieldInfo as PydanticFieldInfo
from pydantic_core import PydanticUndefined

from elicitkit._compiler.form_spec import MISSING, Shape
from elicitkit._compiler.type_hints import (
    is_typeddict,
    resolved_hints,
    strip_typeddict_qualifiers,
)

if TYPE_CHECKING:
    import msgspec


@dataclass(frozen=True)
class DeclaredField:
    """One field as its form type declares it, before its annotation is read."""

    name: str
    """The field's name in the author's type (titles, messages, the secret check)."""
    key: str
    """The wire key: the field's alias, or its name."""
    attr: str
    """The keyword the form's constructor takes for the field."""
    annotation: Any
    """The field's annotation as written (resolved, ``Annotated`` metadata kept)."""
    default: Any
    """The Python default, or `MISSING`."""
    default_factory: Callable[[], Any] | None
    """A zero-argument default factory, or ``None``."""
    metadata: tuple[Any, ...] = ()
    """Settings found outside the annotation (pydantic's ``FieldInfo``)."""
    key_required: bool = True
    """For a TypedDict: whether the key itself is required."""
    pydantic_required: bool | None = None
    """pydantic's own verdict, when the field comes from a model."""


def declared_fields(tp: Any) -> tuple[Shape, list[DeclaredField]] | None:
    """Return the shape of a form type and its fields, in order.

    Returns:
        ``None`` if ``tp`` declares no fields: it is a bare type, for a one-field form.

    Raises:
        FormDefinitionError: An annotation names something the form's module cannot see.
    """
    # Order matters: pydantic dataclasses are dataclasses first (they are built with
    # cls(**fields) like any dataclass), so the dataclass check comes before the pydantic
    # model check.
    if is_dataclass_type(tp):
        return Shape.DATACLASS, _dataclass_fields(tp)
    if is_pydantic_model(tp):
        return Shape.PYDANTIC_MODEL, _pydantic_model_fields(tp)
    if is_struct(tp):
        return Shape.STRUCT, _struct_fields(tp)
    if is_typeddict(tp):
        return Shape.TYPED_DICT, _typeddict_fields(tp)
    return None


def is_form_class(tp: Any) -> bool:
    """Whether ``tp`` declares fields: a dataclass, pydantic model, Struct or TypedDict."""
    return is_dataclass_type(tp) or is_pydantic_model(tp) or is_struct(tp) or is_typeddict(tp)


def is_dataclass_type(tp: Any) -> bool:
    """Whether ``tp`` is a dataclass (a pydantic dataclass included), not an instance."""
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def is_pydantic_model(tp: Any) -> TypeGuard[type[pydantic.BaseModel]]:
    """Whether ``tp`` is a pydantic model class."""
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def is_struct(tp: Any) -> TypeGuard[type[msgspec.Struct]]:
    """Whether ``tp`` is a msgspec Struct class, without importing msgspec."""
    msgspec_module = sys.modules.get("msgspec")
    return (
        msgspec_module is not None
        and isinstance(tp, type)
        and issubclass(tp, msgspec_module.Struct)
    )


def parameter_default(default: Any) -> tuple[Any, tuple[Any, ...]]:
    """Return a parameter's default and the field metadata its default carries.

    Both SDKs take pydantic's ``Field(default=..., description=...)`` as a tool parameter's
    default: its own default counts (``inspect.Parameter.empty`` if it has none), and the
    ``Field`` itself is metadata, like one inside ``Annotated``.
    """
    if isinstance(default, PydanticFieldInfo):
        value: Any = default.default
        return (inspect.Parameter.empty if value is PydanticUndefined else value), (default,)
    return default, ()


# --------------------------------------------------------------------------------------
# One reader per form vocabulary
# --------------------------------------------------------------------------------------


def _dataclass_fields(tp: type) -> list[DeclaredField]:
    hints = resolved_hints(tp)
    # pydantic dataclasses keep their Field(...) settings in __pydantic_fields__.
    pydantic_fields: dict[str, PydanticFieldInfo] = getattr(tp, "__pydantic_fields__", {})
    fields: list[DeclaredField] = []
    for dc_field in dataclasses.fields(tp):
        if not dc_field.init:
            continue
        metadata: tuple[Any, ...] = ()
        default: Any = dc_field.default
        factory: Callable[[], Any] | None = None
        if dc_field.default_factory is not dataclasses.MISSING:
            factory = dc_field.default_factory
        info = pydantic_fields.get(dc_field.name)
        if isinstance(default, PydanticFieldInfo):
            info = default
        key = dc_field.name
        if info is not None:
            metadata = (info,)
            default, factory = _pydantic_default(info)
            # A pydantic dataclass's constructor takes the alias, not the field name.
            key = _pydantic_alias(info) or key
        elif default is dataclasses.MISSING:
            default = MISSING
        fields.append(
            DeclaredField(
                name=dc_field.name,
                key=key,
                attr=key,
                annotation=hints.get(dc_field.name, dc_field.type),
                default=default,
                default_factory=factory,
                metadata=metadata,
            )
        )
    return fields


def _pydantic_model_fields(tp: type[pydantic.BaseModel]) -> list[DeclaredField]:
    if not tp.__pydantic_complete__:
        tp.model_rebuild()
    fields: list[DeclaredField] = []
    for name, info in tp.model_fields.items():
        default, factory = _pydantic_default(info)
        fields.append(
            DeclaredField(
                name=name,
                key=_pydantic_alias(info) or name,
                attr=name,
                annotation=info.annotation,
                default=default,
                default_factory=factory,
                metadata=(info, *info.metadata),
                pydantic_required=info.is_required(),
            )
        )
    return fields


def _pydantic_default(info: PydanticFieldInfo) -> tuple[Any, Callable[[], Any] | None]:
    factory = info.default_factory
    if factory is not None:
        # pydantic allows factories that take the validated data; those cannot run before
        # validation, so they are treated as "no default we can show".
        no_arguments: Callable[[], Any] = factory  # type: ignore[assignment]
        return MISSING, (no_arguments if _takes_no_arguments(factory) else None)
    if info.default is PydanticUndefined:
        return MISSING, None
    return info.default, None


def _takes_no_arguments(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature, such as `list`
        return True
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return not any(p.default is p.empty and p.kind in positional for p in params)


def _pydantic_alias(info: PydanticFieldInfo) -> str | None:
    return info.validation_alias if isinstance(info.validation_alias, str) else info.alias


def _struct_fields(tp: type[msgspec.Struct]) -> list[DeclaredField]:
    # Already loaded: `tp` is a Struct, so this costs a dictionary lookup.
    import msgspec  # noqa: PLC0415

    try:
        struct_fields = msgspec.structs.fields(tp)
    except NameError:
        resolved_hints(tp)  # raises the same FormDefinitionError as the other readers
        raise  # pragma: no cover  (get_type_hints failed in msgspec but not here)
    fields: list[DeclaredField] = []
    for info in struct_fields:
        factory = None if info.default_factory is msgspec.NODEFAULT else info.default_factory
        default = MISSING if info.default is msgspec.NODEFAULT else info.default
        fields.append(
            DeclaredField(
                name=info.name,
                key=info.encode_name,
                attr=info.name,
                annotation=info.type,
                default=default,
                default_factory=factory,
            )
        )
    return fields


def _typeddict_fields(tp: Any) -> list[DeclaredField]:
    hints = resolved_hints(tp)
    required_keys: frozenset[str] = getattr(tp, "__required_keys__", frozenset(hints))
    fields: list[DeclaredField] = []
    for name, hint in hints.items():
        annotation, qualifier = strip_typeddict_qualifiers(hint)
        # Required/NotRequired written on the field win over the class's `total`; with
        # `from __future__ import annotations` older Pythons miss them in __required_keys__.
        key_required = qualifier if qualifier is not None else name in required_keys
        fields.append(
            DeclaredField(
                name=name,
                key=name,
                attr=name,
                annotation=annotation,
                default=MISSING,
                default_factory=None,
                key_required=key_required,
            )
        )
    return fields
