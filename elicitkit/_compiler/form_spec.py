"""FormSpec: the one SDK-free description of a form that rendering and decoding read."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

StringFormat = Literal["email", "uri", "date", "date-time"]
"""The only string formats the MCP form grammar allows (every version)."""

LabelStyle = Literal["oneOf", "enumNames"]
"""How a choice field's option labels travel: ``oneOf`` (2025-11-25 on) or ``enumNames``."""

TitleStyle = Literal["sentence", "title", "name", "omit"]
"""How a field without an explicit title is titled on the wire (see `FormField`)."""


@dataclass(frozen=True)
class FormStyle:
    """Wire style for every field of a form that does not set its own (``@form(...)``).

    Attributes:
        title_style: How fields without a title are titled (`TitleStyle`), or ``None``.
        label_style: How choices' labels travel (`LabelStyle`), or ``None``: ``"enumNames"``
            applies to single choices only (multi-selects have no such form).
    """

    title_style: TitleStyle | None = None
    label_style: LabelStyle | None = None

    def under(self, enclosing: FormStyle | None) -> FormStyle:
        """This style, with what it leaves unset taken from an enclosing form's style."""
        if enclosing is None:
            return self
        return FormStyle(
            self.title_style or enclosing.title_style, self.label_style or enclosing.label_style
        )


NO_STYLE: Final = FormStyle()
"""The style of a form that sets none: every field decides for itself."""


Decoder = Callable[[Any], Any]
"""A compiled form's decoder: a client's content -> the form's value, or `InvalidContent`."""

Rebuilder = Callable[[Sequence[Any]], Any]
"""Rebuilds an answer a form's decoder accepted before, from its wire values in field order
(``None``: absent; a short list: the rest absent), converting without checking (see
``decode.build_rebuilder``)."""


class _Missing(enum.Enum):
    """Sentinel type for "no value", distinct from ``None`` (which is a real value)."""

    MISSING = enum.auto()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing.MISSING


class Kind(enum.Enum):
    """What a field is on the wire; each kind is one variant of the MCP form grammar."""

    TEXT = "text"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    CHOICE = "choice"
    MULTI_CHOICE = "multi_choice"


class Shape(enum.Enum):
    """How a form's answer is built back into the author's type."""

    DATACLASS = "dataclass"  # stdlib and pydantic dataclasses: cls(**fields)
    PYDANTIC_MODEL = "pydantic model"  # cls.model_validate(fields), so validators run
    STRUCT = "msgspec Struct"  # cls(**fields)
    TYPED_DICT = "TypedDict"  # a plain dict without the absent keys
    SCALAR = "single value"  # a bare type: the answer is the one field's value


@dataclass(frozen=True)
class Choice:
    """One option of a choice field.

    Attributes:
        wire: The string sent to and received from the client (choices are strings on
            every protocol version).
        value: What the author gets back: the Enum member or the Literal value.
        label: The display label, or ``None`` when the author gave none.
    """

    wire: str
    value: object
    label: str | None


@dataclass(frozen=True)
class FieldSpec:
    """One flat form field, normalised from whatever vocabulary declared it.

    Attributes:
        key: The property name on the wire (an alias, where the type declares one).
        attr: The keyword to construct the author's type with (the field name, or the
            alias a pydantic dataclass's constructor takes).
        name: The field's name in the author's type, for titles and messages.
        kind: The wire kind.
        title: The label shown to the user (given, or humanised from the name).
        description: Help text, if any.
        required: Whether the client must send the field.
        default: The Python default, or `MISSING`.
        default_factory: A zero-argument callable producing the default, or ``None``.
        omit_when_absent: An absent answer leaves the key out rather than filling in
            ``None`` (a ``NotRequired`` TypedDict key).
        format: The wire string format (``email``, ``uri``, ``date``, ``date-time``).
        minimum: The inclusive lower bound sent on the wire.
        maximum: The inclusive upper bound sent on the wire.
        exclusive_minimum: A strict lower bound enforced when decoding floats only,
            because the wire grammar has no exclusive bounds.
        exclusive_maximum: A strict upper bound, likewise.
        min_length: Minimum string length, or minimum number of selected options.
        max_length: Maximum string length, or maximum number of selected options.
        pattern: A regular expression enforced when decoding only (never sent: the wire
            grammar has no ``pattern``).
        choices: The options of a choice or multi-choice field.
        titled: Whether the options carry display labels on the wire.
        label_style: This field's own label style (``oneOf`` or ``enumNames``), or ``None``
            to follow the form.
        show_title: Whether ``title`` is sent (``FormField(title_style="omit")`` leaves it
            out).
        prefill: The value shown prefilled when it is not ``default`` (`MISSING`: none).
        groups: The nested forms the field sits in, outermost first (empty for a field of
            the form itself): decoding builds them back from their fields.
        call_default: ``default`` was given for this call (``Overrides(defaults=...)``), so
            an absent answer gets it even where the type has a default of its own.
        container: ``list``, ``set``, ``frozenset`` or ``tuple`` for a multi-choice field.
        convert: Turns the checked wire value into the author's value type (date,
            datetime, Decimal, a pydantic URL type), or ``None`` when no conversion is due.
        type_name: The author's annotation as written, for messages.
        keep_empty: An optional plain-text field keeps ``""`` as its answer
            (``FormField(keep_empty=True)``) instead of counting it as left empty.
    """

    key: str
    attr: str
    name: str
    kind: Kind
    title: str
    description: str | None = None
    required: bool = True
    default: Any = MISSING
    default_factory: Callable[[], Any] | None = None
    omit_when_absent: bool = False
    format: StringFormat | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    choices: tuple[Choice, ...] = ()
    titled: bool = False
    label_style: LabelStyle | None = None
    show_title: bool = True
    prefill: Any = MISSING
    call_default: bool = False
    groups: tuple[Group, ...] = ()
    container: type | None = None
    convert: Callable[[Any], Any] | None = None
    type_name: str = ""
    keep_empty: bool = False


@dataclass(frozen=True, eq=False)
class Group:
    """A nested form inside a form: a field whose type is itself a form type.

    Attributes:
        attr: The outer type's constructor keyword for the nested value.
        key: The wire key prefix of its fields (the outer field's wire key).
        name: The outer field's path of names (``billing`` or ``billing.geo``).
        title: The group's title path ("Billing", "Billing › Geo").
        spec: The nested form (its own fields, keys not prefixed).
        optional: Left wholly empty, the group is absent (``None`` or its default).
        default: The outer field's default, or `MISSING`.
        default_factory: The outer field's default factory, or ``None``.
        omit_when_absent: Absent, the key is left out (a ``NotRequired`` TypedDict key).
    """

    attr: str
    key: str
    name: str
    title: str
    spec: FormSpec
    optional: bool
    default: Any = MISSING
    default_factory: Callable[[], Any] | None = None
    omit_when_absent: bool = False


@dataclass(frozen=True)
class FormSpec:
    """A whole form: its fields in order, and how to build the author's type back.

    Attributes:
        name: The form's name in messages (the class name, or the bare type).
        tp: The author's type.
        shape: How an answer becomes an instance of ``tp``.
        fields: The fields, in declaration order.
        message: The default message set with ``@form(message=...)``, if any.
        stem: What a question's default key is made from: the name without the metadata
            of an ``Annotated`` one-field form (a one-liner's ``FormField`` title is not
            what it asks for: ``Literal['s', 'm']``, not ``Annotated[Literal[...], ...]``).
    """

    name: str
    tp: Any
    shape: Shape
    fields: tuple[FieldSpec, ...]
    message: str | None = None
    stem: str = ""
