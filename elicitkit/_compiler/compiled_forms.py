"""The public entry points over the core: compile once, then look up.

Every form type is compiled into one `CompiledForm`: its `FormSpec`, its schema per
(protocol, option) and its decoder per protocol, each made on first use, so a repeated
`requested_schema` or `parse_content` call is a lookup.

Where the compiled form lives decides how long it lives. Forms are often built at run
time (a ``Literal`` of today's options, a title naming the item), once per call; a cache
must not keep them alive. A `weakref.WeakKeyDictionary` would not do: its value (the spec,
the decoder) refers to the type, so the key could never die. Instead:

* a class keeps its compiled form in its own ``__dict__`` (as pydantic keeps its
  validator), so the two die together: a class built per call costs nothing after it;
* everything else (``int``, ``Literal[...]``, ``Annotated[...]`` and other aliases, which
  cannot carry attributes or be weakly referenced, and classes that refuse attributes)
  sits in a small least-recently-used cache of `_MAX_OTHER_FORMS` entries, keyed by value,
  so the memory it holds is bounded whatever the calls build;
* unhashable annotations are compiled on every call, as nothing can find them again.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from elicitkit._compiler.decode import Decoder, build_decoder
from elicitkit._compiler.form_spec import FormSpec, Kind
from elicitkit._compiler.introspect import inspect_form
from elicitkit._compiler.overrides import OverriddenForm, Overrides, OverridesCache
from elicitkit._compiler.render import render_schema
from elicitkit._runtime.context import current_run
from elicitkit.errors import FormDefinitionError
from elicitkit.protocol import LATEST_PROTOCOL, ProtocolVersion, check_protocol

T = TypeVar("T")

_ATTRIBUTE = "__elicitkit_form__"
_MAX_OTHER_FORMS = 256
"""How many compiled forms of non-class types (aliases, builtins) are kept."""


@dataclass(eq=False)
class CompiledForm:
    """Everything elicitkit makes from one form type, made once and looked up after.

    Attributes:
        tp: The form type (told apart from a subclass that inherits the attribute).
        spec: The form's description.
        schemas: The wire schema per (protocol version, legacy_enum_names).
        decoders: The decoder per protocol version.
    """

    tp: Any
    spec: FormSpec
    schemas: dict[tuple[str, bool], dict[str, Any]] = field(
        default_factory=dict[tuple[str, bool], dict[str, Any]]
    )
    decoders: dict[str, Decoder] = field(default_factory=dict[str, Decoder])
    questions: dict[tuple[str, str | None], tuple[dict[str, Any], str]] = field(
        default_factory=dict[tuple[str, str | None], tuple[dict[str, Any], str]]
    )
    """The rendered question (params, digest) per (protocol, message), built by ``ask()``.

    Kept here, not in a module-level cache, so it dies with the form type; bounded by
    ``ask()``, since messages are often f-strings."""
    overridden: OverridesCache = field(default_factory=OverridesCache)
    """The last per-call overrides applied to this form, with their schemas and decoders."""


_others: OrderedDict[Any, CompiledForm] = OrderedDict()
# Every live compiled form, so that tests can drop cached schemas (see `forget_schemas`).
_live: weakref.WeakSet[CompiledForm] = weakref.WeakSet()


def compiled_form(tp: Any) -> CompiledForm:
    """Return the compiled form of ``tp``, compiling it on first use.

    Raises:
        FormDefinitionError: ``tp`` cannot be expressed as a flat form.
    """
    # getattr, then an identity check: a subclass must not use its base class's form.
    compiled: CompiledForm | None = getattr(tp, _ATTRIBUTE, None) if isinstance(tp, type) else None
    if compiled is not None and compiled.tp is tp:
        return compiled
    try:
        compiled = _others[tp]
    except KeyError:
        return _store(tp, CompiledForm(tp, _inspect(tp)))
    except TypeError:  # an unhashable annotation: compile it every time
        return CompiledForm(tp, _inspect(tp))
    _others.move_to_end(tp)
    return compiled


def _inspect(tp: Any, message: str | None = None) -> FormSpec:
    try:
        return inspect_form(tp, message=message)
    except FormDefinitionError as error:
        raise _in_tool(error) from None


def _render(
    spec: FormSpec, version: ProtocolVersion, *, legacy_enum_names: bool = False
) -> dict[str, Any]:
    try:
        return render_schema(spec, version, legacy_enum_names=legacy_enum_names)
    except FormDefinitionError as error:
        raise _in_tool(error) from None


def _in_tool(error: FormDefinitionError) -> BaseException:
    """Let a form error raised inside a tool call reach the client with its message.

    SDKs show the model an unexpected exception as a bare "Error executing tool NAME"; the
    call's channel turns the error into one whose text they pass on (it is still a
    `FormDefinitionError`). Outside a tool call the error is raised as it is.
    """
    try:
        run = current_run.get()
    except LookupError:
        return error
    return run.channel.surface(error)


def _store(tp: Any, compiled: CompiledForm) -> CompiledForm:
    _live.add(compiled)
    if isinstance(tp, type):
        try:
            setattr(tp, _ATTRIBUTE, compiled)
        except (TypeError, AttributeError):  # a builtin or a class that refuses attributes
            pass
        else:
            return compiled
    try:
        _others[tp] = compiled
    except TypeError:
        return compiled
    if len(_others) > _MAX_OTHER_FORMS:
        _others.popitem(last=False)
    return compiled


def forget_schemas() -> None:
    """Drop every cached schema, so the next call renders it again (for tests)."""
    for compiled in list(_live):
        compiled.schemas.clear()
        compiled.overridden.clear()


def form_spec(tp: Any) -> FormSpec:
    """Return the compiled description of a form type, introspecting it on first use.

    Raises:
        FormDefinitionError: ``tp`` cannot be expressed as a flat form.
    """
    return compiled_form(tp).spec


def requested_schema(
    tp: Any,
    *,
    protocol: str = LATEST_PROTOCOL,
    legacy_enum_names: bool = False,
    overrides: Overrides | None = None,
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
        overrides: Per-call options, defaults, titles and descriptions (`Overrides`),
            applied on top of the cached schema.

    Returns:
        A JSON-ready dict: ``{"type": "object", "properties": {...}, "required": [...]}``.

    Raises:
        FormDefinitionError: The form cannot be expressed, or not on this version.
        ValueError: ``protocol`` is not a version with elicitation.
    """
    # The class attribute looked up inline (compiled_form does the same): this is a hot path.
    compiled = getattr(tp, _ATTRIBUTE, None) if isinstance(tp, type) else None
    if compiled is None or compiled.tp is not tp:
        compiled = compiled_form(tp)
    try:
        schema = compiled.schemas[protocol, legacy_enum_names]
    except KeyError:
        version = check_protocol(protocol)
        schema = _render(compiled.spec, version, legacy_enum_names=legacy_enum_names)
        compiled.schemas[version, legacy_enum_names] = schema
    if overrides is None:
        return schema
    overridden = _overridden(compiled, overrides)
    try:
        return overridden.schema(
            schema, check_protocol(protocol), legacy_enum_names=legacy_enum_names
        )
    except FormDefinitionError as error:
        raise _in_tool(error) from None


def applied_overrides(tp: Any, overrides: Overrides, protocol: str) -> OverriddenForm:
    """Return ``tp`` with ``overrides`` applied (cached with the form's compiled form).

    Checked as `requested_schema` checks them on ``protocol``: the form's own refusals
    on that version first, then the overrides'.

    Raises:
        FormDefinitionError: The form cannot be expressed on this version, or the
            overrides do not fit it.
    """
    requested_schema(tp, protocol=protocol)
    return _overridden(compiled_form(tp), overrides)


def _overridden(compiled: CompiledForm, overrides: Overrides) -> OverriddenForm:
    try:
        return compiled.overridden.apply(compiled.spec, overrides)
    except FormDefinitionError as error:
        raise _in_tool(error) from None


@overload
def parse_content(
    tp: type[T], content: object, *, protocol: str = ..., overrides: Overrides | None = ...
) -> T: ...
@overload
def parse_content(
    tp: Any, content: object, *, protocol: str = ..., overrides: Overrides | None = ...
) -> Any: ...
def parse_content(
    tp: Any,
    content: object,
    *,
    protocol: str = LATEST_PROTOCOL,
    overrides: Overrides | None = None,
) -> Any:
    """Validate a client's answer and convert it to the form type.

    The content is treated as untrusted: every field is type-checked and checked against
    its bounds, lengths, format and options; unknown keys are ignored; absent optional
    fields get their default (or ``None``). Pydantic models' own validators run last.

    Args:
        tp: The form type the question was asked with.
        content: The ``content`` of the client's ``ElicitResult``.
        protocol: The protocol version the question was asked on.
        overrides: The `Overrides` the question was asked with: per-call options are
            enforced, per-call defaults fill absent optional fields.

    Returns:
        An instance of ``tp`` (a dict for a TypedDict; the bare value for a one-field form).

    Raises:
        InvalidContent: The answer does not fit; ``.errors`` lists every problem.
        FormDefinitionError: The form cannot be expressed, or not on this version.
        ValueError: ``protocol`` is not a version with elicitation.
    """
    compiled = getattr(tp, _ATTRIBUTE, None) if isinstance(tp, type) else None
    if compiled is None or compiled.tp is not tp:
        compiled = compiled_form(tp)
    decoder = compiled.decoders.get(protocol)
    if decoder is None:
        decoder = _compile_decoder(compiled, protocol)
    if overrides is not None:
        overridden = _overridden(compiled, overrides)
        if overridden.decodes_differently:
            decoder = overridden.decoder()
    return decoder(content)


def _compile_decoder(compiled: CompiledForm, protocol: str) -> Decoder:
    version = check_protocol(protocol)
    spec = compiled.spec
    if any(field.kind is Kind.MULTI_CHOICE for field in spec.fields):
        # A multi-select cannot have been asked on 2025-06-18: rendering refuses it, with the
        # same error as here.
        _render(spec, version)
    # One decoder serves every version: the grammars differ in what is sent, not in what
    # comes back.
    decoder = next(iter(compiled.decoders.values()), None) or _fast_from_second_use(compiled)
    compiled.decoders[version] = decoder
    return decoder


def _fast_from_second_use(compiled: CompiledForm) -> Decoder:
    """Decode a form's first answer with the reference decoder, later ones with the fast path.

    Generating the fast path compiles Python source, about half a millisecond: a form type
    built for one call would pay that for one answer. A form answered twice gets it.
    """
    spec = compiled.spec
    checked = build_decoder(spec, fast=False)
    answers = 0

    def decode_counting(content: Any) -> Any:
        nonlocal answers
        answers += 1
        if answers == 2:  # from the third answer on, the fast path serves every version
            fast = build_decoder(spec)
            for version, decoder in list(compiled.decoders.items()):
                if decoder is decode_counting:
                    compiled.decoders[version] = fast
        return checked(content)

    return decode_counting


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
        spec = _inspect(cls, message=message)
        _render(spec, LATEST_PROTOCOL)  # fails here for what no version can render
        compiled = CompiledForm(cls, spec, decoders={LATEST_PROTOCOL: build_decoder(spec)})
        _others.pop(cls, None)  # a class that refused the attribute may be cached there
        _store(cls, compiled)
        return cls

    return decorate if tp is None else decorate(tp)


def default_message(tp: Any) -> str | None:
    """Return the message set with ``@form(message=...)``, if any."""
    return form_spec(tp).message
