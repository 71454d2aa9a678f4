"""Per-call overrides: one call's options, defaults, titles and descriptions, without a new type.

A form type is compiled once and its schemas are cached (see `_forms`). `Overrides` change a
few fields for one call: the compiled `FormSpec` is copied with only those fields replaced,
the cached schema is copied with only their properties rendered again, and answers are
decoded against the replaced fields, so a per-call option list is enforced like a declared
one. Everything is checked before anything is sent; a problem raises `FormDefinitionError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from elicitkit._decode import Decoder, build_decoder, check_value
from elicitkit._errors import FormDefinitionError
from elicitkit._formspec import MISSING, Choice, FieldSpec, FormSpec, Kind
from elicitkit._introspect import choice_settings
from elicitkit._protocol import ProtocolVersion
from elicitkit._render import render_field, wire_default
from elicitkit._wire_values import sendable_text

Options = Iterable[object] | Mapping[object, str]
"""A per-call option list: values, or a mapping of value to display label."""


def _empty() -> Mapping[str, Any]:
    return {}


@dataclass(frozen=True, eq=False)
class Overrides:
    """Per-call changes to a form, keyed by field name: pass it as ``ask(..., overrides=...)``.

    Every field named must exist in the form; every value is checked against its field
    before anything is sent, and answers are checked against the result (a per-call option
    list is enforced on decode like a declared one).

    Example:
        ``ask(Order, overrides=Overrides(choices={"region": ["eu-west", "us-east"]},
        defaults={"quantity": 2}, titles={"item": f"Item ({sku})"}))``

    Attributes:
        defaults: A value per field, shown prefilled and given to an optional field the user
            leaves empty (a required field stays required). It must fit the field: its
            type, bounds, lengths and options.
        choices: The options of a field for this call. A plain ``str`` field becomes a
            single choice of the given strings; a choice or multi-select field (``Literal``,
            ``Enum``, ``list[...]`` of those) offers only the given subset of its options.
            Give a list of values, or a mapping of value to display label.
        titles: The label shown for a field in this call.
        descriptions: The help text shown with a field in this call.
    """

    defaults: Mapping[str, object] = field(default_factory=_empty)
    choices: Mapping[str, Options] = field(default_factory=_empty)
    titles: Mapping[str, str] = field(default_factory=_empty)
    descriptions: Mapping[str, str] = field(default_factory=_empty)


@dataclass(frozen=True)
class OverriddenForm:
    """A form with one call's overrides applied.

    Attributes:
        spec: The form with the named fields replaced.
        changed: The replaced fields, in form order.
        decodes_differently: Whether answers must be decoded against ``spec`` (options or
            defaults changed) rather than with the form's cached decoder (text only).
    """

    spec: FormSpec
    changed: tuple[FieldSpec, ...]
    decodes_differently: bool

    def schema(
        self, base: dict[str, Any], protocol: ProtocolVersion, *, legacy_enum_names: bool
    ) -> dict[str, Any]:
        """Return the cached ``base`` schema with the changed fields rendered again."""
        properties = dict(base["properties"])
        for changed in self.changed:
            properties[changed.key] = render_field(
                self.spec, changed, protocol, legacy_enum_names=legacy_enum_names
            )
        return {**base, "properties": properties}

    def decoder(self) -> Decoder:
        """Return a decoder for this call's answer (the reference decoder: it runs once)."""
        return build_decoder(self.spec, fast=False)


def apply_overrides(spec: FormSpec, overrides: Overrides) -> OverriddenForm:
    """Apply one call's overrides to a form.

    Raises:
        FormDefinitionError: An override names no field of the form, or does not fit its
            field.
    """
    by_name = {spec_field.name: spec_field for spec_field in spec.fields}
    named: dict[str, None] = {}  # ordered, without repeats
    for mapping in (
        overrides.defaults,
        overrides.choices,
        overrides.titles,
        overrides.descriptions,
    ):
        for name in mapping:
            named[name] = None
    unknown = [name for name in named if name not in by_name]
    if unknown:
        listed = ", ".join(repr(name) for name in unknown)
        declared = ", ".join(repr(name) for name in by_name)
        raise FormDefinitionError(
            f"Cannot ask {spec.name} with overrides: {listed} "
            f"{'is not a field' if len(unknown) == 1 else 'are not fields'} of {spec.name}. "
            f"Name its fields as declared: {declared}."
        )
    changed: dict[str, FieldSpec] = {}
    for name in named:
        changed[name] = _override_field(spec, by_name[name], overrides)
    fields = tuple(changed.get(spec_field.name, spec_field) for spec_field in spec.fields)
    return OverriddenForm(
        spec=dataclasses.replace(spec, fields=fields),
        changed=tuple(changed[f.name] for f in spec.fields if f.name in changed),
        decodes_differently=bool(overrides.choices) or bool(overrides.defaults),
    )


def _override_field(spec: FormSpec, original: FieldSpec, overrides: Overrides) -> FieldSpec:
    name = original.name

    def problem(reason: str) -> FormDefinitionError:
        return FormDefinitionError(
            f"Cannot ask {spec.name} with overrides for field '{name}': {reason}"
        )

    out = original
    if name in overrides.titles:
        out = dataclasses.replace(
            out, title=_text(overrides.titles[name], "title", problem), show_title=True
        )
    if name in overrides.descriptions:
        text = _text(overrides.descriptions[name], "description", problem)
        out = dataclasses.replace(out, description=text)
    if name in overrides.choices:
        out = _with_choices(out, overrides.choices[name], problem)
    if name in overrides.defaults:
        out = _with_default(out, overrides.defaults[name], problem)
    return out


def _text(value: object, what: str, problem: Any) -> str:
    if not isinstance(value, str) or not value:
        raise problem(f"the {what} {value!r} is not text. Give a non-empty str.")
    return sendable_text(value)


def _with_choices(spec: FieldSpec, options: object, problem: Any) -> FieldSpec:
    if isinstance(options, (str, bytes)) or not isinstance(options, Iterable):
        raise problem(
            f"the options {options!r} are not a list. Give a list of options, or a mapping "
            "of option to label."
        )
    labels = cast("Mapping[object, str]", options) if isinstance(options, Mapping) else None
    values: list[object] = list(cast("Iterable[object]", options))
    if not values:
        raise problem("the option list is empty, so there is nothing to choose. Give options.")
    if spec.kind is Kind.TEXT and spec.format is None and spec.convert is None:
        not_text = [value for value in values if not isinstance(value, str)]
        if not_text:
            raise problem(
                f"the option {not_text[0]!r} is not text, and the field is a str. Give str options."
            )
        choices = [Choice(wire=value, value=value, label=None) for value in values]  # type: ignore[arg-type]
        settings = choice_settings(choices, labels, problem)
        return dataclasses.replace(
            spec,
            kind=Kind.CHOICE,
            min_length=None,
            max_length=None,
            pattern=None,
            **settings,
        )
    if spec.kind not in (Kind.CHOICE, Kind.MULTI_CHOICE):
        raise problem(
            f"per-call options apply to str, choice and multi-select fields, and this field is "
            f"{spec.type_name}. Remove them, or declare the field as str."
        )
    declared = {_option_key(choice.value): choice for choice in spec.choices}
    declared.update({("wire", choice.wire): choice for choice in spec.choices})
    relabel: dict[str, str] = {}
    for key, label in (labels or {}).items():
        choice = declared.get(_option_key(key)) or declared.get(("wire", key))
        if choice is not None:
            relabel[choice.wire] = label
    picked: list[Choice] = []
    for value in values:
        choice = declared.get(_option_key(value)) or declared.get(("wire", value))
        if choice is None:
            offered = ", ".join(repr(choice.value) for choice in spec.choices)
            raise problem(
                f"{value!r} is not one of its declared options ({offered}). Offer a subset "
                "of them, or declare the field as str for free-form options."
            )
        # A declared label (or a humanised one, on a labelled field) unless this call relabels.
        picked.append(Choice(choice.wire, choice.value, relabel.get(choice.wire, choice.label)))
    settings = choice_settings(picked, None, problem)
    low, high = spec.min_length, spec.max_length
    if spec.kind is Kind.MULTI_CHOICE and low is not None and low > len(picked):
        raise problem(
            f"it needs at least {low} selections and only {len(picked)} options are offered. "
            "Offer more options."
        )
    return dataclasses.replace(
        spec, max_length=None if high is None else min(high, len(picked)), **settings
    )


def _option_key(value: object) -> tuple[str, object]:
    try:
        hash(value)
    except TypeError:
        return ("unhashable", id(value))
    return (type(value).__name__, value)


def _with_default(spec: FieldSpec, value: object, problem: Any) -> FieldSpec:
    out = dataclasses.replace(
        spec,
        default=value,
        default_factory=None,
        prefill=MISSING,
        call_default=True,
        omit_when_absent=False,
    )
    wire = wire_default(out) if value is not None else MISSING
    why = None if wire is MISSING else check_value(out, wire)
    if wire is MISSING or why is not None:
        reason = f" ({why.rstrip('.')})" if why else ""
        raise problem(
            f"the default {value!r} does not fit the field{reason}. Give a value of the "
            "field's type within its limits (for a choice, one of its options)."
        )
    return out
