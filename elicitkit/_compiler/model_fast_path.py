"""One validation for a pydantic-model form: a strict twin of the model's own validator.

The reference decoder (`elicitkit._compiler.decode`) checks every field in Python, then
hands the checked values to ``model_validate``, which checks them again: a valid answer
was validated twice (2.9x ``TypeAdapter(Model)`` in issue 22). For the models where it
gives the same result, `fast_decoder` builds, once per form, a pydantic-core validator of
the model's own core schema (its constraints, defaults and config) in which each field takes
only what elicitkit takes as it is; a valid answer is then validated once, in Rust, into
the model. Whatever it refuses goes to the reference decoder, which decides and words every
problem as before (a refused answer costs one more pydantic call, about 1 µs).

Each field of the twin refuses what pydantic's lax mode would take and elicitkit would
not, or would read otherwise: another wire type (``"36"`` for a number, ``1`` for a
boolean), ``None`` (absent, for elicitkit), ``""`` where elicitkit reads it as absent, a
whole number past `MAX_DIGITS`, a float that is not finite, a date that is not
``YYYY-MM-DD`` (pydantic takes ``1990-12-10T00:00:00``), an option that is not one of the
form's. A form gets a twin only when every field is of a kind whose checks pydantic does
exactly as elicitkit does, from the same constraints: text without a pattern or a format
other than ``date``, whole numbers and numbers with inclusive bounds, booleans, single
choices whose wire values are their values; and only when the model has no validators of
its own (each must run once per decode, and an answer the twin leaves to the reference
decoder would run them twice), does not change text (``str_strip_whitespace`` and the
like), keep extra keys or read a field by name as well as by alias, and holds no field the
form does not show. Per-call overrides never use it.
"""

from __future__ import annotations

import datetime as dt
import enum
from typing import Any

import annotated_types
import pydantic
import pydantic.fields
from pydantic_core import SchemaValidator, core_schema

from elicitkit._compiler.decode import DIGITS_LIMIT, OMIT, PlanEntry
from elicitkit._compiler.form_spec import Decoder, FieldSpec, FormSpec, Kind, Shape
from elicitkit._compiler.type_hints import without_none
from elicitkit._compiler.wire_formats import parse_date

_NOT_SET: Any = object()
_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"  # wire_formats.DATE_SHAPE, ASCII digits
# Field kinds of the twin.
_TEXT, _DATE, _INTEGER, _NUMBER, _BOOLEAN, _CHOICE = range(6)
# Model settings under which pydantic changes or keeps what elicitkit would not.
_UNSAFE_CONFIG = (
    "str_strip_whitespace",
    "str_to_lower",
    "str_to_upper",
    "str_min_length",
    "str_max_length",
    "strict",
    "populate_by_name",
    "validate_by_name",
    "coerce_numbers_to_str",
)
_BOUNDS = (annotated_types.MinLen, annotated_types.MaxLen, annotated_types.Ge, annotated_types.Le)


def fast_decoder(spec: FormSpec, plan: list[PlanEntry], reference: Decoder) -> Decoder | None:
    """The fast path for ``spec``'s answers, or ``None`` when it could differ from ``reference``.

    Args:
        spec: The compiled form (never one with per-call overrides: they change choices and
            defaults that the model's own validator knows nothing of).
        plan: Its fields' plans, in form order (for what "absent" means for each).
        reference: Its reference decoder, which judges whatever the fast path does not take.
    """
    tp: Any = spec.tp
    if spec.shape is not Shape.PYDANTIC_MODEL or not _model_is_plain(tp):
        return None
    if len(spec.fields) != len(tp.model_fields):
        return None  # a model field the form does not show: the client must not set it
    schema: Any = tp.__pydantic_core_schema__
    if schema.get("type") != "model" or schema["schema"].get("type") != "model-fields":
        return None  # definitions (a recursive or shared model), a root model: not here
    fields = schema["schema"]["fields"]
    if schema["schema"].get("computed_fields") or set(fields) != set(tp.model_fields):
        return None
    strict_fields: dict[str, Any] = {}
    for field, (key, _, _, required, blank_is_absent, absent, _) in zip(
        spec.fields, plan, strict=True
    ):
        info = tp.model_fields.get(field.attr)
        kind = _twin_kind(field, info)
        if kind is None or info is None or key != _validation_key(field.attr, info):
            return None
        if fields[field.attr].get("validation_alias") not in (None, key):
            return None
        if absent is not OMIT and not required:
            return None  # elicitkit fills it in itself when absent
        if required and fields[field.attr]["schema"].get("type") == "default":
            return None  # elicitkit requires what pydantic would default
        options = {choice.wire for choice in field.choices}
        inner = _strict(
            fields[field.attr]["schema"], kind, blank_is_absent=blank_is_absent, options=options
        )
        if inner is None:
            return None
        strict_fields[field.attr] = {**fields[field.attr], "schema": inner}
    strict_schema: Any = {**schema, "schema": {**schema["schema"], "fields": strict_fields}}
    twin = _validator(tp, strict_schema, schema.get("config"))
    if twin is None:
        return None
    validate = twin.validate_python

    def decode(content: Any) -> Any:
        if content.__class__ is not dict:  # pydantic would take an instance of the model
            return reference(content)
        try:
            return validate(content)
        except pydantic.ValidationError:
            return reference(content)  # elicitkit's messages, field by field

    return decode


def _validator(tp: Any, schema: Any, config: Any) -> SchemaValidator | None:
    """Build the twin, or ``None`` if pydantic-core would hand back the model's own validator.

    pydantic-core reuses a complete model's validator for any schema of that model class
    (a "prebuilt" validator), which would make the twin as lax as the model; it looks for
    ``__pydantic_complete__`` in the class's own ``__dict__``, so that flag is lowered while
    the twin is built, and restored. If a later pydantic-core still reuses the model's
    validator, the form keeps the reference decoder.
    """
    flag = "__pydantic_complete__"
    complete = tp.__dict__.get(flag, _NOT_SET)
    type.__setattr__(tp, flag, False)
    try:
        twin = SchemaValidator(schema, config)
    finally:
        if complete is _NOT_SET:
            type.__delattr__(tp, flag)
        else:
            type.__setattr__(tp, flag, complete)
    return None if repr(twin).split("validator=", 1)[-1].startswith("Prebuilt") else twin


def _strict(schema: Any, kind: int, *, blank_is_absent: bool, options: set[str]) -> Any:
    """A field's pydantic-core schema, taking only what elicitkit takes as it is; or ``None``.

    ``None`` ("absent" for elicitkit) and every wire type elicitkit does not take as it is
    are refused, for the reference decoder to judge.
    """
    # Kept around the field's own schema: pydantic's default when the key is absent, and
    # its own "after" steps (``use_enum_values``; a user's validators never get this far).
    wrappers: list[Any] = []
    while schema.get("type") in ("default", "function-after", "nullable"):
        if schema["type"] != "nullable":  # None means absent: the reference decoder's to fill
            wrappers.append(schema)
        schema = schema["schema"]
    leaf = schema.get("type")
    strict: Any
    if kind == _TEXT and leaf == "str":
        # A length bound (even 0) makes pydantic-core read the text as Unicode, which
        # refuses a lone surrogate as elicitkit does; 1 where "" means absent.
        floor = max(1 if blank_is_absent else 0, schema.get("min_length") or 0)
        strict = {**schema, "strict": True, "min_length": floor}
    elif kind == _INTEGER and leaf == "int":
        strict = {**schema, "strict": True, "gt": -DIGITS_LIMIT, "lt": DIGITS_LIMIT}
    elif kind == _NUMBER and leaf == "float":
        # gt/lt: a whole number past MAX_DIGITS (the reference decoder then judges it).
        strict = {
            **schema,
            "strict": True,
            "allow_inf_nan": False,
            "gt": -DIGITS_LIMIT,
            "lt": DIGITS_LIMIT,
        }
    elif kind == _BOOLEAN and leaf == "bool":
        strict = {**schema, "strict": True}
    elif kind == _CHOICE and leaf in ("literal", "enum", "str"):
        # Exactly the form's options, each turned into itself or its str Enum member.
        given = {m.value for m in schema["members"]} if leaf == "enum" else schema.get("expected")
        if leaf == "str" or given is None:
            strict = core_schema.literal_schema(sorted(options))
        elif set(given) == options and all(type(option) is str for option in given):
            strict = schema
        else:
            return None
    elif kind == _DATE and leaf == "date":
        shape = core_schema.str_schema(strict=True, pattern=_DATE_PATTERN)
        strict = core_schema.chain_schema([shape, schema])
    else:
        return None
    for wrapper in reversed(wrappers):
        strict = {**wrapper, "schema": strict}
    return strict


def _model_is_plain(tp: Any) -> bool:
    """Whether nothing in the model sees, changes or keeps what the twin cannot vouch for."""
    config: dict[str, Any] = dict(getattr(tp, "model_config", {}))
    if config.get("extra") == "allow" or any(config.get(name) for name in _UNSAFE_CONFIG):
        return False
    # No validators of its own: a validator runs once per decode, and an answer the twin
    # refuses (36.0 for a whole number, which elicitkit takes) goes on to the reference
    # decoder, whose model_validate would run the ones the twin had run already.
    decorators = tp.__pydantic_decorators__
    return not (decorators.field_validators or decorators.model_validators or decorators.validators)


def _twin_kind(field: FieldSpec, info: pydantic.fields.FieldInfo | None) -> int | None:
    """The twin's kind for ``field``, or ``None`` when pydantic could judge it otherwise."""
    if info is None or field.groups or field.pattern is not None or field.call_default:
        return None
    if field.exclusive_minimum is not None or field.exclusive_maximum is not None:
        return None
    bounds: dict[str, Any] = {}
    for item in info.metadata:
        if isinstance(item, _BOUNDS):
            name = type(item).__name__
            bounds[name] = getattr(item, "min_length", getattr(item, "max_length", None))
            if isinstance(item, annotated_types.Ge):
                bounds[name] = item.ge
            elif isinstance(item, annotated_types.Le):
                bounds[name] = item.le
        elif not type(item).__module__.startswith("elicitkit"):
            return None  # a pydantic constraint or validator the twin does not know
    if bounds != _expected_bounds(field):
        return None
    annotation = without_none(info.annotation)  # None is the reference decoder's
    kind = field.kind
    if kind is Kind.TEXT and field.format is None and field.convert is None:
        return _TEXT if annotation is str else None
    if kind is Kind.TEXT and field.format == "date" and field.convert is parse_date:
        return _DATE if annotation is dt.date else None
    if kind is Kind.INTEGER and field.convert is None:
        return _INTEGER if annotation is int else None
    if kind is Kind.NUMBER and field.convert is None:
        return _NUMBER if annotation is float else None
    if kind is Kind.BOOLEAN:
        return _BOOLEAN if annotation is bool else None
    if kind is Kind.CHOICE and all(_plain_choice(c.wire, c.value) for c in field.choices):
        return _CHOICE
    return None


def _validation_key(name: str, info: pydantic.fields.FieldInfo) -> str | None:
    """The one key pydantic reads the field from (``None``: several, or not a plain key)."""
    alias = info.validation_alias
    if alias is None:
        return info.alias or name
    return alias if isinstance(alias, str) else None


def _expected_bounds(field: FieldSpec) -> dict[str, Any]:
    pairs = (
        ("MinLen", field.min_length),
        ("MaxLen", field.max_length),
        ("Ge", field.minimum),
        ("Le", field.maximum),
    )
    return {name: value for name, value in pairs if value is not None}


def _plain_choice(wire: str, value: object) -> bool:
    """Whether pydantic turns ``wire`` into exactly ``value`` (a Literal, a str Enum)."""
    if isinstance(value, enum.Enum):
        return type(value.value) is str and value.value == wire
    return type(value) is str and value == wire
