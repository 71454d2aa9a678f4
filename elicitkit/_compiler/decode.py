"""Decoding: a client's untrusted answer -> the author's type, or every problem with it.

Each field gets one checker that validates a wire value and converts it (Enum member, date,
Decimal, set of choices...) or returns a `_Problem` saying why not. A decoder runs every
checker, collects every problem as a `FieldError`, and only then builds the author's type,
so pydantic validators run last and their failures land in the same list.

An answer carried in the sealed replay state (2026-07-28) was checked in the round it
arrived; a later round *rebuilds* it (`build_rebuilder`): the same per-field plan, each
field's converter without its checks.

One plain loop over the fields serves every answer, valid or not. (A generated
straight-line fast path and an unrolled error collector once stood in front of it: they
saved about 2 µs of a round trip that costs about 550 µs of CPU, under 0.5 %, and were
retired; see benchmarks/README.md.)
"""

from __future__ import annotations

import datetime as dt
import math
import reprlib
from collections.abc import Callable, Sequence
from typing import Any, cast

import pydantic

from elicitkit._compiler.form_spec import (
    MISSING,
    Choice,
    Decoder,
    FieldSpec,
    FormSpec,
    Kind,
    Rebuilder,
    Shape,
)
from elicitkit._compiler.nesting import KEY_SEPARATOR, TITLE_SEPARATOR
from elicitkit._compiler.prefill import wire_default
from elicitkit._compiler.wire_formats import (
    DATE_SHAPE,
    has_surrogate,
    is_email,
    is_uri,
    parse_date,
    parse_datetime,
    pattern_matcher,
)
from elicitkit.errors import FieldError, InvalidContent

_FORMAT_PROBLEMS = {
    "date": "Expected a date like 2024-12-31",
    "date-time": "Expected a date and time like 2024-12-31T18:30:00Z",
    "email": "Expected an email address like name@example.com",
    "uri": "Expected a link like https://example.com",
}
# Each format's test, falsy for text that is not of the format. It refuses without
# raising, so a bad value costs no exception: for dates, the shape parse_date itself
# checks first (it then refuses only days that do not exist).
_FORMAT_SHAPES: dict[str, Callable[[str], object]] = {
    "date": DATE_SHAPE.fullmatch,
    "email": is_email,
    "uri": is_uri,
}
_FORMAT_PARSERS: dict[str, Callable[[str], object]] = {
    "date": dt.date.fromisoformat,  # what parse_date does once the shape has passed
    "date-time": parse_datetime,
}


MAX_DIGITS = 100
"""The most digits a whole number in an answer may have (ints and Decimals).

Python's int-to-text conversion is quadratic (3.11+ refuses past 4,300 digits, so a
5,000-digit answer would decode and then crash the tool's first ``repr``), and no form
input has a use for more: a 64-bit id has 20 digits. Checked by comparison, which is
linear in the number's size.
"""
DIGITS_LIMIT = 10**MAX_DIGITS  # a whole number n has at most MAX_DIGITS digits when |n| < this


class _Problem(str):
    """What a checker returns instead of a value it refuses: why, for the person who answered.

    Returned, not raised: raising and catching an exception costs CPython about three times
    as much as returning, and an invalid answer has one per bad field. No checked value is
    ever of this private type, so ``result.__class__ is _Problem`` tells them apart.
    """

    __slots__ = ()


PlanEntry = tuple[str, str, Callable[[Any], Any], bool, bool, Any, Callable[[Any], Any] | None]
"""How the reference decoder treats one field: wire key, constructor keyword, checker,
required, whether ``""`` means absent, what an absent value becomes, and the converter a
rebuild uses instead of the checker (``None``: the wire value is the value)."""


Builder = Callable[[dict[str, Any]], Any]


def build_decoder(
    spec: FormSpec,
    *,
    plan: Sequence[PlanEntry] | None = None,
    build: Builder | None = None,
) -> Decoder:
    """Compile the decoder for one form: ``decode(content) -> value of spec.tp``.

    Args:
        spec: The form.
        plan: Each field's `field_plan`, in form order, and ``build``, the form's
            `result_builder`, when the caller has them already: per-call overrides reuse
            those of the compiled form for what they leave alone.
        build: See ``plan``.
    """
    if any(field.groups for field in spec.fields):
        # Nested forms: the flat fields decoded into a dict, then the instances built.
        return _nested_decoder(spec, _checked_decoder(spec, build=dict, plan=plan))
    return _checked_decoder(spec, build=build, plan=plan)


def build_rebuilder(
    spec: FormSpec,
    *,
    plan: Sequence[PlanEntry] | None = None,
    build: Builder | None = None,
) -> Rebuilder:
    """Compile the rebuilder of one form: checked wire values -> value of spec.tp, unchecked.

    For the answers carried in the replay state on 2026-07-28, which `build_decoder`'s
    decoder checked in the round they arrived. Skipping the checks is safe because nothing
    but this server can write that state: the SDK seals it with AES-GCM under the server's
    key (`RequestStateBoundary`) and binds it to the tool, its arguments and the principal,
    and elicitkit puts an answer in it only after the decoder accepted it, for the question
    whose digest (message and schema, overrides included) it carries; a tampered state is
    refused before elicitkit reads it. (A deploy that tightens a check the schema does not
    show, a pattern or a validator, between two rounds of one dialogue does not re-judge
    the answers already carried: they were valid when given.)

    The type is still built as the decoder builds it: ``__post_init__`` and a pydantic
    model's own validators run (once per round, as when the answer arrived), since they may
    turn the values into the ones the author expects.

    Args:
        spec: The form.
        plan: See `build_decoder`: the same plan serves both.
        build: See `build_decoder`.
    """
    if plan is None:
        plan = [field_plan(spec, field) for field in spec.fields]
    if any(field.groups for field in spec.fields):
        # Nested forms: the flat fields rebuilt into a dict, then the instances built.
        keys = [field.key for field in spec.fields]
        flat = _rebuilder(plan, dict)
        nested = _nested_decoder(spec, lambda content: flat([content.get(key) for key in keys]))
        return lambda values: nested(
            {key: value for key, value in zip(keys, values, strict=False) if value is not None}
        )
    return _rebuilder(plan, _builder(spec) if build is None else build)


def _rebuilder(plan: Sequence[PlanEntry], build: Builder) -> Rebuilder:
    # Only what a rebuild reads, so the loop unpacks four items, not seven.
    steps = [(attr, blank, absent, convert) for _, attr, _, _, blank, absent, convert in plan]
    count = len(steps)

    def rebuild(values: Sequence[Any]) -> Any:
        out: dict[str, Any] = {}
        for (attr, blank_is_absent, absent, convert), value in zip(steps, values):  # noqa: B905  (the rest, below; the state is ours)
            if value is None or (blank_is_absent and value == ""):
                if absent is not OMIT:
                    out[attr] = absent() if callable(absent) else absent[0]
                continue
            out[attr] = value if convert is None else convert(value)
        # The state drops trailing absent values: those fields take their absent value.
        for attr, _, absent, _ in steps[len(values) : count]:
            if absent is not OMIT:
                out[attr] = absent() if callable(absent) else absent[0]
        return build(out)

    return rebuild


def field_plan(spec: FormSpec, field: FieldSpec) -> PlanEntry:
    """How the reference decoder of ``spec`` treats ``field`` (one of its fields)."""
    return (
        field.key,
        field.attr,
        _checker(field),
        field.required,
        _blank_is_absent(field),
        _absent(spec, field),
        _converter(field),
    )


def _checked_decoder(
    spec: FormSpec,
    build: Callable[[dict[str, Any]], Any] | None = None,
    plan: Sequence[PlanEntry] | None = None,
) -> Decoder:
    """The reference decoder: run every field's checker and collect every problem.

    ``build`` makes the result from the checked values (default: the form's own type).
    """
    name = spec.name
    if plan is None:
        plan = [field_plan(spec, field) for field in spec.fields]
    if build is None:
        build = _builder(spec)

    def decode(content: Any) -> Any:
        if type(content) is not dict:
            got = "nothing" if content is None else _json_kind(content)
            raise InvalidContent(
                name, [FieldError(None, f"Expected an object of field values, got {got}.")]
            )
        answer = cast("dict[str, Any]", content)
        values: dict[str, Any] = {}
        errors: list[FieldError] = []
        for key, attr, check, required, blank_is_absent, absent, _ in plan:
            value = answer.get(key)
            if value is None or (blank_is_absent and value == ""):
                if required:
                    errors.append(FieldError(key, "This field is required."))
                elif absent is not OMIT:
                    values[attr] = absent() if callable(absent) else absent[0]
                continue
            checked = check(value)
            if checked.__class__ is _Problem:
                errors.append(FieldError(key, str(checked)))
            else:
                values[attr] = checked
        if errors:
            raise InvalidContent(name, errors)
        return build(values)

    return decode


OMIT: Any = object()  # leave the key out: the type applies its own default


def _absent(spec: FormSpec, field: FieldSpec) -> Any:
    """What an absent optional field becomes: a factory, a 1-tuple holding the value, or OMIT."""
    if field.omit_when_absent:
        return OMIT  # a TypedDict without the key, as NotRequired promises
    if (
        spec.shape is Shape.PYDANTIC_MODEL
        and not field.call_default
        and (field.default is not MISSING or field.default_factory is not None)
    ):
        return OMIT  # pydantic applies its default (and its factory) itself
    if field.default_factory is not None:
        return field.default_factory
    if field.default is not MISSING:
        return (field.default,)
    return (None,)


def check_value(field: FieldSpec, value: Any) -> str | None:
    """Return why a wire value does not fit a field, or ``None`` when it fits."""
    checked = _checker(field)(value)
    return str(checked) if checked.__class__ is _Problem else None


def _blank_is_absent(field: FieldSpec) -> bool:
    # Form clients send "" for an input left empty: every one observed (MCP Inspector,
    # fast-agent, the mcp-use Inspector, mcp-agent) sends it for an untouched optional text
    # field, and none lets a person send "no answer" any other way. So for an optional field
    # "" means "no answer", whatever its kind, unless it is one of the field's options or
    # the author asked to keep it (FormField(keep_empty=True), plain text only). A required
    # field keeps "": it is a value, checked like any other (minLength refuses it). In an
    # optional nested group a required field left "" is reported as missing by
    # `_direct_values`, and `_filled` does not count "", so a group left empty is absent.
    if field.required or field.keep_empty:
        return False
    return not any(choice.wire == "" for choice in field.choices)


# --------------------------------------------------------------------------------------
# Checkers: one per kind, specialised by the field's constraints; each returns the checked
# value, or a `_Problem` (the messages that never quote the value are made once)
# --------------------------------------------------------------------------------------


def _checker(field: FieldSpec) -> Callable[[Any], Any]:
    kind = field.kind
    if kind is Kind.TEXT:
        return _text_checker(field)
    if kind is Kind.INTEGER:
        return _number_checker(field, integer=True)
    if kind is Kind.NUMBER:
        return _number_checker(field, integer=False)
    if kind is Kind.BOOLEAN:
        return _boolean
    if kind is Kind.CHOICE:
        return _choice_checker(field)
    return _multi_checker(field)


def _boolean(value: Any) -> bool | _Problem:
    if type(value) is not bool:
        return _Problem(f"Expected true or false, got {_json_kind(value)}.")
    return value


def _text_checker(field: FieldSpec) -> Callable[[Any], Any]:
    low, high = field.min_length, field.max_length
    pattern = field.pattern
    matches = pattern_matcher(pattern) if pattern is not None else None
    fmt = field.format
    convert = field.convert
    not_format = _FORMAT_PROBLEMS[fmt] if fmt is not None else ""  # KeyError: no such format
    shaped = _FORMAT_SHAPES.get(fmt) if fmt is not None else None
    parse = _FORMAT_PARSERS.get(fmt) if fmt is not None else None
    # The problems that never quote the value, made once.
    too_short = _Problem(f"Must be at least {_count(low or 0, 'character')} long.")
    too_long = _Problem(f"Must be at most {_count(high or 0, 'character')} long.")

    def check(value: Any) -> Any:
        if type(value) is not str:
            return _Problem(f"Expected text, got {_json_kind(value)}.")
        if low is not None and len(value) < low:
            return too_short
        if high is not None and len(value) > high:
            return too_long
        if has_surrogate(value):
            return _SURROGATE_PROBLEM
        if matches is not None and not matches(value):
            return _Problem(f"Must match the pattern {pattern}.")
        if shaped is not None and not shaped(value):
            return _Problem(f"{not_format}, got {_shorten(value)}.")
        if parse is not None:
            try:
                parsed = parse(value)
            except ValueError:
                return _Problem(f"{not_format}, got {_shorten(value)}.")
            if convert is parse_date or convert is parse_datetime:
                return parsed
        if convert is not None:
            try:
                return convert(value)
            except ValueError:  # pydantic URL types: a link of the wrong kind
                return _Problem(f"{_FORMAT_PROBLEMS['uri']}, got {_shorten(value)}.")
        return value

    return check


def _number_checker(field: FieldSpec, *, integer: bool) -> Callable[[Any], Any]:
    low, high = field.minimum, field.maximum
    strict_low, strict_high = field.exclusive_minimum, field.exclusive_maximum
    convert = field.convert
    # The problems that never quote the value, made once.
    below, above = _Problem(f"Must be at least {low}."), _Problem(f"Must be at most {high}.")
    not_greater = _Problem(f"Must be greater than {strict_low}.")
    not_less = _Problem(f"Must be less than {strict_high}.")

    def check(value: Any) -> Any:
        kind = value.__class__
        if kind is not int and kind is not float:
            what = "a whole number" if integer else "a number"
            return _Problem(f"Expected {what}, got {_json_kind(value)}.")
        if kind is float and not math.isfinite(value):
            return _Problem("Must be a finite number.")
        if kind is int and not -DIGITS_LIMIT < value < DIGITS_LIMIT:
            return _Problem(f"Must have at most {MAX_DIGITS} digits.")
        if integer:
            if kind is float:
                if not value.is_integer():
                    return _Problem(f"Expected a whole number, got {value!r}.")
                value = int(value)
        elif convert is None and kind is int:
            value = float(value)  # no OverflowError: MAX_DIGITS is far below float's 308
        if low is not None and value < low:
            return below
        if high is not None and value > high:
            return above
        if strict_low is not None and value <= strict_low:
            return not_greater
        if strict_high is not None and value >= strict_high:
            return not_less
        return value if convert is None else convert(value)

    return check


def _choice_checker(field: FieldSpec) -> Callable[[Any], Any]:
    lookup = {choice.wire: choice.value for choice in field.choices}
    must_be = f"Must be {_options(field)}"

    def check(value: Any) -> Any:
        if type(value) is str and value in lookup:
            return lookup[value]
        return _Problem(f"{must_be}; got {_shorten(value)}.")

    return check


def _multi_checker(field: FieldSpec) -> Callable[[Any], Any]:
    lookup: dict[str, object] = {choice.wire: choice.value for choice in field.choices}
    every_must_be = f"Every option must be {_options(field)}"
    low, high = field.min_length, field.max_length
    container: Callable[[list[object]], object] = field.container or _as_list

    def check(value: Any) -> Any:
        if type(value) is not list:
            return _Problem(f"Expected a list of options, got {_json_kind(value)}.")
        chosen: list[str] = cast("list[str]", value)
        seen: set[str] = set()
        for item in chosen:  # one pass, a set lookup per item: linear in the list's length
            if type(item) is not str or item not in lookup:
                return _Problem(f"{every_must_be}; got {_shorten(item)}.")
            if item in seen:
                return _Problem(
                    f"Choose each option at most once; {_shorten(item)} appears more than once."
                )
            seen.add(item)
        if low is not None and len(chosen) < low:
            return _Problem(f"Choose at least {_count(low, 'option')}.")
        if high is not None and len(chosen) > high:
            return _Problem(f"Choose at most {_count(high, 'option')}.")
        return container([lookup[item] for item in chosen])

    return check


def _as_list(items: list[object]) -> list[object]:
    return items


def _converter(field: FieldSpec) -> Callable[[Any], Any] | None:
    """What the field's checker does to a value it accepts, and nothing else (for a rebuild)."""
    kind, convert = field.kind, field.convert
    if kind is Kind.TEXT:
        if convert is parse_date:
            return dt.date.fromisoformat  # parse_date's own parse, once its shape has passed
        return convert  # parse_datetime, a pydantic URL type, or nothing
    if kind is Kind.INTEGER:

        def whole(value: Any) -> Any:
            if value.__class__ is float:  # 36.0 was accepted as 36
                value = int(value)
            return value if convert is None else convert(value)

        return whole
    if kind is Kind.NUMBER:
        return float if convert is None else convert
    if kind is Kind.BOOLEAN:
        return None
    lookup: dict[str, object] = {choice.wire: choice.value for choice in field.choices}
    if kind is Kind.CHOICE:
        return lookup.__getitem__
    container: Callable[[list[object]], object] = field.container or _as_list
    return lambda value: container([lookup[item] for item in value])


# --------------------------------------------------------------------------------------
# Building the author's type
# --------------------------------------------------------------------------------------


def result_builder(spec: FormSpec) -> Builder:
    """Build an instance of the form's type from its checked values, keyed by keyword.

    Depends only on the form's type and its fields' names, keywords and wire keys, which
    per-call overrides never change.
    """
    return _builder(spec)


def _builder(spec: FormSpec) -> Callable[[dict[str, Any]], Any]:
    tp = spec.tp
    shape = spec.shape
    members = _direct_members(spec)
    key_of = {attr: key for attr, key, _ in members}
    # pydantic reports an error's location by alias (the wire key), or by field name when a
    # model validates by name; wire keys win where a name is also another field's alias.
    key_of_location = {name: key for _, key, name in members}
    key_of_location.update({key: key for _, key, _ in members})

    def errors_of(exc: ValueError) -> list[FieldError]:
        if isinstance(exc, pydantic.ValidationError):
            errors = exc.errors(include_url=False)
            return [_pydantic_error(error, key_of_location) for error in errors]
        return [FieldError(None, _sentence(str(exc) or type(exc).__name__))]

    if shape is Shape.SCALAR:
        return lambda values: values.get("value")
    if shape is Shape.TYPED_DICT:
        return dict
    if shape is Shape.PYDANTIC_MODEL:

        def build_model(values: dict[str, Any]) -> Any:
            try:
                return tp.model_validate({key_of[attr]: value for attr, value in values.items()})
            except ValueError as exc:
                raise InvalidContent(spec.name, errors_of(exc)) from None

        return build_model

    def build_instance(values: dict[str, Any]) -> Any:
        try:
            return tp(**values)
        except ValueError as exc:  # __post_init__ checks, pydantic dataclass validators
            raise InvalidContent(spec.name, errors_of(exc)) from None

    return build_instance


def _direct_members(spec: FormSpec) -> list[tuple[str, str, str]]:
    """(constructor keyword, wire key, name) of each field of the type itself.

    A nested form is one member (its group), however many wire fields it has.
    """
    members: dict[str, tuple[str, str, str]] = {}
    for field in spec.fields:
        if field.groups:
            group = field.groups[0]
            members.setdefault(group.attr, (group.attr, group.key, group.name))
        else:
            members[field.attr] = (field.attr, field.key, field.name)
    return list(members.values())


def _pydantic_error(error: Any, key_of: dict[str, str]) -> FieldError:
    loc = error.get("loc") or ()
    field = key_of.get(loc[0]) if loc and isinstance(loc[0], str) else None
    message: str = error.get("msg", "Invalid value")
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    return FieldError(field, _sentence(message))


# --------------------------------------------------------------------------------------
# Nested forms: rebuilt from their flat wire fields
# --------------------------------------------------------------------------------------


def _nested_decoder(spec: FormSpec, flat: Decoder) -> Decoder:
    """Decode the flat fields with ``flat``, then build the nested instances from them."""
    build = _builder(spec)
    key_of_attr = {field.attr: field.key for field in spec.fields}

    def decode(content: Any) -> Any:
        values: dict[str, Any] = flat(content)
        answer = cast("dict[str, Any]", content)
        by_key = {key_of_attr[attr]: value for attr, value in values.items()}
        errors: list[FieldError] = []
        direct = _direct_values(spec, by_key, answer, ("", ""), errors)
        if errors:
            raise InvalidContent(spec.name, errors)
        return build(direct)

    return decode


def _direct_values(
    spec: FormSpec,
    by_key: dict[str, Any],
    answer: dict[str, Any],
    prefixes: tuple[str, str],
    errors: list[FieldError],
) -> dict[str, Any]:
    """The constructor values of ``spec.tp``, its nested forms built; problems go to errors.

    ``prefixes`` turn the wire keys and titles of ``spec`` into those of the whole form.
    """
    prefix, title_prefix = prefixes
    out: dict[str, Any] = {}
    done: set[int] = set()
    for field in spec.fields:
        if not field.groups:
            if prefix + field.key in by_key:
                out[field.attr] = by_key[prefix + field.key]
            continue
        group = field.groups[0]
        if id(group) in done:
            continue
        done.add(id(group))
        members = [f for f in spec.fields if f.groups and f.groups[0] is group]
        inner = group.key + KEY_SEPARATOR
        if group.optional and not any(_filled(answer.get(prefix + f.key), f) for f in members):
            has_default = group.default is not MISSING or group.default_factory is not None
            if group.omit_when_absent or (has_default and spec.shape is Shape.PYDANTIC_MODEL):
                continue  # the type applies its own default
            if group.default_factory is not None:
                out[group.attr] = group.default_factory()
            else:
                out[group.attr] = None if group.default is MISSING else group.default
            continue
        if group.optional:
            # Partly filled: the group is wanted, so its own required fields must be there.
            for member in group.spec.fields:
                wire = prefix + inner + member.key
                if member.required and answer.get(wire) in (None, ""):
                    errors.append(
                        FieldError(
                            wire, f"Required when any of {title_prefix}{group.title} is filled in."
                        )
                    )
        inner_prefixes = (prefix + inner, f"{title_prefix}{group.title}{TITLE_SEPARATOR}")
        nested = _direct_values(group.spec, by_key, answer, inner_prefixes, errors)
        if errors:
            continue
        try:
            out[group.attr] = _builder(group.spec)(nested)
        except InvalidContent as problem:
            errors.extend(
                FieldError(None if e.field is None else prefix + inner + e.field, e.message)
                for e in problem.errors
            )
    return out


def _filled(value: Any, field: FieldSpec) -> bool:
    """Whether a value in an optional group says the user filled it in.

    Clients send unchecked boxes as ``false``, empty inputs as ``""`` and prefilled values
    back as they were, so none of those counts as filling the group in.
    """
    if value is None or value == "" or value is False or value == []:
        return False
    return bool(value != wire_default(field))


# --------------------------------------------------------------------------------------
# Message helpers
# --------------------------------------------------------------------------------------


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "Invalid value."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'}"
    if isinstance(value, int) and not -DIGITS_LIMIT < value < DIGITS_LIMIT:
        return f"a number of more than {MAX_DIGITS} digits"
    if isinstance(value, (int, float)):
        return f"the number {_shorten(value)}"
    if isinstance(value, str):
        return f"the text {_shorten(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


_PREVIEW_CHARS = 200  # of text, previewed: longer than any message shows; cut by _shorten


class _BoundedRepr(reprlib.Repr):
    """``repr`` that looks at a bounded part of a value, however large or deep it is.

    A client's value may be a megabyte of text, a list nested a hundred thousand deep
    (plain ``repr`` raises RecursionError) or an int of a million digits (whose ``repr``
    is quadratic, or refused past 4,300 digits).
    """

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 4
        self.maxstring = _PREVIEW_CHARS

    def repr_int(self, x: int, level: int) -> str:  # noqa: ARG002  (reprlib's signature)
        if not -DIGITS_LIMIT < x < DIGITS_LIMIT:
            return f"a number of more than {MAX_DIGITS} digits"
        return repr(x)

    def repr_str(self, x: str, level: int) -> str:  # noqa: ARG002  (reprlib's signature)
        return repr(x[: self.maxstring])


_bounded_repr = _BoundedRepr().repr


def _shorten(value: Any, limit: int = 40) -> str:
    # What _BoundedRepr gives plain text, without reprlib's dispatch (most previews are text).
    text = repr(value[:_PREVIEW_CHARS]) if value.__class__ is str else _bounded_repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


_SURROGATE_PROBLEM = _Problem(
    "Contains a surrogate code point (U+D800 to U+DFFF), which is not text; send valid Unicode."
)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


_MAX_OPTIONS_SHOWN = 8  # of a long list of options, a message names the first 8


def _options(field: FieldSpec) -> str:
    """The options as the person saw them: ``one of "Europe" ('eu'), "Americas" ('us')``.

    A labelled option is named by its label, with the wire value where the two differ (the
    client shows the label; the answer carries the value). A lone option reads ``'eu'``,
    not ``one of 'eu'``.
    """
    shown = [_option(choice, titled=field.titled) for choice in field.choices]
    if len(shown) == 1:
        return shown[0]
    if len(shown) > _MAX_OPTIONS_SHOWN:
        shown = [*shown[:_MAX_OPTIONS_SHOWN], "..."]
    return "one of " + ", ".join(shown)


def _option(choice: Choice, *, titled: bool) -> str:
    value = repr(choice.wire)
    if not titled or choice.label is None or choice.label == choice.wire:
        return value
    return f'"{_shorten_label(choice.label)}" ({value})'


def _shorten_label(label: str, limit: int = 60) -> str:
    # Labels are the author's text, but may be long: a message names each in a line.
    return label if len(label) <= limit else label[: limit - 3] + "..."
