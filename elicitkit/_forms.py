"""The public entry points over the core: compile once, then look up.

Every form type is introspected once; its schema is rendered once per (protocol, option) and
its decoder built once, so a repeated `requested_schema` or `parse_content` call is a
dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from elicitkit._decode import Decoder, build_decoder
from elicitkit._formspec import FormSpec, Kind
from elicitkit._introspect import inspect_form
from elicitkit._protocol import LATEST_PROTOCOL, PROTOCOL_VERSIONS, check_protocol
from elicitkit._render import render_schema

T = TypeVar("T")

_specs: dict[Any, FormSpec] = {}
_schemas: dict[tuple[Any, str, bool], dict[str, Any]] = {}
# Per protocol, then per type: two lookups without building a tuple key, on the hot path.
_decoders: dict[str, dict[Any, Decoder]] = {version: {} for version in PROTOCOL_VERSIONS}


def form_spec(tp: Any) -> FormSpec:
    """Return the compiled description of a form type, introspecting it on first use.

    Raises:
        FormDefinitionError: ``tp`` cannot be expressed as a flat form.
    """
    try:
        return _specs[tp]
    except KeyError:
        spec = _specs[tp] = inspect_form(tp)
        return spec
    except TypeError:  # an unhashable annotation: compile it every time
        return inspect_form(tp)


def requested_schema(
    tp: Any, *, protocol: str = LATEST_PROTOCOL, legacy_enum_names: bool = False
) -> dict[str, Any]:
    """Return the exact wire ``requestedSchema`` for a form type on a protocol version.

    The result is cached and shared between calls: treat it as read-only.

    Args:
        tp: The form type: a dataclass, pydantic model or dataclass, msgspec Struct,
            TypedDict, or a bare field type (``bool``, ``Literal[...]``, an ``Enum``...) for a
            one-field form.
        protocol: The negotiated MCP protocol version (default: the newest).
        legacy_enum_names: Render labelled single choices with the deprecated
            ``enumNames`` even where ``oneOf`` exists, for clients that know only that
            form. Always on for 2025-06-18.

    Returns:
        A JSON-ready dict: ``{"type": "object", "properties": {...}, "required": [...]}``.

    Raises:
        FormDefinitionError: The form cannot be expressed, or not on this version.
        ValueError: ``protocol`` is not a version with elicitation.
    """
    try:
        return _schemas[tp, protocol, legacy_enum_names]
    except KeyError:
        version = check_protocol(protocol)
        schema = render_schema(form_spec(tp), version, legacy_enum_names=legacy_enum_names)
        _schemas[tp, version, legacy_enum_names] = schema
        return schema
    except TypeError:
        version = check_protocol(protocol)
        return render_schema(form_spec(tp), version, legacy_enum_names=legacy_enum_names)


@overload
def parse_content(tp: type[T], content: object, *, protocol: str = ...) -> T: ...
@overload
def parse_content(tp: Any, content: object, *, protocol: str = ...) -> Any: ...
def parse_content(tp: Any, content: object, *, protocol: str = LATEST_PROTOCOL) -> Any:
    """Validate a client's answer and convert it to the form type.

    The content is treated as untrusted: every field is type-checked and checked against
    its bounds, lengths, format and options; unknown keys are ignored; absent optional
    fields get their default (or ``None``). Pydantic models' own validators run last.

    Args:
        tp: The form type the question was asked with.
        content: The ``content`` of the client's ``ElicitResult``.
        protocol: The protocol version the question was asked on.

    Returns:
        An instance of ``tp`` (a dict for a TypedDict; the bare value for a one-field form).

    Raises:
        InvalidContent: The answer does not fit; ``.errors`` lists every problem.
        FormDefinitionError: The form cannot be expressed, or not on this version.
        ValueError: ``protocol`` is not a version with elicitation.
    """
    try:
        decoder = _decoders[protocol][tp]
    except KeyError:
        decoder = _compile_decoder(tp, protocol)
    except TypeError:
        return build_decoder(form_spec(tp))(content)
    return decoder(content)


def _compile_decoder(tp: Any, protocol: str) -> Decoder:
    version = check_protocol(protocol)
    spec = form_spec(tp)
    if any(field.kind is Kind.MULTI_CHOICE for field in spec.fields):
        # A multi-select cannot have been asked on 2025-06-18: rendering refuses it, with the
        # same error as here.
        render_schema(spec, version)
    decoder = _decoders[version][tp] = build_decoder(spec)
    return decoder


@overload
def form(tp: type[T], /) -> type[T]: ...
@overload
def form(*, message: str | None = None) -> Callable[[type[T]], type[T]]: ...
def form(tp: Any = None, /, *, message: str | None = None) -> Any:
    """Check and compile a form class when its module is imported.

    Use bare (``@form``) or with a default message (``@form(message="Where to?")``). A
    form elicitkit cannot express raises `FormDefinitionError` right at the class
    definition, instead of at the first question.

    Raises:
        FormDefinitionError: The class cannot be expressed as a flat form.
    """

    def decorate(cls: type[T]) -> type[T]:
        spec = inspect_form(cls, message=message)
        _specs[cls] = spec
        for by_type in _decoders.values():
            by_type.pop(cls, None)
        for key in [key for key in _schemas if key[0] is cls]:
            del _schemas[key]
        render_schema(spec, LATEST_PROTOCOL)  # fails here for what no version can render
        _decoders[LATEST_PROTOCOL][cls] = build_decoder(spec)
        return cls

    return decorate if tp is None else decorate(tp)


def default_message(tp: Any) -> str | None:
    """Return the message set with ``@form(message=...)``, if any."""
    return form_spec(tp).message
