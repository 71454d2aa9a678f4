"""Round trips through random forms: type -> schema -> an answer sampled from it -> value.

Hypothesis builds random flat form types (stdlib and pydantic dataclasses, pydantic models,
msgspec Structs, TypedDicts and bare one-field types) with random field kinds, consistent
random constraints in every vocabulary (annotated_types, pydantic Field, msgspec Meta),
optional fields, defaults and default factories, random Enum classes and Literals, and wire
keys that are names, aliases, or names shuffled between fields. For each, the test renders
the schema, samples a valid answer *from the rendered schema alone* (a small sampler that
reads JSON Schema), decodes it, and compares with the value built independently from the
sampled wire values and the plan the form was generated from.

The one place the wire cannot be exact: a float's exclusive bound (``gt``/``lt``) travels as
an inclusive ``minimum``/``maximum``, and decoding enforces the strict bound. The sampler
hits those boundaries on purpose, and the test then expects exactly those fields rejected.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import functools
import itertools
import math
import re
import string
from collections.abc import Callable
from typing import Annotated, Any, Literal

import annotated_types as at
import msgspec
import pydantic
import pydantic.dataclasses
import pytest
import typing_extensions
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import elicitkit
from elicitkit import (
    FormField,
    InvalidContent,
    parse_content,
    requested_schema,
)
from elicitkit._compiler.wire_formats import ODD_CHARACTER
from elicitkit.errors import FieldError
from elicitkit.protocol import PROTOCOL_VERSIONS

_MISSING: Any = object()
_counter = itertools.count()

SETTINGS = settings(max_examples=60, deadline=None, database=None)


# --------------------------------------------------------------------------------------
# Wire-value strategies, shared by the schema sampler and the default generator
# --------------------------------------------------------------------------------------

# Text a person could type: no white space, controls or bidirectional formatting characters.
_PLAIN = st.characters(codec="utf-8").filter(
    lambda c: not c.isspace() and ODD_CHARACTER.search(c) is None
)
_LOCAL_CHAR = _PLAIN.filter(lambda c: c != "@")
_LABEL_CHAR = _PLAIN.filter(lambda c: c not in "@.")
_SCHEME_FIRST = st.sampled_from("abcxyzABCXYZ")
_SCHEME_REST = st.sampled_from("abz09+.-")
# RFC 3986 unreserved and sub-delims, plus non-ASCII text as in RFC 3987 IRIs.
_HOST_CHAR = st.sampled_from(string.ascii_letters + string.digits + "-._~!$&'()*+,;=") | (
    _PLAIN.filter(lambda c: ord(c) >= 0xA0)
)
_PATH_CHAR = _HOST_CHAR | st.sampled_from(":@/?")
_OPAQUE_FIRST = _HOST_CHAR
_FORMAT_MIN_LENGTH = {"email": 5, "uri": 3}  # "a@b.c", "a:b"


def _text(alphabet: st.SearchStrategy[str], size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=size)


def _length(lo: int | None, hi: int | None, floor: int = 0) -> st.SearchStrategy[int]:
    low = max(lo or 0, floor)
    return st.integers(low, hi if hi is not None else low + 20)


@st.composite
def email_wire(draw: st.DrawFn, lo: int | None = None, hi: int | None = None) -> str:
    """A string matching name@domain.tld of a length within [lo, hi]."""
    total = draw(_length(lo, hi, floor=5))
    local = draw(st.integers(1, total - 4))
    label = draw(st.integers(1, total - local - 3))
    tld = total - local - label - 2
    parts = (
        draw(_text(_LOCAL_CHAR, local)),
        draw(_text(_LABEL_CHAR, label)),
        draw(_text(_LABEL_CHAR, tld)),
    )
    return f"{parts[0]}@{parts[1]}.{parts[2]}"


@st.composite
def uri_wire(draw: st.DrawFn, lo: int | None = None, hi: int | None = None) -> str:
    """An absolute URI (scheme:rest or scheme://host...) of a length within [lo, hi]."""
    total = draw(_length(lo, hi, floor=3))
    scheme = draw(st.integers(1, total - 2))
    rest = total - scheme - 1
    head = draw(_SCHEME_FIRST) + draw(_text(_SCHEME_REST, scheme - 1)) + ":"
    if rest >= 3 and draw(st.booleans()):
        host = draw(st.integers(1, rest - 2))
        tail = draw(_text(_PATH_CHAR, rest - 2 - host))
        return head + "//" + draw(_text(_HOST_CHAR, host)) + ("/" + tail[1:] if tail else "")
    return head + draw(_OPAQUE_FIRST) + draw(_text(_PATH_CHAR, rest - 1))


@st.composite
def datetime_wire(draw: st.DrawFn) -> str:
    """An RFC 3339 date-time in the spellings a client may send."""
    moment = draw(st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)))
    text = moment.date().isoformat() + draw(st.sampled_from("Tt "))
    text += f"{moment.hour:02d}:{moment.minute:02d}"
    if moment.second or moment.microsecond or draw(st.booleans()):
        text += f":{moment.second:02d}"
        digits = draw(st.integers(0, 9))  # up to nanoseconds; Python keeps microseconds
        if digits:
            nanoseconds = f"{moment.microsecond:06d}" + draw(
                _text(st.sampled_from("0123456789"), 3)
            )
            text += "." + nanoseconds[:digits]
    zone = draw(st.sampled_from(["", "Z", "offset"]))
    if zone == "offset":
        minutes = draw(st.integers(-(24 * 60 - 1), 24 * 60 - 1))
        sign = "-" if minutes < 0 else "+"
        zone = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return text + zone


def text_wire(fmt: str | None, lo: int | None, hi: int | None) -> st.SearchStrategy[str]:
    if fmt == "email":
        return email_wire(lo, hi)
    if fmt == "uri":
        return uri_wire(lo, hi)
    if fmt == "date":
        return st.dates().map(dt.date.isoformat)
    if fmt == "date-time":
        return datetime_wire()
    assert fmt is None, fmt
    low = lo or 0
    return st.text(min_size=low, max_size=hi if hi is not None else low + 12)


def integer_wire(lo: float | None, hi: float | None) -> st.SearchStrategy[int]:
    return st.integers(
        None if lo is None else math.ceil(lo), None if hi is None else math.floor(hi)
    )


def number_wire(lo: float | None, hi: float | None) -> st.SearchStrategy[float | int]:
    """Floats and whole numbers in [lo, hi], with the bounds themselves often."""
    options: list[st.SearchStrategy[Any]] = [
        st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    ]
    # Whole numbers stay where floats are exact, so comparing them is comparing floats.
    low = -(2**53) if lo is None else max(math.ceil(lo), -(2**53))
    high = 2**53 if hi is None else min(math.floor(hi), 2**53)
    if low <= high:
        options.append(st.integers(low, high))
    bounds = [bound for bound in (lo, hi) if bound is not None]
    if bounds:
        options.append(st.sampled_from(bounds))
    return st.one_of(options)


def multi_wire(options: list[str], lo: int | None, hi: int | None) -> st.SearchStrategy[list[str]]:
    high = len(options) if hi is None else min(hi, len(options))
    return st.lists(st.sampled_from(options), min_size=lo or 0, max_size=high, unique=True)


# --------------------------------------------------------------------------------------
# The sampler: a valid answer, read from nothing but the rendered schema
# --------------------------------------------------------------------------------------


def property_wire(prop: dict[str, Any]) -> st.SearchStrategy[Any]:
    kind = prop["type"]
    if kind == "boolean":
        base: st.SearchStrategy[Any] = st.booleans()
    elif kind == "integer":
        base = integer_wire(prop.get("minimum"), prop.get("maximum"))
    elif kind == "number":
        base = number_wire(prop.get("minimum"), prop.get("maximum"))
    elif kind == "string" and "enum" in prop:
        base = st.sampled_from(prop["enum"])
    elif kind == "string" and "oneOf" in prop:
        base = st.sampled_from([option["const"] for option in prop["oneOf"]])
    elif kind == "string":
        base = text_wire(prop.get("format"), prop.get("minLength"), prop.get("maxLength"))
    else:
        assert kind == "array", prop
        items = prop["items"]
        options = items["enum"] if "enum" in items else [o["const"] for o in items["anyOf"]]
        base = multi_wire(options, prop.get("minItems"), prop.get("maxItems"))
    if "default" in prop:
        return st.one_of(st.just(prop["default"]), base)
    return base


def answers(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid answers to a requestedSchema; optional fields are sometimes left out."""
    assert schema["type"] == "object"
    required = set(schema.get("required", []))
    props = schema["properties"]
    return st.fixed_dictionaries(
        {key: property_wire(prop) for key, prop in props.items() if key in required},
        optional={key: property_wire(prop) for key, prop in props.items() if key not in required},
    )


# --------------------------------------------------------------------------------------
# Field plans: a field's type, and an independent model of what its wire values mean
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Plan:
    """One generated field type and the independent model of its wire values."""

    kind: str
    core: Any  # the annotation, without `| None`
    to_python: Callable[[Any], Any]  # sampled wire value -> expected Python value
    wire: st.SearchStrategy[Any]  # valid wire values, to draw defaults from
    strict_low: float | None = None  # exclusive float bounds, enforced only when decoding
    strict_high: float | None = None
    wire_min: Any = None  # the minimum/maximum the schema must show
    wire_max: Any = None
    mutable: bool = False  # a list or set default needs a factory

    def accepts(self, wire: Any) -> bool:
        """Whether a wire value inside the schema's inclusive bounds is also accepted."""
        return not (
            (self.strict_low is not None and wire <= self.strict_low)
            or (self.strict_high is not None and wire >= self.strict_high)
        )


_BOUND = {"ge": at.Ge, "gt": at.Gt, "le": at.Le, "lt": at.Lt}


def _constrained(core: Any, vocabulary: str, constraints: dict[str, Any]) -> Any:
    """``Annotated[core, ...]`` carrying the constraints in one vocabulary."""
    if not constraints:
        return core
    if vocabulary == "msgspec" and (
        {"ge", "gt"} <= set(constraints) or {"le", "lt"} <= set(constraints)
    ):
        vocabulary = "at"  # msgspec declares such a type invalid
    if vocabulary == "pydantic":
        metadata: list[Any] = [pydantic.Field(**constraints)]
    elif vocabulary == "msgspec":
        metadata = [msgspec.Meta(**constraints)]
    else:
        metadata = []
        lengths = {k: v for k, v in constraints.items() if k in ("min_length", "max_length")}
        if len(lengths) == 2 and vocabulary == "at-len":
            metadata.append(at.Len(lengths["min_length"], lengths["max_length"]))
        else:
            metadata += [at.MinLen(v) for k, v in lengths.items() if k == "min_length"]
            metadata += [at.MaxLen(v) for k, v in lengths.items() if k == "max_length"]
        metadata += [_BOUND[k](v) for k, v in constraints.items() if k in _BOUND]
    return Annotated[(core, *metadata)]


vocabularies = st.sampled_from(["at", "at-len", "pydantic", "msgspec"])


@st.composite
def lengths(draw: st.DrawFn, floor: int = 0, most: int = 12) -> dict[str, int]:
    """Consistent length limits: min <= max, and max at least ``floor``."""
    low = draw(st.none() | st.integers(0, most))
    high = draw(st.none() | st.integers(max(low or 0, floor), max(low or 0, floor) + 15))
    out = {}
    if low is not None:
        out["min_length"] = low
    if high is not None:
        out["max_length"] = high
    return out


@st.composite
def text_plans(draw: st.DrawFn) -> Plan:
    fmt = draw(st.sampled_from([None, None, "email", "uri"]))
    limits = draw(lengths(floor=_FORMAT_MIN_LENGTH.get(fmt, 0) if fmt else 0))
    core: Any = str
    if fmt is not None:
        core = Annotated[str, elicitkit.Email if fmt == "email" else elicitkit.Uri]
    core = _constrained(core, draw(vocabularies), limits)
    wire = text_wire(fmt, limits.get("min_length"), limits.get("max_length"))
    return Plan(kind=fmt or "text", core=core, to_python=str, wire=wire)


@st.composite
def integer_plans(draw: st.DrawFn, fractional: bool) -> Plan:
    """Integer fields; ``fractional`` also spells bounds as floats (pydantic refuses those)."""
    small = st.integers(-1000, 1000)
    low = draw(st.none() | small | st.integers(-(10**30), 10**30))
    high = draw(st.none() | st.integers(low if low is not None else -1000, 10**30))
    constraints: dict[str, Any] = {}
    if low is not None:
        # Each spelling of the same inclusive integer bound.
        name, value = draw(
            st.sampled_from(
                [("ge", low), ("gt", low - 1)]
                + (
                    [("ge", low - 0.5), ("gt", low - 0.5)]
                    if fractional and abs(low) < 2**40
                    else []
                )
            )
        )
        constraints[name] = value
    if high is not None:
        name, value = draw(
            st.sampled_from(
                [("le", high), ("lt", high + 1)]
                + (
                    [("le", high + 0.5), ("lt", high + 0.5)]
                    if fractional and abs(high) < 2**40
                    else []
                )
            )
        )
        constraints[name] = value
    return Plan(
        kind="integer",
        core=_constrained(int, draw(vocabularies), constraints),
        to_python=lambda wire: wire,
        wire=integer_wire(low, high),
        wire_min=low,
        wire_max=high,
    )


@st.composite
def number_plans(draw: st.DrawFn, kind: str) -> Plan:
    """float or Decimal fields, with inclusive, exclusive or both kinds of bound per side."""
    finite = st.floats(-1e9, 1e9, allow_nan=False) | st.integers(-1000, 1000)
    if kind == "decimal":  # decimal fields: bounds that read the same as floats and decimals
        finite = st.integers(-1000, 1000) | st.sampled_from([0.5, -2.25, 0.1, 1e-3, 12.75])
    low = draw(st.none() | finite)
    high = draw(st.none() | finite)
    if low is not None and high is not None:
        low, high = min(low, high), max(low, high)
        if math.nextafter(low, math.inf) >= high:  # leave floats strictly between them
            high = None
    constraints: dict[str, Any] = {}
    strict_low = strict_high = None
    for bound, inclusive, exclusive, step in ((low, "ge", "gt", -1), (high, "le", "lt", 1)):
        if bound is None:
            continue
        names = draw(st.sampled_from([(inclusive,), (exclusive,), (inclusive, exclusive)]))
        # With both, one carries the bound and the other a looser one.
        tighter = draw(st.sampled_from(names))
        for name in names:
            constraints[name] = bound if name == tighter else bound + step * draw(st.integers(0, 5))
        if exclusive in names:
            if step < 0:
                strict_low = constraints[exclusive]
            else:
                strict_high = constraints[exclusive]
    if kind == "decimal":
        to_python: Callable[[Any], Any] = lambda wire: decimal.Decimal(repr(wire))  # noqa: E731
        core: Any = decimal.Decimal
    else:
        to_python, core = float, float
    # Defaults: values strictly inside exclusive bounds.
    inside = st.floats(
        low,
        high,
        exclude_min=low is not None and low == strict_low,
        exclude_max=high is not None and high == strict_high,
        allow_nan=False,
        allow_infinity=False,
    )
    return Plan(
        kind=kind,
        core=_constrained(core, draw(vocabularies), constraints),
        to_python=to_python,
        wire=inside,
        strict_low=strict_low,
        strict_high=strict_high,
        wire_min=low,
        wire_max=high,
    )


@st.composite
def enum_classes(draw: st.DrawFn) -> type[enum.Enum]:
    """A new Enum with str or int values (no aliases), made with the functional API."""
    if draw(st.booleans()):
        values: list[Any] = draw(st.lists(st.text(max_size=6), min_size=1, max_size=6, unique=True))
    else:
        values = draw(st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=6, unique=True))
    return enum.Enum(f"E{next(_counter)}", {f"M{i}": value for i, value in enumerate(values)})  # type: ignore[return-value]


def _literal_wire(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@st.composite
def options(draw: st.DrawFn) -> tuple[Any, dict[str, Any], Any]:
    """An Enum or Literal: (the type, wire -> Python value, labels for FormField or None)."""
    if draw(st.booleans()):
        cls = draw(enum_classes())
        members = list(cls)
        by_value = type(members[0].value)
        meaning = {str(m.value): m for m in members}  # checked against the by-value lookup
        for wire, member in meaning.items():
            assert cls(by_value(wire)) is member
        labels = draw(
            st.none() | st.dictionaries(st.sampled_from(members), st.text(min_size=1, max_size=6))
        )
        return cls, meaning, labels
    values = draw(
        st.lists(
            st.text(max_size=6) | st.integers(-50, 50) | st.booleans(),
            min_size=1,
            max_size=6,
            unique_by=_literal_wire,
        )
    )
    meaning = {_literal_wire(value): value for value in values}
    labels = draw(st.none() | st.dictionaries(st.sampled_from(list(meaning)), st.text(max_size=6)))
    return Literal[tuple(values)], meaning, labels  # type: ignore[valid-type]


@st.composite
def choice_plans(draw: st.DrawFn) -> Plan:
    tp, meaning, labels = draw(options())
    core = tp if labels is None else Annotated[tp, FormField(labels=labels)]
    return Plan(
        kind="choice",
        core=core,
        to_python=meaning.__getitem__,
        wire=st.sampled_from(list(meaning)),
    )


_CONTAINERS: dict[Any, type] = {list: list, set: set, frozenset: frozenset, tuple: tuple}


@st.composite
def multi_plans(draw: st.DrawFn) -> Plan:
    tp, meaning, labels = draw(options())
    origin = draw(st.sampled_from(list(_CONTAINERS)))
    core: Any = tuple[tp, ...] if origin is tuple else origin[tp]
    count = len(meaning)
    low = draw(st.none() | st.integers(0, count))
    high = draw(st.none() | st.integers(low or 0, count + 2))
    limits = {}
    if low is not None:
        limits["min_length"] = low
    if high is not None:
        limits["max_length"] = high
    core = _constrained(core, draw(vocabularies), limits)
    if labels is not None:
        core = Annotated[core, FormField(labels=labels)]
    container = _CONTAINERS[origin]
    return Plan(
        kind="multi",
        core=core,
        to_python=lambda wire: container(meaning[item] for item in wire),
        wire=multi_wire(list(meaning), low, high),
        mutable=origin in (list, set),
    )


def _simple(kind: str, core: Any, to_python: Callable[[Any], Any], wire: Any) -> Plan:
    return Plan(kind=kind, core=core, to_python=to_python, wire=wire)


def field_plans(shape: str) -> st.SearchStrategy[Plan]:
    kinds = [
        text_plans(),
        integer_plans(fractional=not shape.startswith("pydantic")),
        number_plans("float"),
        number_plans("decimal"),
        st.just(_simple("bool", bool, lambda wire: wire, st.booleans())),
        choice_plans(),
        st.just(_simple("date", dt.date, dt.date.fromisoformat, text_wire("date", None, None))),
        st.just(
            _simple(
                "datetime",
                dt.datetime,
                _iso_datetime,
                text_wire("date-time", None, None),
            )
        ),
        multi_plans(),
    ]
    return st.one_of(kinds)


# --------------------------------------------------------------------------------------
# Whole forms
# --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Field:
    """One field of a generated form."""

    attr: str
    key: str
    plan: Plan
    optional: bool  # annotated `X | None`
    default: Any = _MISSING  # a Python default value
    factory: Callable[[], Any] | None = None
    key_required: bool = True  # TypedDict: not NotRequired

    @property
    def annotation(self) -> Any:
        return self.plan.core | None if self.optional else self.plan.core

    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING or self.factory is not None

    @property
    def required(self) -> bool:
        return self.key_required and not self.optional and not self.has_default

    def absent(self) -> Any:
        """What the decoded form holds for this field when the answer leaves it out."""
        if not self.key_required:
            return _MISSING  # a TypedDict key left out
        if self.factory is not None:
            return self.factory()
        if self.default is not _MISSING:
            return self.default
        return None


@dataclasses.dataclass
class Form:
    """A generated form type, with what is needed to predict its decoded values."""

    shape: str
    tp: Any
    fields: list[Field]

    @property
    def has_multi(self) -> bool:
        return any(field.plan.kind == "multi" for field in self.fields)

    def attributes(self, value: Any) -> dict[str, Any]:
        """The decoded instance's field values, by attribute name."""
        if self.shape in ("dataclass", "pydantic-dataclass"):
            assert type(value) is self.tp
            return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if self.shape == "pydantic":
            assert type(value) is self.tp
            return dict(value)
        if self.shape == "msgspec":
            assert type(value) is self.tp
            return msgspec.structs.asdict(value)
        if self.shape == "typeddict":
            assert type(value) is dict
            return value
        return {"value": value}


def _iso_datetime(text: str) -> dt.datetime:
    """The oracle for date-time answers: stdlib parsing, normalised for Python 3.10.

    Python 3.10's ``fromisoformat`` takes neither ``Z`` nor fractions other than 3 or 6 digits.
    """
    text = text.replace("Z", "+00:00").replace("z", "+00:00")
    shape = r"(.*[T ]\d\d:\d\d:\d\d)\.(\d+)(.*)"
    match = re.fullmatch(shape, text, flags=re.ASCII | re.IGNORECASE)
    if match:
        head, fraction, zone = match.groups()
        text = f"{head}.{fraction[:6].ljust(6, '0')}{zone}"
    return dt.datetime.fromisoformat(text)


@st.composite
def defaults(draw: st.DrawFn, plan: Plan, optional: bool) -> tuple[Any, Any]:
    """(default, factory) for a field: none, a value, or a factory."""
    choice = draw(st.sampled_from(["none", "value", "factory"]))
    if choice == "none":
        return _MISSING, None
    if optional and draw(st.booleans()):
        value: Any = None
    else:
        value = plan.to_python(draw(plan.wire))
    if choice == "factory" or plan.mutable:
        return _MISSING, _returns(value, plan)
    return value, None


def _returns(value: Any, plan: Plan) -> Callable[[], Any]:
    """A zero-argument factory returning a fresh copy of ``value``."""
    if plan.mutable and value is not None:
        return functools.partial(type(value), value)
    return functools.partial(lambda v: v, value)


ALIASED = ("pydantic", "pydantic-dataclass", "msgspec")


@st.composite
def wire_keys(draw: st.DrawFn, shape: str, count: int) -> list[str]:
    """The fields' wire keys: their names, aliases, or the names shuffled between fields."""
    names = [f"f{index}" for index in range(count)]
    how = draw(st.sampled_from(["names", "aliases", "shuffled"])) if shape in ALIASED else "names"
    if how == "shuffled":
        return list(draw(st.permutations(names)))
    if how == "aliases":
        return [
            draw(st.sampled_from([name, f"wireKey{index}", f"wire key {index}"]))
            for index, name in enumerate(names)
        ]
    return names


@st.composite
def forms(draw: st.DrawFn, shape: str, include: st.SearchStrategy[Plan] | None = None) -> Form:
    """A random form of one shape; ``include`` adds a field drawn from that strategy."""
    name = f"Form{next(_counter)}"
    if shape == "scalar":
        plan = draw(field_plans(shape) if include is None else include)
        field = Field("value", "value", plan, optional=draw(st.booleans()))
        return Form(shape, field.annotation, [field])

    plans = draw(st.lists(field_plans(shape), min_size=1 if include is None else 0, max_size=5))
    if include is not None:
        plans.insert(draw(st.integers(0, len(plans))), draw(include))
    keys = draw(wire_keys(shape, len(plans)))
    fields = []
    for index, (plan, key) in enumerate(zip(plans, keys, strict=True)):
        field = Field(f"f{index}", key, plan, optional=draw(st.booleans()))
        if shape == "typeddict":
            field.key_required = draw(st.booleans())
        else:
            field.default, field.factory = draw(defaults(plan, field.optional))
        fields.append(field)

    if shape == "dataclass":
        kw_only = draw(st.booleans())
        if not kw_only:  # fields without a default come first
            fields.sort(key=lambda f: f.has_default)
        tp = dataclasses.make_dataclass(
            name,
            [
                (
                    f.attr,
                    f.annotation,
                    dataclasses.field(default_factory=f.factory)
                    if f.factory is not None
                    else dataclasses.field(default=f.default)
                    if f.default is not _MISSING
                    else dataclasses.field(),
                )
                for f in fields
            ],
            kw_only=kw_only,
        )
    elif shape == "pydantic-dataclass":
        kw_only = draw(st.booleans())
        if not kw_only:
            # A pydantic.Field(alias=...) is a class attribute, so the stdlib dataclass
            # machinery counts it as a default even when pydantic does not.
            fields.sort(key=lambda f: f.has_default or f.key != f.attr)
        namespace: dict[str, Any] = {"__annotations__": {f.attr: f.annotation for f in fields}}
        for f in fields:
            kwargs = {} if f.key == f.attr else {"alias": f.key}
            if f.factory is not None:
                kwargs["default_factory"] = f.factory
            elif f.default is not _MISSING:
                kwargs["default"] = f.default
            if kwargs:
                namespace[f.attr] = pydantic.Field(**kwargs)
        tp = pydantic.dataclasses.dataclass(type(name, (), namespace), kw_only=kw_only)
    elif shape == "pydantic":
        definitions = {}
        for f in fields:
            kwargs: dict[str, Any] = {} if f.key == f.attr else {"alias": f.key}
            if f.factory is not None:
                kwargs["default_factory"] = f.factory
            elif f.default is not _MISSING:
                kwargs["default"] = f.default
            definitions[f.attr] = (f.annotation, pydantic.Field(**kwargs))
        tp = pydantic.create_model(name, **definitions)  # type: ignore[call-overload]
    elif shape == "msgspec":
        specs = []
        for f in fields:
            kwargs = {} if f.key == f.attr else {"name": f.key}
            if f.factory is not None:
                kwargs["default_factory"] = f.factory
            elif f.default is not _MISSING:
                kwargs["default"] = f.default
            specs.append((f.attr, f.annotation, msgspec.field(**kwargs)))
        tp = msgspec.defstruct(name, specs, kw_only=True)
    else:
        total = draw(st.booleans())
        hints = {}
        for f in fields:
            hint = f.annotation
            if not f.key_required:
                hint = typing_extensions.NotRequired[hint]
            elif not total:
                hint = typing_extensions.Required[hint]
            hints[f.attr] = hint
        tp = typing_extensions.TypedDict(name, hints, total=total)  # type: ignore[operator]
    return Form(shape, tp, fields)


def _typed(value: Any) -> Any:
    """A comparable picture of a value that also tells 1, 1.0 and True apart."""
    if isinstance(value, (list, tuple)):
        return (type(value), [_typed(item) for item in value])
    if isinstance(value, (set, frozenset)):
        return (type(value), frozenset(_typed(item) for item in value))
    if isinstance(value, dict):
        return (type(value), {key: _typed(item) for key, item in value.items()})
    if isinstance(value, (dt.date, decimal.Decimal)):
        return (type(value), str(value))  # aware datetimes: the offset counts
    return (type(value), value)


# --------------------------------------------------------------------------------------
# The round trip
# --------------------------------------------------------------------------------------

SHAPES = ["dataclass", "pydantic", "pydantic-dataclass", "msgspec", "typeddict", "scalar"]


def _check_schema_matches_plan(form: Form, schema: dict[str, Any]) -> None:
    props = schema["properties"]
    assert list(props) == [field.key for field in form.fields]
    assert set(schema.get("required", [])) == {f.key for f in form.fields if f.required}
    for field in form.fields:
        prop = props[field.key]
        if field.plan.kind in ("integer", "float", "decimal"):
            assert prop.get("minimum") == field.plan.wire_min, prop
            assert prop.get("maximum") == field.plan.wire_max, prop


def _expected(form: Form, answer: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for field in form.fields:
        # "" in an optional plain-text field is an input left empty: the field is absent.
        left_empty = answer.get(field.key) == "" and not field.required
        given = field.key in answer and not (left_empty and field.plan.kind == "text")
        value = field.plan.to_python(answer[field.key]) if given else field.absent()
        if value is not _MISSING:
            out[field.attr] = value
    return out


def _round_trip(form: Form, data: st.DataObject) -> None:
    versions = [v for v in PROTOCOL_VERSIONS if not (form.has_multi and v == "2025-06-18")]
    protocol = data.draw(st.sampled_from(versions), label="protocol")
    legacy = data.draw(st.booleans(), label="legacy_enum_names")
    schema = requested_schema(form.tp, protocol=protocol, legacy_enum_names=legacy)
    _check_schema_matches_plan(form, schema)
    answer = data.draw(answers(schema), label="answer")

    rejected = [
        field.key
        for field in form.fields
        if field.key in answer and not field.plan.accepts(answer[field.key])
    ]
    event("answer at an exclusive float bound" if rejected else "answer accepted")
    if rejected:  # a float sent exactly at an exclusive bound, which the wire shows inclusive
        with pytest.raises(InvalidContent) as caught:
            parse_content(form.tp, answer, protocol=protocol)
        assert [error.field for error in caught.value.errors] == rejected
        assert all(error.message.endswith(".") for error in caught.value.errors)
        return

    value = parse_content(form.tp, answer, protocol=protocol)
    assert _typed(form.attributes(value)) == _typed(_expected(form, answer))


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPES)
@SETTINGS
@given(data=st.data())
def test_sampled_answer_decodes_to_the_expected_value(shape: str, data: st.DataObject) -> None:
    form = data.draw(forms(shape), label="form")
    _round_trip(form, data)


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPES)
@settings(SETTINGS, max_examples=10)
@given(data=st.data())
def test_multi_selects_round_trip_as_checkboxes_on_the_first_version(
    shape: str, data: st.DataObject
) -> None:
    form = data.draw(forms(shape, include=multi_plans()), label="form")
    modern = requested_schema(form.tp, protocol="2025-11-25")
    answer = data.draw(answers(modern), label="answer")
    old = requested_schema(form.tp, protocol="2025-06-18")
    boxed, folded = dict(answer), dict(answer)
    for field in form.fields:
        if field.plan.kind != "multi":
            continue
        items = modern["properties"][field.key]["items"]
        options = items["enum"] if "enum" in items else [o["const"] for o in items["anyOf"]]
        chosen = boxed.pop(field.key, [])  # left out: nothing ticked
        for index, wire in enumerate(options):
            key = f"{field.key}__{index + 1}"
            assert old["properties"][key]["type"] == "boolean"
            boxed[key] = wire in chosen
        assert field.key not in old["properties"]
        assert field.key not in old.get("required", [])
        folded[field.key] = [wire for wire in options if wire in chosen]
        prop = modern["properties"][field.key]
        if not chosen and field.key not in modern.get("required", []) and "default" not in prop:
            del folded[field.key]  # nothing ticked on an optional field: no answer
    assume(
        all(field.plan.accepts(folded[field.key]) for field in form.fields if field.key in folded)
    )
    try:
        expected = _typed(form.attributes(parse_content(form.tp, folded, protocol="2025-11-25")))
    except InvalidContent as error:  # e.g. fewer ticked than the minimum: the same refusal
        refusal = error.errors
    else:
        refusal = None
    if refusal is not None:
        with pytest.raises(InvalidContent) as caught:
            parse_content(form.tp, boxed, protocol="2025-06-18")
        assert caught.value.errors == refusal
        return
    value = parse_content(form.tp, boxed, protocol="2025-06-18")
    assert _typed(form.attributes(value)) == expected == _typed(_expected(form, folded))


def test_float_exclusive_bound_is_inclusive_on_the_wire_and_strict_when_decoding() -> None:
    form = Annotated[float, at.Gt(0.5), at.Lt(2)]
    schema = requested_schema(form)
    assert schema["properties"]["value"] == {
        "type": "number",
        "title": "Number",
        "description": "Must be more than 0.5 and less than 2.",
        "minimum": 0.5,
        "maximum": 2,
    }
    assert parse_content(form, {"value": 1}) == 1.0
    for edge, message in ((0.5, "Must be greater than 0.5."), (2, "Must be less than 2.")):
        with pytest.raises(InvalidContent) as caught:
            parse_content(form, {"value": edge})
        assert caught.value.errors == [FieldError("value", message)]


# --------------------------------------------------------------------------------------
# The smallest cases of what the round trip found
# --------------------------------------------------------------------------------------

Blank = enum.Enum("Blank", {"NONE": "", "A": "a"})


@pytest.mark.parametrize(
    ("tp", "blank"),
    [(Literal["", "a"] | None, ""), (Blank | None, Blank.NONE)],
    ids=["literal", "enum"],
)
def test_the_blank_option_of_an_optional_choice_is_an_answer(tp: Any, blank: Any) -> None:
    """The schema offers "" as an option; choosing it must not read as "no answer"."""
    assert "" in requested_schema(tp)["properties"]["value"]["enum"]
    assert parse_content(tp, {"value": ""}) == blank


class Note(typing_extensions.TypedDict):
    note: int | None


def test_an_absent_optional_value_keeps_its_typeddict_key() -> None:
    """``note: int | None`` is a required key: leaving the answer out gives None, not no key."""
    assert "required" not in requested_schema(Note)
    assert parse_content(Note, {}) == {"note": None}


class Swapped(pydantic.BaseModel):
    first: int = pydantic.Field(alias="second")
    second: int = pydantic.Field(alias="first")


def test_pydantic_aliases_may_be_other_fields_names() -> None:
    assert list(requested_schema(Swapped)["properties"]) == ["second", "first"]
    answer = {"second": 1, "first": 2}
    assert parse_content(Swapped, answer) == Swapped.model_validate(answer)


@pydantic.dataclasses.dataclass
class Person:
    first_name: str = pydantic.Field(alias="firstName")


def test_a_pydantic_dataclass_with_an_alias_can_be_answered() -> None:
    (key,) = requested_schema(Person)["properties"]
    assert parse_content(Person, {key: "Ada"}) == Person(firstName="Ada")  # type: ignore[call-arg]
    assert key == "firstName"  # as for pydantic models: the alias is the wire key
