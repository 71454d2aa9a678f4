"""Introspection: a form type -> one `FormSpec`, every field -> one `FieldSpec`.

`inspect_form` is the compiler's entry point. It takes the fields a form type declares
(`field_sources`), reads each annotation and its metadata (`type_hints`, `field_settings`),
decides the field's kind (`classify`), checks it (`field_checks`) and settles its title,
required-ness and prefill. Shapes elicitkit cannot express fail here with a
`FormDefinitionError` that names the form, the field, the reason and the fix.

A field whose type is itself a form recurses: `inspect_form` -> `_build_fields` ->
`nesting.flatten_group` -> `inspect_form`. The recursion stays in this module:
`flatten_group` is handed `inspect_form` as a function, and `field_sources` only returns
records, so no module below this one imports it back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from elicitkit._compiler.choices import default_label
from elicitkit._compiler.classify import classify
from elicitkit._compiler.field_checks import check_not_secret, constraints
from elicitkit._compiler.field_settings import FieldSettings
from elicitkit._compiler.field_sources import DeclaredField, declared_fields, is_form_class
from elicitkit._compiler.form_spec import (
    MISSING,
    NO_STYLE,
    Choice,
    FieldSpec,
    FormSpec,
    FormStyle,
    Group,
    Kind,
    LabelStyle,
    Shape,
)
from elicitkit._compiler.names import humanise, styled_title
from elicitkit._compiler.nesting import flatten_group
from elicitkit._compiler.prefill import wire_default
from elicitkit._compiler.type_hints import type_name, unwrap, without_metadata
from elicitkit._compiler.wire_formats import has_surrogate, sendable_text
from elicitkit.errors import FormDefinitionError

STYLE_ATTRIBUTE = "__elicitkit_style__"
"""Where ``@form(title_style=..., label_style=...)`` records a form class's `FormStyle`.

On the class itself, so the style holds wherever the class is compiled: asked directly,
nested in another form, or subclassed (a subclass inherits it, as it inherits fields).
"""

TITLE_STYLES: tuple[str, ...] = ("sentence", "title", "name", "omit")
LABEL_STYLES: tuple[str, ...] = ("oneOf", "enumNames")

SCALAR_KEY = "value"
"""The wire key of the single field of a one-field form built from a bare type."""

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


def inspect_form(
    tp: Any,
    *,
    message: str | None = None,
    style: FormStyle | None = None,
    enclosing: FormStyle | None = None,
) -> FormSpec:
    """Describe ``tp`` as a flat form.

    Args:
        tp: A dataclass, pydantic model or dataclass, msgspec Struct, TypedDict, or a bare
            field type for a one-field form.
        message: The form's default message, if the author set one.
        style: The form's own wire style; by default the one ``@form`` recorded on the
            class (`STYLE_ATTRIBUTE`), if any.
        enclosing: The style of the form ``tp`` is nested in, for what ``tp``'s own leaves
            unset.

    Returns:
        The form's `FormSpec`.

    Raises:
        FormDefinitionError: ``tp`` cannot be expressed as a flat MCP form.
    """
    declared = declared_fields(tp)
    if declared is None:
        return _scalar_form(tp, message)
    shape, sources = declared
    name = type_name(tp)
    own = style if style is not None else class_style(tp)
    in_force = (own or NO_STYLE).under(enclosing)
    fields = [
        spec
        for source in sources
        for spec in _build_fields(source, owner=tp, form=name, style=in_force)
    ]
    if not fields:
        raise FormDefinitionError(
            f"Cannot build a form from {name}: it has no fields, and clients show an empty "
            "form as a dialog that cannot be answered. Add at least one field, such as a "
            "bool to confirm."
        )
    _check_unique_keys(name, fields)
    return FormSpec(
        name=name,
        tp=tp,
        shape=shape,
        fields=tuple(fields),
        message=_sendable(message),
        stem=name,
    )


def class_style(tp: Any) -> FormStyle | None:
    """The `FormStyle` ``@form`` recorded on a form class (or a base class), if any."""
    found = getattr(tp, STYLE_ATTRIBUTE, None) if isinstance(tp, type) else None
    return found if isinstance(found, FormStyle) else None


def check_style(form: str, style: FormStyle) -> None:
    """Refuse a form-level style that is not one (``@form(title_style="Title")``).

    Raises:
        FormDefinitionError: A setting holds no style.
    """
    if style.title_style is not None and style.title_style not in TITLE_STYLES:
        raise FormDefinitionError(
            f"Cannot build a form from {form}: title_style={style.title_style!r} is not a "
            "title style. Use 'sentence', 'title', 'name' or 'omit'."
        )
    if style.label_style is not None and style.label_style not in LABEL_STYLES:
        raise FormDefinitionError(
            f"Cannot build a form from {form}: label_style={style.label_style!r} is not a "
            "label style. Use 'oneOf' or 'enumNames'."
        )


def _scalar_form(tp: Any, message: str | None) -> FormSpec:
    name = type_name(tp)
    source = DeclaredField(
        name=SCALAR_KEY,
        key=SCALAR_KEY,
        attr=SCALAR_KEY,
        annotation=tp,
        default=MISSING,
        default_factory=None,
    )
    spec = _build_field(source, form=name, style=NO_STYLE, scalar=True)
    return FormSpec(
        name=name,
        tp=tp,
        shape=Shape.SCALAR,
        fields=(spec,),
        message=_sendable(message),
        stem=type_name(without_metadata(tp)),
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
# One field
# --------------------------------------------------------------------------------------


def _build_fields(
    source: DeclaredField, *, owner: Any, form: str, style: FormStyle
) -> list[FieldSpec]:
    """Describe one declared field as wire fields: one, or a nested form's, flattened.

    Args:
        source: The field as its form type declares it.
        owner: The form type declaring it.
        form: The form's name, for messages.
        style: The form's wire style, for what the field leaves unset.
    """
    name = source.name

    def problem(reason: str) -> FormDefinitionError:
        return FormDefinitionError(f"Cannot build a form field for '{name}' of {form}: {reason}")

    settings = FieldSettings()
    for item in source.metadata:
        settings.read(item)
    unwrapped = unwrap(source.annotation, settings, problem)
    if not is_form_class(unwrapped.core):
        return [_build_field(source, form=form, style=style)]
    settings.apply_own()
    default, factory = source.default, source.default_factory
    optional = (
        unwrapped.optional
        or default is not MISSING
        or factory is not None
        or not source.key_required
        or source.pydantic_required is False
    )
    title = sendable_text(
        settings.title or styled_title(name, settings.title_style or style.title_style)
    )

    def group(spec: FormSpec) -> Group:
        return Group(
            attr=source.attr,
            key=source.key,
            name=name,
            title=title,
            spec=spec,
            optional=optional,
            default=default,
            default_factory=factory,
            omit_when_absent=not source.key_required,
        )

    # Recursion: flatten_group calls inspect_form on the nested type (see the docstring).
    def inspect(inner: Any) -> FormSpec:
        return inspect_form(inner, enclosing=style)  # the nested class's own style first

    return flatten_group(
        outer=owner, inner=unwrapped.core, group=group, inspect=inspect, problem=problem
    )


def _build_field(
    source: DeclaredField, *, form: str, style: FormStyle, scalar: bool = False
) -> FieldSpec:
    """Describe one field.

    Args:
        source: The field as its form type declares it.
        form: The form's name, for messages.
        style: The form's wire style, for what the field's own settings leave unset.
        scalar: The field is the one field of a bare-type form.
    """
    name, key, annotation = source.name, source.key, source.annotation
    default, default_factory = source.default, source.default_factory
    key_required, pydantic_required = source.key_required, source.pydantic_required

    def problem(reason: str) -> FormDefinitionError:
        if scalar:
            return FormDefinitionError(f"Cannot build a one-field form from {form}: {reason}")
        return FormDefinitionError(f"Cannot build a form field for '{name}' of {form}: {reason}")

    settings = FieldSettings()
    for item in source.metadata:
        settings.read(item)
    unwrapped = unwrap(annotation, settings, problem)
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
    if settings.title_style is not None and settings.title_style not in TITLE_STYLES:
        raise problem(
            f"title_style={settings.title_style!r} is not a title style. Use 'sentence', "
            "'title', 'name' or 'omit'."
        )

    kind, extras = classify(core, settings, problem)
    check_not_secret(name, key, settings, problem)
    _check_label_style(kind, settings.label_style, problem)
    if settings.title_style == "omit" and settings.title:
        raise problem(
            f"it has the title {settings.title!r} and title_style='omit', which contradict "
            "each other. Remove one of them."
        )
    # The form's style fills what the field leaves unset; a title given is always sent.
    title_style = settings.title_style or style.title_style
    label_style = settings.label_style or _form_label_style(kind, style)
    if settings.title:
        title = settings.title
    elif not scalar:
        title = styled_title(name, title_style)
    elif kind is Kind.CHOICE and isinstance(core, type):
        title = humanise(core.__name__)  # ask(Color) is titled "Color"
    else:
        title = _SCALAR_TITLES.get(extras.get("format"), _SCALAR_TITLES[kind])
    written = type_name(annotation)
    if label_style is not None and not extras["titled"]:
        # An explicit label style sends labels: humanised member names, or the option.
        unlabelled: tuple[Choice, ...] = extras["choices"]
        labelled = tuple(Choice(c.wire, c.value, default_label(c)) for c in unlabelled)
        extras = dict(extras)
        extras.update(titled=True, choices=labelled)
    fmt: str | None = extras.get("format")
    spec = FieldSpec(
        key=key,
        attr=source.attr,
        name=name,
        omit_when_absent=not key_required,
        kind=kind,
        title=sendable_text(title),
        description=_sendable(settings.description),
        required=required,
        default=default,
        default_factory=default_factory,
        type_name=written,
        label_style=label_style,
        show_title=bool(settings.title) or title_style != "omit",
        **extras,
        **constraints(kind, fmt, written, settings, problem),
    )
    if settings.prefill is not MISSING:
        spec = dataclasses.replace(spec, prefill=_checked_prefill(spec, settings.prefill, problem))
    if settings.keep_empty:
        _check_keep_empty(spec, problem)
        spec = dataclasses.replace(spec, keep_empty=True)
    return spec


def _check_keep_empty(spec: FieldSpec, problem: Callable[[str], FormDefinitionError]) -> None:
    # Only plain text has "" as a meaningful answer: "" is never a number, a date, an
    # email address, a link or a choice (an option "" is kept without being asked for).
    if spec.kind is not Kind.TEXT or spec.format is not None:
        what = f"{spec.format} text" if spec.kind is Kind.TEXT else spec.kind.value
        raise problem(
            f"keep_empty=True applies only to plain text fields, and this field is {what}, "
            'for which "" is never an answer. Remove it.'
        )


def _form_label_style(kind: Kind, style: FormStyle) -> LabelStyle | None:
    """The form's label style where it applies to a field of ``kind``.

    Choices only; and ``"enumNames"`` on single choices only, since multi-selects have no
    such form (they keep ``items.anyOf``).
    """
    if kind is Kind.CHOICE or (kind is Kind.MULTI_CHOICE and style.label_style == "oneOf"):
        return style.label_style
    return None


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
