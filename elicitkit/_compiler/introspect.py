"""Type introspection: the only module that reads type hints.

Every form type (dataclass, pydantic model, msgspec Struct, TypedDict, or a bare type for a
one-field form) becomes one `FormSpec` here, and every field becomes one `FieldSpec`,
whatever vocabulary declared its title, bounds or lengths. Shapes elicitkit cannot express
fail here with a `FormDefinitionError` that names the form, the field, the reason and the fix.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union, cast

import msgspec
import pydantic
import typing_extensions
from pydantic.fields import FieldInfo as PydanticFieldInfo
from pydantic_core import PydanticUndefined
from typing_extensions import TypeAliasType

from elicitkit._compiler.field_checks import URL_MODE_ADVICE, check_not_secret, constraints
from elicitkit._compiler.field_settings import FieldSettings
from elicitkit._compiler.form_spec import (
    MISSING,
    Choice,
    FieldSpec,
    FormSpec,
    Group,
    Kind,
    LabelStyle,
    Shape,
)
from elicitkit._compiler.names import humanise, quoted, styled_title, type_name
from elicitkit._compiler.nesting import flatten_group
from elicitkit._compiler.prefill import wire_default
from elicitkit._compiler.wire_formats import (
    has_surrogate,
    parse_date,
    parse_datetime,
    sendable_text,
)
from elicitkit.errors import FormDefinitionError

SCALAR_KEY = "value"
"""The wire key of the single field of a one-field form built from a bare type."""

_MULTI_CONTAINERS: dict[Any, type] = {list: list, set: set, frozenset: frozenset, tuple: tuple}
_MAPPING_ORIGINS = (dict, Mapping, typing.Mapping, typing.MutableMapping)
_UNION_ORIGINS: tuple[Any, ...] = (Union, types.UnionType)

_SCALAR_TITLES: dict[object, str] = {
    "date": "Date",
    "date-time": "Date and time",
    "email": "Email",
    "uri": "Link",
    Kind.TEXT: "Answer",
    Kind.INTEGER: "Number",
    Kind.NUMBER: "Number",
    Kind.BOOLEAN: "Confirm",
    Kind.CHOICE: "Choice",
    Kind.MULTI_CHOICE: "Choices",
}


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


def inspect_form(tp: Any, *, message: str | None = None) -> FormSpec:
    """Describe ``tp`` as a flat form.

    Args:
        tp: A dataclass, pydantic model or dataclass, msgspec Struct, TypedDict, or a bare
            field type for a one-field form.
        message: The form's default message, if the author set one.

    Returns:
        The form's `FormSpec`.

    Raises:
        FormDefinitionError: ``tp`` cannot be expressed as a flat MCP form.
    """
    # Order matters: pydantic dataclasses are dataclasses first (they are built with
    # cls(**fields) like any dataclass), so the dataclass check comes before the pydantic
    # model check.
    fields: list[FieldSpec]
    if _is_dataclass_type(tp):
        fields = _dataclass_fields(tp)
        shape = Shape.DATACLASS
    elif _is_pydantic_model(tp):
        fields = _pydantic_model_fields(tp)
        shape = Shape.PYDANTIC_MODEL
    elif _is_struct(tp):
        fields = _struct_fields(tp)
        shape = Shape.STRUCT
    elif typing_extensions.is_typeddict(tp):
        fields = _typeddict_fields(tp)
        shape = Shape.TYPED_DICT
    else:
        return _scalar_form(tp, message)

    name = type_name(tp)
    if not fields:
        raise FormDefinitionError(
            f"Cannot build a form from {name}: it has no fields, and clients show an empty "
            "form as a dialog that cannot be answered. Add at least one field, such as a "
            "bool to confirm."
        )
    _check_unique_keys(name, fields)
    return FormSpec(name=name, tp=tp, shape=shape, fields=tuple(fields), message=_sendable(message))


def _scalar_form(tp: Any, message: str | None) -> FormSpec:
    name = type_name(tp)
    spec = _build_field(
        form=name,
        name=SCALAR_KEY,
        key=SCALAR_KEY,
        annotation=tp,
        default=MISSING,
        default_factory=None,
        extra=(),
        scalar=True,
    )
    return FormSpec(
        name=name, tp=tp, shape=Shape.SCALAR, fields=(spec,), message=_sendable(message)
    )


def _sendable(text: str | None) -> str | None:
    return None if text is None else sendable_text(text)


def _check_unique_keys(form: str, fields: list[FieldSpec]) -> None:
    seen: dict[str, str] = {}
    for spec in fields:
        if has_surrogate(spec.key):
            raise FormDefinitionError(
                f"Cannot build a form from {form}: the wire key {spec.key!r} of field "
                f"'{spec.name}' holds a surrogate code point, which no JSON encoder accepts. "
                "Give the field a key of valid Unicode text."
            )
        if spec.key in seen:
            raise FormDefinitionError(
                f"Cannot build a form from {form}: fields '{seen[spec.key]}' and "
                f"'{spec.name}' both use the wire key '{spec.key}'. Give one of them "
                "another alias."
            )
        seen[spec.key] = spec.name


# --------------------------------------------------------------------------------------
# One reader per form vocabulary
# --------------------------------------------------------------------------------------


def _resolved_hints(tp: Any) -> dict[str, Any]:
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


def accepts_none(annotation: Any) -> bool:
    """Whether an annotation admits ``None`` (``X | None``, ``Optional[X]``, through aliases)."""
    try:
        return _unwrap(annotation, FieldSettings(), FormDefinitionError).optional
    except FormDefinitionError:
        return False


def value_type(annotation: Any) -> Any:
    """Return the one type an annotation holds, aliases, ``Annotated`` and ``| None`` peeled.

    ``None`` if it holds no single type (a union of several, or ``None`` alone).
    """
    try:
        return _unwrap(annotation, FieldSettings(), FormDefinitionError).core
    except FormDefinitionError:
        return None


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


def admitting_text(annotation: Any) -> Any:
    """Return a return annotation widened to ``annotation | str``, unless it admits text."""
    annotated = typing.get_origin(annotation) is typing.Annotated
    inner = typing.get_args(annotation)[0] if annotated else annotation
    options = typing.get_args(inner) if typing.get_origin(inner) in _UNION_ORIGINS else (inner,)
    if any(option in (str, Any, object) for option in options):
        return annotation
    return cast("Any", Union)[annotation, str]


def _dataclass_fields(tp: type) -> list[FieldSpec]:
    hints = _resolved_hints(tp)
    # pydantic dataclasses keep their Field(...) settings in __pydantic_fields__.
    pydantic_fields: dict[str, PydanticFieldInfo] = getattr(tp, "__pydantic_fields__", {})
    specs: list[FieldSpec] = []
    for dc_field in dataclasses.fields(tp):
        if not dc_field.init:
            continue
        extra: list[Any] = []
        default: Any = dc_field.default
        factory: Callable[[], Any] | None = None
        if dc_field.default_factory is not dataclasses.MISSING:
            factory = dc_field.default_factory
        info = pydantic_fields.get(dc_field.name)
        if isinstance(default, PydanticFieldInfo):
            info = default
        key = dc_field.name
        if info is not None:
            extra.append(info)
            default, factory = _pydantic_default(info)
            # A pydantic dataclass's constructor takes the alias, not the field name.
            key = _pydantic_alias(info) or key
        elif default is dataclasses.MISSING:
            default = MISSING
        specs.extend(
            _build_fields(
                owner=tp,
                form=type_name(tp),
                name=dc_field.name,
                key=key,
                attr=key,
                annotation=hints.get(dc_field.name, dc_field.type),
                default=default,
                default_factory=factory,
                extra=extra,
            )
        )
    return specs


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


def _is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def _is_pydantic_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _pydantic_model_fields(tp: type[pydantic.BaseModel]) -> list[FieldSpec]:
    if not tp.__pydantic_complete__:
        tp.model_rebuild()
    specs: list[FieldSpec] = []
    for name, info in tp.model_fields.items():
        default, factory = _pydantic_default(info)
        specs.extend(
            _build_fields(
                owner=tp,
                form=type_name(tp),
                name=name,
                key=_pydantic_alias(info) or name,
                annotation=info.annotation,
                default=default,
                default_factory=factory,
                extra=[info, *info.metadata],
                pydantic_required=info.is_required(),
            )
        )
    return specs


def _pydantic_alias(info: PydanticFieldInfo) -> str | None:
    return info.validation_alias if isinstance(info.validation_alias, str) else info.alias


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _struct_fields(tp: type[msgspec.Struct]) -> list[FieldSpec]:
    try:
        struct_fields = msgspec.structs.fields(tp)
    except NameError:
        _resolved_hints(tp)  # raises the same FormDefinitionError as the other readers
        raise  # pragma: no cover  (get_type_hints failed in msgspec but not here)
    specs: list[FieldSpec] = []
    for info in struct_fields:
        factory = None if info.default_factory is msgspec.NODEFAULT else info.default_factory
        default = MISSING if info.default is msgspec.NODEFAULT else info.default
        specs.extend(
            _build_fields(
                owner=tp,
                form=type_name(tp),
                name=info.name,
                key=info.encode_name,
                annotation=info.type,
                default=default,
                default_factory=factory,
                extra=(),
            )
        )
    return specs


def _typeddict_fields(tp: Any) -> list[FieldSpec]:
    hints = _resolved_hints(tp)
    required_keys: frozenset[str] = getattr(tp, "__required_keys__", frozenset(hints))
    specs: list[FieldSpec] = []
    for name, hint in hints.items():
        annotation, qualifier = _strip_typeddict_qualifiers(hint)
        # Required/NotRequired written on the field win over the class's `total`; with
        # `from __future__ import annotations` older Pythons miss them in __required_keys__.
        key_required = qualifier if qualifier is not None else name in required_keys
        specs.extend(
            _build_fields(
                owner=tp,
                form=type_name(tp),
                name=name,
                key=name,
                annotation=annotation,
                default=MISSING,
                default_factory=None,
                extra=(),
                key_required=key_required,
            )
        )
    return specs


def _strip_typeddict_qualifiers(hint: Any) -> tuple[Any, bool | None]:
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
# One field
# --------------------------------------------------------------------------------------


@dataclass
class _Unwrapped:
    core: Any
    optional: bool
    settings: FieldSettings


def _unwrap(
    annotation: Any, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> _Unwrapped:
    """Peel aliases, NewType, Annotated and ``| None`` off an annotation."""
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
            return _Unwrapped(core=tp, optional=optional, settings=settings)


def _is_typing_alias_type(tp: Any) -> bool:
    alias_type = getattr(typing, "TypeAliasType", None)  # Python 3.12+ `type X = ...`
    return alias_type is not None and isinstance(tp, alias_type)


def _build_fields(*, owner: Any, **kwargs: Any) -> list[FieldSpec]:
    """Describe one declared field as wire fields: one, or a nested form's, flattened."""
    name: str = kwargs["name"]
    form: str = kwargs["form"]

    def problem(reason: str) -> FormDefinitionError:
        return FormDefinitionError(f"Cannot build a form field for '{name}' of {form}: {reason}")

    settings = FieldSettings()
    for item in kwargs["extra"]:
        settings.read(item)
    unwrapped = _unwrap(kwargs["annotation"], settings, problem)
    if not _is_form_class(unwrapped.core):
        return [_build_field(**kwargs)]
    settings.apply_own()
    default, factory = kwargs["default"], kwargs["default_factory"]
    key_required: bool = kwargs.get("key_required", True)
    optional = (
        unwrapped.optional
        or default is not MISSING
        or factory is not None
        or not key_required
        or kwargs.get("pydantic_required") is False
    )
    key: str = kwargs["key"]
    title = sendable_text(settings.title or styled_title(name, settings.title_style))

    def group(spec: FormSpec) -> Group:
        return Group(
            attr=kwargs.get("attr") or name,
            key=key,
            name=name,
            title=title,
            spec=spec,
            optional=optional,
            default=default,
            default_factory=factory,
            omit_when_absent=not key_required,
        )

    return flatten_group(
        outer=owner, inner=unwrapped.core, group=group, inspect=inspect_form, problem=problem
    )


def _build_field(
    *,
    form: str,
    name: str,
    key: str,
    annotation: Any,
    default: Any,
    default_factory: Callable[[], Any] | None,
    extra: Iterable[Any],
    attr: str | None = None,
    scalar: bool = False,
    key_required: bool = True,
    pydantic_required: bool | None = None,
) -> FieldSpec:
    """Describe one field.

    Args:
        form: The form's name, for messages.
        name: The field's name in the author's type (titles, messages, the secret check).
        key: The wire key.
        annotation: The field's annotation as written.
        default: The Python default, or `MISSING`.
        default_factory: A zero-argument default factory, or ``None``.
        extra: Metadata found outside the annotation (pydantic's FieldInfo).
        attr: The constructor's keyword for the field (default: ``name``).
        scalar: The field is the one field of a bare-type form.
        key_required: For a TypedDict: whether the key itself is required.
        pydantic_required: pydantic's own verdict, when the field comes from a model.
    """

    def problem(reason: str) -> FormDefinitionError:
        if scalar:
            return FormDefinitionError(f"Cannot build a one-field form from {form}: {reason}")
        return FormDefinitionError(f"Cannot build a form field for '{name}' of {form}: {reason}")

    settings = FieldSettings()
    for item in extra:
        settings.read(item)
    unwrapped = _unwrap(annotation, settings, problem)
    settings.apply_own()
    core = unwrapped.core
    # `x: int = None` is a common shorthand for an optional field.
    optional = unwrapped.optional or default is None
    has_default = default is not MISSING or default_factory is not None
    required = key_required and not optional and not has_default
    if pydantic_required is False:
        required = False
    if settings.required is not None:
        required = _check_required(
            settings.required,
            key_required=key_required,
            may_be_absent=optional or has_default or pydantic_required is False,
            problem=problem,
        )
    if settings.title_style not in (None, "sentence", "title", "name", "omit"):
        raise problem(
            f"title_style={settings.title_style!r} is not a title style. Use 'sentence', "
            "'title', 'name' or 'omit'."
        )

    kind, extras = _classify(core, settings, problem)
    check_not_secret(name, key, settings, problem)
    _check_label_style(kind, settings.label_style, problem)
    if settings.title_style == "omit" and settings.title:
        raise problem(
            f"it has the title {settings.title!r} and title_style='omit', which contradict "
            "each other. Remove one of them."
        )
    if settings.title:
        title = settings.title
    elif not scalar:
        title = styled_title(name, settings.title_style)
    elif kind is Kind.CHOICE and isinstance(core, type):
        title = humanise(core.__name__)  # ask(Color) is titled "Color"
    else:
        title = _SCALAR_TITLES.get(extras.get("format"), _SCALAR_TITLES[kind])
    written = type_name(annotation)
    if settings.label_style is not None and not extras["titled"]:
        # An explicit label style sends labels: humanised member names, or the option.
        unlabelled: tuple[Choice, ...] = extras["choices"]
        labelled = tuple(Choice(c.wire, c.value, _default_label(c)) for c in unlabelled)
        extras = dict(extras)
        extras.update(titled=True, choices=labelled)
    fmt: str | None = extras.get("format")
    spec = FieldSpec(
        key=key,
        attr=attr or name,
        name=name,
        omit_when_absent=not key_required,
        kind=kind,
        title=sendable_text(title),
        description=_sendable(settings.description),
        required=required,
        default=default,
        default_factory=default_factory,
        type_name=written,
        label_style=settings.label_style,
        show_title=settings.title_style != "omit",
        **extras,
        **constraints(kind, fmt, written, settings, problem),
    )
    if settings.prefill is not MISSING:
        spec = dataclasses.replace(spec, prefill=_checked_prefill(spec, settings.prefill, problem))
    return spec


def _check_required(
    required: bool,
    *,
    key_required: bool,
    may_be_absent: bool,
    problem: Callable[[str], FormDefinitionError],
) -> bool:
    if required and not key_required:
        raise problem(
            "it is a NotRequired key marked FormField(required=True), which contradict each "
            "other. Remove one of them."
        )
    if not required and not may_be_absent:
        raise problem(
            "it is marked FormField(required=False) but has no default and does not accept "
            "None, so an unanswered field would have no value. Give it a default, or make it "
            "optional (X | None)."
        )
    return required


def _check_label_style(
    kind: Kind, style: LabelStyle | None, problem: Callable[[str], FormDefinitionError]
) -> None:
    if style is None:
        return
    if style not in ("oneOf", "enumNames"):
        raise problem(f"label_style={style!r} is not a label style. Use 'oneOf' or 'enumNames'.")
    if kind not in (Kind.CHOICE, Kind.MULTI_CHOICE):
        raise problem(
            f"label_style={style!r} applies only to choice fields, and this field is "
            f"{kind.value}. Remove it."
        )
    if style == "enumNames" and kind is Kind.MULTI_CHOICE:
        raise problem(
            "label_style='enumNames' has no multi-select form: the deprecated enumNames "
            "exists only for single choices. Remove it; multi-selects carry labels with anyOf."
        )


def _checked_prefill(
    spec: FieldSpec, value: Any, problem: Callable[[str], FormDefinitionError]
) -> Any:
    probe = dataclasses.replace(spec, default=value, default_factory=None)
    if value is None or wire_default(probe) is MISSING:
        raise problem(
            f"the prefill {value!r} does not fit the field ({spec.type_name}). Give a value "
            "of the field's type (for a choice, one of its options)."
        )
    return value


def _classify(
    core: Any, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> tuple[Kind, dict[str, Any]]:
    """Map the unwrapped type to a wire kind and the FieldSpec settings that go with it."""
    origin = typing.get_origin(core)
    if core is Any or core is object:
        raise problem(
            f"{type_name(core)} says nothing about what to ask. Annotate the field with a "
            "concrete type such as str, int, bool, a Literal or an Enum."
        )
    if core is bool:
        return Kind.BOOLEAN, {}
    if isinstance(core, type) and issubclass(core, enum.Enum):
        return Kind.CHOICE, _choice_settings(_enum_choices(core, problem), settings, problem)
    if origin is Literal:
        return Kind.CHOICE, _choice_settings(_literal_choices(core, problem), settings, problem)
    if origin in _MULTI_CONTAINERS or core in _MULTI_CONTAINERS:
        return Kind.MULTI_CHOICE, _multi_settings(core, settings, problem)
    if origin in _MAPPING_ORIGINS or core in _MAPPING_ORIGINS:
        raise problem(
            f"{type_name(core)} is a nested mapping, and MCP forms are flat. Declare one "
            "field per key instead."
        )
    if _is_secret_type(core):
        raise problem(f"{type_name(core)} holds a secret, and {URL_MODE_ADVICE}.")
    if _is_form_class(core):
        raise problem(
            f"{type_name(core)} is a nested form, and nested forms are not supported yet. "
            f"Move its fields into this form, or ask for {type_name(core)} with a separate "
            "ask()."
        )
    if core is str:
        return Kind.TEXT, {"format": settings.format}
    if core is pydantic.EmailStr:
        return Kind.TEXT, {"format": "email"}
    if _is_url_type(core):
        return Kind.TEXT, {"format": "uri", "convert": core}
    if core is int:
        return Kind.INTEGER, {}
    if core is float:
        return Kind.NUMBER, {}
    if core is decimal.Decimal:
        return Kind.NUMBER, {"convert": _to_decimal}
    if core is dt.datetime:  # before date: every datetime is a date
        return Kind.TEXT, {"format": "date-time", "convert": parse_datetime}
    if core is dt.date:
        return Kind.TEXT, {"format": "date", "convert": parse_date}
    if isinstance(core, type) and getattr(core, "__annotations__", None):
        raise problem(
            f"{type_name(core)} is a plain class, and elicitkit reads fields only from "
            "dataclasses, pydantic models, msgspec Structs and TypedDicts. Decorate it with "
            "@dataclass."
        )
    raise problem(
        f"{type_name(core)} has no form field. Use str, int, float, bool, Decimal, date, "
        "datetime, a Literal, an Enum, or a list of a Literal or an Enum."
    )


def _to_decimal(value: float) -> decimal.Decimal:
    if isinstance(value, int):
        return decimal.Decimal(value)  # exact, and no str() of a huge int
    # Via str, so 0.1 becomes Decimal("0.1") rather than its binary approximation.
    return decimal.Decimal(str(value))


def _is_form_class(tp: Any) -> bool:
    return (
        _is_dataclass_type(tp)
        or _is_pydantic_model(tp)
        or _is_struct(tp)
        or typing_extensions.is_typeddict(tp)
    )


def _is_secret_type(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(
        tp, (pydantic.SecretStr, pydantic.SecretBytes, pydantic.types.Secret)
    )


def _is_url_type(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.AnyUrl)


# --------------------------------------------------------------------------------------
# Choices
# --------------------------------------------------------------------------------------


def _enum_choices(
    tp: type[enum.Enum], problem: Callable[[str], FormDefinitionError]
) -> list[Choice]:
    members = list(tp)
    if not members:
        raise problem(f"{type_name(tp)} has no members, so there is nothing to choose.")
    labels: Mapping[str, str] = getattr(tp, "__labels__", None) or {}
    unknown = set(labels) - set(tp.__members__)
    if unknown:
        raise problem(
            f"{type_name(tp)}.__labels__ names {quoted(unknown)}, which "
            f"{'is not a member' if len(unknown) == 1 else 'are not members'}. Key "
            "__labels__ by member name."
        )
    choices: list[Choice] = []
    for member in members:
        value = member.value
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise problem(
                f"{type_name(tp)}.{member.name} has the value {value!r}; choices travel as "
                "strings, so Enum values must be str or int. Give the members str or int "
                "values."
            )
        choices.append(Choice(wire=str(value), value=member, label=labels.get(member.name)))
    return choices


def _literal_choices(tp: Any, problem: Callable[[str], FormDefinitionError]) -> list[Choice]:
    choices: list[Choice] = []
    for value in typing_extensions.get_args(tp):
        if isinstance(value, enum.Enum):
            wire = str(value.value)
        elif isinstance(value, bool):
            wire = "true" if value else "false"
        elif isinstance(value, (str, int)):
            wire = str(value)
        else:
            raise problem(
                f"{type_name(tp)} contains {value!r}; choices travel as strings, so Literal "
                "values must be str, int or bool."
            )
        choices.append(Choice(wire=wire, value=value, label=None))
    return choices


def choice_settings(
    choices: list[Choice],
    labels: Mapping[object, str] | None,
    problem: Callable[[str], FormDefinitionError],
) -> dict[str, Any]:
    """Check a list of options and apply labels; return ``choices`` and ``titled``."""
    return _choice_settings(choices, FieldSettings(labels=labels), problem)


def _choice_settings(
    choices: list[Choice], settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> dict[str, Any]:
    wires = [choice.wire for choice in choices]
    unsendable = [wire for wire in wires if has_surrogate(wire)]
    if unsendable:
        raise problem(
            f"the option {unsendable[0]!r} holds a surrogate code point, which no JSON encoder "
            "accepts, and an option must come back exactly as it was sent. Use options of "
            "valid Unicode text."
        )
    seen: set[str] = set()
    duplicates: set[str] = set()
    for wire in wires:  # a set, not list.count: a Literal built from data may be long
        if wire in seen:
            duplicates.add(wire)
        seen.add(wire)
    if duplicates:
        raise problem(
            f"the options {quoted(duplicates)} appear more than once on the wire (choices "
            "travel as strings, so 1 and '1' collide). Make every option's string distinct."
        )
    if settings.labels is not None:
        choices = _apply_labels(choices, settings.labels, problem)
    titled = any(choice.label is not None for choice in choices)
    if titled:
        choices = [
            Choice(choice.wire, choice.value, sendable_text(choice.label))
            if choice.label is not None
            else Choice(choice.wire, choice.value, _default_label(choice))
            for choice in choices
        ]
    return {"choices": tuple(choices), "titled": titled}


def _apply_labels(
    choices: list[Choice],
    labels: Mapping[object, str],
    problem: Callable[[str], FormDefinitionError],
) -> list[Choice]:
    matched: set[object] = set()
    labelled: list[Choice] = []
    for choice in choices:
        label = choice.label
        for candidate in (choice.value, getattr(choice.value, "value", MISSING), choice.wire):
            if _hashable(candidate) and candidate in labels:
                label = labels[candidate]
                matched.add(candidate)
                break
        labelled.append(Choice(choice.wire, choice.value, label))
    unknown = [key for key in labels if key not in matched]
    if unknown:
        raise problem(
            f"the labels name {quoted(unknown)}, which "
            f"{'is not an option' if len(unknown) == 1 else 'are not options'}. Key labels "
            "by Enum member, Literal value, or the option's string."
        )
    return labelled


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _default_label(choice: Choice) -> str:
    if isinstance(choice.value, enum.Enum):
        return humanise(choice.value.name)
    return choice.wire


def _multi_settings(
    core: Any, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> dict[str, Any]:
    origin = typing.get_origin(core) or core
    args = typing.get_args(core)
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        raise problem(
            f"{type_name(core)} is a fixed-length tuple, which a form cannot express. Use "
            "tuple[X, ...] for a multi-select, or separate fields."
        )
    item = args[0] if args else Any
    item_settings = FieldSettings()
    inner = _unwrap(item, item_settings, problem)
    item_core = inner.core
    is_choice = (isinstance(item_core, type) and issubclass(item_core, enum.Enum)) or (
        typing.get_origin(item_core) is Literal
    )
    if not is_choice or inner.optional:
        raise problem(
            f"{type_name(core)} has no flat JSON form. Use list[Literal[...]] or "
            "list[SomeEnum] for a multi-select."
        )
    item_settings.apply_own()
    if item_settings.labels is not None and settings.labels is None:
        settings.labels = item_settings.labels
    if isinstance(item_core, type) and issubclass(item_core, enum.Enum):
        choices = _enum_choices(item_core, problem)
    else:
        choices = _literal_choices(item_core, problem)
    return {**_choice_settings(choices, settings, problem), "container": _MULTI_CONTAINERS[origin]}
