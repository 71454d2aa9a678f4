"""Per-call overrides: one call's options, defaults, titles and descriptions, without a new type.

A form type is compiled once and its schemas are cached (see `compiled_forms`). `Overrides` change a
few fields for one call: the compiled `FormSpec` is copied with only those fields replaced,
the cached schema is copied with only their properties rendered again, and answers are
decoded against the replaced fields, so a per-call option list is enforced like a declared
one. Everything is checked before anything is sent; a problem raises `FormDefinitionError`.

Applying is cheap, and repeating it cheaper still:

* the replaced fields are patched copies of the compiled ones, the schema a shallow copy of
  the cached one with their properties rendered again, and the decoder reuses the compiled
  form's per-field checks for every field left alone;
* each compiled form keeps its last `MAX_CACHED_OVERRIDES` applications (`OverridesCache`),
  found again by the *values* an `Overrides` carries, since a tool builds a new one per call.
  Only values whose equality means "renders and decodes the same" make a key (exact ``str``,
  ``int``, ``bool``, ``None``, ``float`` by its bits, Enum members, and lists, tuples and
  dicts of those); anything else (a date, a ``Decimal``, a list as a default, a generator of
  options) is applied afresh every call, so one call's values can never stand in for
  another's. What is cached is never changed after it is made.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from elicitkit._compiler.checkboxes import (
    render_checkboxes,
    replace_checkboxes,
    too_many_checkboxes,
)
from elicitkit._compiler.choices import choice_settings
from elicitkit._compiler.decode import (
    Builder,
    PlanEntry,
    build_decoder,
    build_rebuilder,
    check_value,
    field_plan,
    result_builder,
)
from elicitkit._compiler.form_spec import (
    MISSING,
    Choice,
    Decoder,
    FieldSpec,
    FormSpec,
    Kind,
    Rebuilder,
)
from elicitkit._compiler.prefill import wire_default
from elicitkit._compiler.prepared_form import PreparedForm
from elicitkit._compiler.render import render_field
from elicitkit._compiler.wire_formats import sendable_text
from elicitkit._lru import Lru
from elicitkit.errors import FormDefinitionError
from elicitkit.protocol import FIRST_PROTOCOL

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
        hide: Fields left out of the form in this call: each gets its default (this call's,
            from ``defaults``, or the type's), or ``None`` if it is optional, and whatever a
            client sends for it is ignored. A field with neither is refused, so the answer is
            always complete.
    """

    defaults: Mapping[str, object] = field(default_factory=_empty)
    choices: Mapping[str, Options] = field(default_factory=_empty)
    titles: Mapping[str, str] = field(default_factory=_empty)
    descriptions: Mapping[str, str] = field(default_factory=_empty)
    hide: AbstractSet[str] = frozenset()


MAX_CACHED_OVERRIDES = 32
"""How many applied overrides each compiled form keeps (least recently used dropped first)."""


@dataclass(eq=False)
class OverriddenForm:
    """A form with one call's overrides applied; its schemas and decoder made on first use.

    Shared between calls that pass equal overrides (see `OverridesCache`): nothing in it
    changes once made, and what it hands out is never changed by a later call.

    Attributes:
        spec: The form with the named fields replaced.
        changed: The replaced fields, in form order.
        decodes_differently: Whether answers must be decoded against ``spec`` (options or
            defaults changed) rather than with the form's cached decoder (text only).
        base: The compiled form's decoding parts (`DecodingParts`), reused for the fields
            whose options and default this call leaves alone.
        redecoded: The names of the fields whose options or default this call changes
            (or hides).
        hidden: The wire keys of the fields this call leaves out of the form.
    """

    spec: FormSpec
    changed: tuple[FieldSpec, ...]
    decodes_differently: bool
    base: DecodingParts
    redecoded: frozenset[str]
    hidden: frozenset[str] = frozenset()
    prepared: dict[PreparedForm, PreparedForm] = field(
        default_factory=dict[PreparedForm, PreparedForm]
    )
    """This form prepared on each base prepared form it was applied to (at most six)."""
    _decoder: Decoder | None = None
    _rebuilder: Rebuilder | None = None
    _field_plans: Sequence[PlanEntry] | None = None

    def prepare(self, base: PreparedForm) -> PreparedForm:
        """Return ``base`` (the compiled form on one version) with these overrides applied.

        The base schema is copied with only the changed fields rendered again.
        """
        prepared = self.prepared.get(base)
        if prepared is not None:
            return prepared
        hidden = self.hidden
        properties = dict(base.schema["properties"])
        for changed in self.changed:
            if base.protocol == FIRST_PROTOCOL and changed.kind is Kind.MULTI_CHOICE:
                # On 2025-06-18 a multi-select is its checkboxes, rendered (or hidden) together.
                boxes = {} if changed.key in hidden else render_checkboxes(self.spec, changed)
                properties = replace_checkboxes(properties, changed.key, boxes)
                continue
            if changed.key in hidden:
                del properties[changed.key]
                continue
            properties[changed.key] = render_field(
                self.spec, changed, base.protocol, legacy_enum_names=base.legacy_enum_names
            )
        schema = {**base.schema, "properties": properties}
        if hidden and "required" in schema:
            required = [key for key in schema["required"] if key not in hidden]
            if required:
                schema["required"] = required
            else:
                del schema["required"]  # the grammar has no empty `required`: render omits it
        decoder = self.decoder if self.decodes_differently else base.current_decoder
        rebuilder = self.rebuilder if self.decodes_differently else base.current_rebuilder
        refusal = None
        if base.protocol == FIRST_PROTOCOL:
            refusal = too_many_checkboxes(self.spec, hidden)  # this call's choices count
        prepared = PreparedForm(
            base.tp,
            self.spec,
            base.protocol,
            base.legacy_enum_names,
            schema,
            decoder,
            rebuilder,
            refusal,
        )
        self.prepared[base] = prepared
        return prepared

    def decoder(self) -> Decoder:
        """Return the decoder for this call's answer (the reference decoder).

        Only the changed fields get new checks; the others reuse the compiled form's.
        """
        if self._decoder is None:
            decoder = build_decoder(self.spec, plan=self._plan(), build=self.base.build)
            self._decoder = _ignoring(self.hidden, decoder) if self.hidden else decoder
        return self._decoder

    def rebuilder(self) -> Rebuilder:
        """Return the rebuilder for answers this call's form accepted in an earlier round."""
        if self._rebuilder is None:
            rebuilder = build_rebuilder(self.spec, plan=self._plan(), build=self.base.build)
            if self.hidden:
                positions = [i for i, f in enumerate(self.spec.fields) if f.key in self.hidden]
                rebuilder = _rebuilding_without(positions, rebuilder)
            self._rebuilder = rebuilder
        return self._rebuilder

    def _plan(self) -> Sequence[PlanEntry]:
        """The compiled form's plan, with the changed fields planned again (made once)."""
        if self._field_plans is None:
            redecoded = self.redecoded
            self._field_plans = [
                field_plan(self.spec, spec_field) if spec_field.name in redecoded else entry
                for spec_field, entry in zip(self.spec.fields, self.base.plan, strict=True)
            ]
        return self._field_plans


def _ignoring(hidden: frozenset[str], decode: Decoder) -> Decoder:
    """``decode``, with what a client sends for a hidden field dropped: it was not asked.

    Linear in the answer's size: a lookup per hidden key, and a copy only when one is there.
    """

    def decoder(content: Any) -> Any:
        if type(content) is dict and any(key in content for key in hidden):
            answer = cast("dict[str, Any]", content)
            content = {key: value for key, value in answer.items() if key not in hidden}
        return decode(content)

    return decoder


def _rebuilding_without(positions: Sequence[int], rebuild: Rebuilder) -> Rebuilder:
    """``rebuild``, with the values at the hidden fields' positions treated as absent.

    The state carries an answer's values for every field of the form, as the client sent
    them; a hidden field was not asked, so what came for it is dropped here as on decode.
    """

    def rebuilder(values: Sequence[Any]) -> Any:
        kept = list(values)
        for position in positions:
            if position < len(kept):
                kept[position] = None
        return rebuild(kept)

    return rebuilder


@dataclass(frozen=True)
class DecodingParts:
    """What a form's reference decoder is made of, made once per form (see `build_decoder`).

    Attributes:
        plan: Each field's `field_plan` entry, in form order.
        build: The form's `result_builder`.
    """

    plan: Sequence[PlanEntry]
    build: Builder

    @classmethod
    def of(cls, spec: FormSpec) -> DecodingParts:
        """The parts of ``spec``'s reference decoder."""
        return cls(
            [field_plan(spec, spec_field) for spec_field in spec.fields], result_builder(spec)
        )


class OverridesCache:
    """One compiled form's applied overrides, found again by the values they carry.

    Lives on the form's `CompiledForm`, so it dies with the form type. Bounded by
    `MAX_CACHED_OVERRIDES`: per-call values (option lists built from account data) must
    not grow it for ever.
    """

    def __init__(self) -> None:
        self._entries: Lru[Hashable, OverriddenForm] = Lru(MAX_CACHED_OVERRIDES)
        self._base: DecodingParts | None = None

    def apply(self, spec: FormSpec, overrides: Overrides) -> OverriddenForm:
        """Return ``overrides`` applied to ``spec`` (the compiled form's own spec).

        Raises:
            FormDefinitionError: An override names no field of the form, or does not fit
                its field (never cached: the same overrides raise the same error again).
        """
        key = cache_key(overrides)
        if key is not None:
            entry = self._entries.get(key)
            if entry is not None:
                return entry
        if self._base is None:
            self._base = DecodingParts.of(spec)
        entry = apply_overrides(spec, overrides, self._base)
        if key is not None:
            self._entries.put(key, entry)
        return entry

    def clear(self) -> None:
        """Forget every applied overrides (for tests that re-render schemas)."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class _Uncacheable(Exception):  # an internal signal, never raised out of `cache_key`
    """A value whose equality does not guarantee the same schema and decoding."""


def cache_key(overrides: Overrides) -> Hashable | None:
    """A key equal for two `Overrides` only if they render and decode alike, or ``None``.

    Every value is tagged with its exact type (``1``, ``1.0`` and ``True`` are equal in
    Python but not on the wire), floats go by their bits (``0.0 == -0.0``), and only plain
    values qualify: a ``Decimal`` (``1.0 == 1.00``), an aware ``datetime`` (equal across
    offsets) or any other object might render differently, and a mutable default (a list)
    would be handed to the next call. Linear in the size of the overrides.
    """
    try:
        return (
            _mapping_key(overrides.defaults, _values_key),
            _mapping_key(overrides.choices, _options_key),
            _mapping_key(overrides.titles, _values_key),
            _mapping_key(overrides.descriptions, _values_key),
            _names_key(overrides.hide),
        )
    except _Uncacheable:
        return None


_PLAIN = frozenset({str, int, bool, type(None)})


def _values_key(values: tuple[object, ...]) -> Hashable:
    """The key of a sequence of values: their exact types and the values themselves."""
    types = tuple(map(type, values))  # the common case (text, whole numbers) stays in C
    if _PLAIN.issuperset(types):
        return ("plain", types, values)
    return ("tagged", tuple(map(_value_key, values)))


def _value_key(value: object, *, inside: bool = False) -> Hashable:
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is float:
        return (kind, value.hex())  # type: ignore[attr-defined]  # (it is a float)
    if isinstance(value, enum.Enum):  # members are singletons; the class is in the key
        return (kind, value.name)
    if kind is tuple and not inside:  # a multi-select default (a list would be shared)
        items: tuple[object, ...] = value  # type: ignore[assignment]
        return (kind, tuple(_value_key(item, inside=True) for item in items))
    raise _Uncacheable


def _options_key(options: tuple[object, ...]) -> Hashable:
    """The key of each field's options: lists and tuples of values, or dicts of labels."""
    keys: list[Hashable] = []
    for each in options:
        kind = type(each)
        if kind is list or kind is tuple:  # read here and when applied: no generators
            keys.append(_values_key(tuple(each)))  # type: ignore[arg-type]
        elif kind is dict:
            labelled: dict[object, object] = each  # type: ignore[assignment]
            keys.append((_values_key(tuple(labelled)), _values_key(tuple(labelled.values()))))
        else:
            raise _Uncacheable
    return tuple(keys)


def _names_key(names: object) -> Hashable:
    if type(names) not in (frozenset, set, list, tuple):
        raise _Uncacheable
    given = frozenset(cast("Iterable[object]", names))
    if not all(type(name) is str for name in given):
        raise _Uncacheable
    return given


def _mapping_key(mapping: object, values_key: Callable[[tuple[object, ...]], Hashable]) -> Hashable:
    if type(mapping) is not dict:
        raise _Uncacheable
    named = cast("dict[object, object]", mapping)
    if not named:
        return ()
    return (_values_key(tuple(named)), values_key(tuple(named.values())))


_T = TypeVar("_T")


def _patched(original: _T, **changes: Any) -> _T:
    """``dataclasses.replace`` for the frozen specs, without re-running their ``__init__``.

    `FieldSpec` has no ``__post_init__`` and no slots, so a copy of its ``__dict__`` with
    ``changes`` is the same object ``replace`` would build, at a fraction of the cost.
    """
    out = object.__new__(type(original))
    out.__dict__.update(original.__dict__, **changes)
    return out


def apply_overrides(
    spec: FormSpec, overrides: Overrides, base: DecodingParts | None = None
) -> OverriddenForm:
    """Apply one call's overrides to a form (uncached: see `OverridesCache`).

    Args:
        spec: The form.
        overrides: This call's overrides.
        base: ``spec``'s `DecodingParts`, if the caller keeps them.

    Raises:
        FormDefinitionError: An override names no field of the form, or does not fit its
            field.
    """
    by_name = {spec_field.name: spec_field for spec_field in spec.fields}
    hide = _hidden_names(spec, overrides.hide, by_name)
    named: dict[str, None] = {}  # ordered, without repeats
    for mapping in (
        overrides.defaults,
        overrides.choices,
        overrides.titles,
        overrides.descriptions,
        hide,
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
        if name in hide:
            changed[name] = _hidden(spec, changed[name], hide)
    if len(hide) == len(spec.fields):
        raise FormDefinitionError(
            f"Cannot ask {spec.name} with overrides: hide leaves out every field of "
            f"{spec.name}, and a form without fields cannot be answered. Leave at least one "
            "field in the form, or do not ask."
        )
    fields = tuple(changed.get(spec_field.name, spec_field) for spec_field in spec.fields)
    return OverriddenForm(
        spec=_patched(spec, fields=fields),
        changed=tuple(changed[f.name] for f in spec.fields if f.name in changed),
        decodes_differently=bool(overrides.choices) or bool(overrides.defaults) or bool(hide),
        base=DecodingParts.of(spec) if base is None else base,
        redecoded=frozenset(overrides.choices) | frozenset(overrides.defaults) | hide,
        hidden=frozenset(changed[name].key for name in hide),
    )


def _hidden_names(spec: FormSpec, hide: object, by_name: Mapping[str, FieldSpec]) -> frozenset[str]:
    """The fields ``Overrides(hide=...)`` names; a nested form's name stands for its fields.

    Raises:
        FormDefinitionError: ``hide`` is not a collection of names.
    """
    if isinstance(hide, str) or not isinstance(hide, Iterable):
        given = f"{{{hide!r}}}" if isinstance(hide, str) else "{'field', ...}"
        raise FormDefinitionError(
            f"Cannot ask {spec.name} with overrides: hide={hide!r} is not a set of field "
            f"names. Write hide={given}."
        )
    names = list(cast("Iterable[object]", hide))
    for name in names:
        if not isinstance(name, str):
            raise FormDefinitionError(
                f"Cannot ask {spec.name} with overrides: hide holds {name!r}, which is not a "
                "field name. Name its fields as declared, as text."
            )
    hidden: set[str] = set()
    for name in cast("list[str]", names):
        inner = f"{name}."
        members = [] if name in by_name else [f for f in by_name if f.startswith(inner)]
        hidden.update(members or [name])  # an unknown name is refused with the others
    return frozenset(hidden)


def _hidden(spec: FormSpec, field: FieldSpec, hide: frozenset[str]) -> FieldSpec:
    """``field`` left out of this call's form: refused unless an absent answer has a value."""
    if not _may_be_absent(field) and not _in_hidden_group(spec, field, hide):
        raise FormDefinitionError(
            f"Cannot ask {spec.name} with overrides for field '{field.name}': it is hidden, "
            "but it has no default and does not accept None, so the answer would have no "
            "value for it. Give it a default (in the type, or with Overrides(defaults=...)), "
            "make it optional (X | None), or leave it in the form."
        )
    return _patched(field, required=False)


def _in_hidden_group(spec: FormSpec, field: FieldSpec, hide: frozenset[str]) -> bool:
    """Whether ``field`` sits in a nested form that may be left empty and is hidden whole."""
    for group in field.groups:
        if group.optional and all(
            f.name in hide for f in spec.fields if any(g is group for g in f.groups)
        ):
            return True
    return False


def _may_be_absent(field: FieldSpec) -> bool:
    """Whether an absent answer for ``field`` still gives it a value of its own.

    A field of a nested form that may be left empty is optional on the wire only while its
    group is empty; what counts is the field's own declaration in its nested form. There a
    per-call default does not count: a partly filled group asks for its own required fields.
    """
    own = field
    if field.groups:
        leaf = field.name.rsplit(".", 1)[-1]
        inner = field.groups[-1].spec.fields
        own = next(f for f in inner if f.name == leaf and not f.groups)
    if own.default is not MISSING or own.default_factory is not None or not own.required:
        return True
    return field.call_default and not any(group.optional for group in field.groups)


def _override_field(spec: FormSpec, original: FieldSpec, overrides: Overrides) -> FieldSpec:
    name = original.name

    def problem(reason: str) -> FormDefinitionError:
        return FormDefinitionError(
            f"Cannot ask {spec.name} with overrides for field '{name}': {reason}"
        )

    out = original
    if name in overrides.titles:
        out = _patched(out, title=_text(overrides.titles[name], "title", problem), show_title=True)
    if name in overrides.descriptions:
        text = _text(overrides.descriptions[name], "description", problem)
        out = _patched(out, description=text)
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
        # Each option must still fit the field: the author's type (a dataclass, a pydantic
        # model) keeps its own limits, and an option outside them would be built into an
        # instance that breaks them, or refused after the user picked it.
        for value in values:
            why = check_value(spec, value)
            if why is not None:
                raise problem(
                    f"the option {value!r} does not fit the field ({why.rstrip('.')}). "
                    "Offer only options within the field's limits, or widen them."
                )
        choices = [Choice(wire=value, value=value, label=None) for value in values]  # type: ignore[arg-type]
        settings = choice_settings(choices, labels, problem)
        return _patched(
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
    return _patched(spec, max_length=None if high is None else min(high, len(picked)), **settings)


def _option_values(spec: FieldSpec, value: object) -> object:
    """A choice default given by wire string (``"eu"`` for ``Region.EU``) as the option's value.

    As ``choices`` accepts, so do ``defaults``: a member, a value, or the wire string. A
    multi-select's items each, in a container of the type given.
    """
    by_wire = {choice.wire: choice.value for choice in spec.choices}
    declared = {_option_key(choice.value) for choice in spec.choices}

    def one(item: object) -> object:
        if _option_key(item) in declared or not isinstance(item, str):
            return item
        return by_wire.get(item, item)

    if spec.kind is Kind.CHOICE:
        return one(value)
    if type(value) in (list, tuple, set, frozenset):  # type() does not narrow: no Unknown
        container = cast("Callable[[Iterable[object]], object]", type(value))
        return container(one(item) for item in cast("Iterable[object]", value))
    return value


def _option_key(value: object) -> tuple[str, object]:
    try:
        hash(value)
    except TypeError:
        return ("unhashable", id(value))
    return (type(value).__name__, value)


def _with_default(spec: FieldSpec, value: object, problem: Any) -> FieldSpec:
    if spec.kind in (Kind.CHOICE, Kind.MULTI_CHOICE):
        value = _option_values(spec, value)
    out = _patched(
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
