"""The compile cache: compile each form type once, then look it up.

Every form type is compiled into one `CompiledForm`: its `FormSpec`, its decoder, and one
`PreparedForm` per (protocol version, option), each made on first use, so the next
question, schema or decode is a lookup. `prepare` is what the runtime asks with; the public
``requested_schema``, ``parse_content`` and ``form`` are in `elicitkit._runtime.form_functions`.

Where the compiled form lives decides how long it lives. Forms are often built at run
time (a ``Literal`` of today's options, a title naming the item), once per call; a cache
must not keep them alive. A `weakref.WeakKeyDictionary` would not do: its value (the spec,
the decoder) refers to the type, so the key could never die. Instead:

* a class keeps its compiled form in its own ``__dict__`` (as pydantic keeps its
  validator), so the two die together: a class built per call costs nothing after it;
* everything else (``int``, ``Literal[...]``, ``Annotated[...]`` and other aliases, which
  cannot carry attributes or be weakly referenced, and classes that refuse attributes)
  sits in a least-recently-used cache of `MAX_OTHER_FORMS` entries, keyed by value,
  so the memory it holds is bounded whatever the calls build;
* unhashable annotations are compiled on every call, as nothing can find them again.
"""

from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass, field
from typing import Any

from elicitkit._compiler.checkboxes import fold_checkboxes, has_multi, too_many_checkboxes
from elicitkit._compiler.decode import PlanEntry, build_decoder, build_rebuilder, field_plan
from elicitkit._compiler.form_spec import Decoder, FormSpec, FormStyle, Rebuilder
from elicitkit._compiler.introspect import STYLE_ATTRIBUTE, check_style, inspect_form
from elicitkit._compiler.overrides import Overrides, OverridesCache
from elicitkit._compiler.prepared_form import PreparedForm
from elicitkit._compiler.render import render_schema
from elicitkit._lru import Lru
from elicitkit.errors import TooManyCheckboxes
from elicitkit.protocol import FIRST_PROTOCOL, LATEST_PROTOCOL, ProtocolVersion, check_protocol

_ATTRIBUTE = "__elicitkit_form__"
MAX_OTHER_FORMS = 256
"""How many compiled forms of non-class types (aliases, builtins) are kept."""


@dataclass(eq=False)
class CompiledForm:
    """Everything elicitkit makes from one form type, made once and looked up after.

    Attributes:
        tp: The form type (told apart from a subclass that inherits the attribute).
        spec: The form's description.
        prepared: The prepared form per (protocol version, legacy_enum_names): at most six.
        overridden: The last per-call overrides applied to this form (`OverridesCache`).
    """

    tp: Any
    spec: FormSpec
    prepared: dict[tuple[ProtocolVersion, bool], PreparedForm] = field(
        default_factory=dict[tuple[ProtocolVersion, bool], PreparedForm]
    )
    overridden: OverridesCache = field(default_factory=OverridesCache)
    decoder: Decoder | None = None
    """One decoder serves every version: the grammars differ in what is sent, not in what
    comes back. Made at the first answer (see `current_decoder`)."""
    rebuilder: Rebuilder | None = None
    """Rebuilds the answers carried in the replay state (see `current_rebuilder`)."""
    plan: list[PlanEntry] | None = None
    """Each field's `field_plan`: one for the decoder and the rebuilder."""
    decodable: set[str] = field(default_factory=set[str])
    """The versions an answer was decoded on (each checked once, see `parse_content`)."""

    def prepare(
        self,
        version: ProtocolVersion,
        *,
        overrides: Overrides | None = None,
        legacy_enum_names: bool = False,
    ) -> PreparedForm:
        """The form on ``version`` with ``overrides`` applied, rendered once.

        Raises:
            FormDefinitionError: The form cannot be rendered on ``version``, or the
                overrides do not fit it (checked in that order).
            TooManyCheckboxes: On 2025-06-18, a multi-select of the form as this call
                shows it (after ``overrides``) has too many choices.
        """
        prepared = self.prepared.get((version, legacy_enum_names))
        if prepared is None:
            schema = render_schema(self.spec, version, legacy_enum_names=legacy_enum_names)
            prepared = PreparedForm(
                self.tp,
                self.spec,
                version,
                legacy_enum_names,
                schema,
                self.current_decoder,
                self.current_rebuilder,
                too_many_checkboxes(self.spec) if version == FIRST_PROTOCOL else None,
            )
            self.prepared[version, legacy_enum_names] = prepared
        if overrides is not None:
            prepared = self.overridden.apply(self.spec, overrides).prepare(prepared)
        # Judged after the overrides: the fix the error suggests (fewer choices per call
        # with Overrides(choices=...)) must work.
        if prepared.refusal is not None:
            raise TooManyCheckboxes(prepared.refusal)
        return prepared

    def current_decoder(self) -> Decoder:
        """The form's decoder, made at its first use."""
        if self.decoder is None:
            self.decoder = build_decoder(self.spec, plan=self.field_plans())
        return self.decoder

    def current_rebuilder(self) -> Rebuilder:
        """The form's rebuilder, made at its first use."""
        if self.rebuilder is None:
            self.rebuilder = build_rebuilder(self.spec, plan=self.field_plans())
        return self.rebuilder

    def field_plans(self) -> list[PlanEntry]:
        """Each field's `field_plan`, made once."""
        if self.plan is None:
            self.plan = [field_plan(self.spec, spec_field) for spec_field in self.spec.fields]
        return self.plan


_others: Lru[Any, CompiledForm] = Lru(MAX_OTHER_FORMS)
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
        compiled = _others.get(tp)
    except TypeError:  # an unhashable annotation: compile it every time
        return CompiledForm(tp, inspect_form(tp))
    if compiled is None:
        compiled = _store(tp, CompiledForm(tp, inspect_form(tp)))
    return compiled


def _store(tp: Any, compiled: CompiledForm) -> CompiledForm:
    _live.add(compiled)
    if isinstance(tp, type):
        try:
            setattr(tp, _ATTRIBUTE, compiled)
        except (TypeError, AttributeError):  # a builtin or a class that refuses attributes
            pass
        else:
            return compiled
    with contextlib.suppress(TypeError):  # unhashable: nothing could find it again anyway
        _others.put(tp, compiled)
    return compiled


def forget_schemas() -> None:
    """Drop every cached schema, so the next call renders it again (for tests)."""
    for compiled in list(_live):
        compiled.prepared.clear()
        compiled.overridden.clear()


def form_spec(tp: Any) -> FormSpec:
    """Return the compiled description of a form type, introspecting it on first use.

    Raises:
        FormDefinitionError: ``tp`` cannot be expressed as a flat form.
    """
    return compiled_form(tp).spec


def prepare(
    tp: Any,
    protocol: ProtocolVersion,
    *,
    overrides: Overrides | None = None,
    legacy_enum_names: bool = False,
) -> PreparedForm:
    """Return ``tp`` prepared for one question on ``protocol``, with ``overrides`` applied.

    Checked in this order: the form itself, then the form on ``protocol``, then the
    overrides against the form.

    Raises:
        FormDefinitionError: The form cannot be expressed, or not on this version, or the
            overrides do not fit it.
    """
    return compiled_form(tp).prepare(
        protocol, overrides=overrides, legacy_enum_names=legacy_enum_names
    )


def decode(tp: Any, content: object, protocol: str, *, overrides: Overrides | None = None) -> Any:
    """Validate and convert a client's content to ``tp`` (see the public `parse_content`).

    Raises:
        InvalidContent: The answer does not fit; ``.errors`` lists every problem.
        FormDefinitionError: The form cannot be expressed, or not on this version.
        ValueError: ``protocol`` is not a version with elicitation.
    """
    compiled = compiled_form(tp)
    if protocol not in compiled.decodable:
        compiled.decodable.add(check_protocol(protocol))  # a known version, checked once
    spec = compiled.spec
    decoder = compiled.current_decoder
    hidden: frozenset[str] = frozenset()
    if overrides is not None:
        overridden = compiled.overridden.apply(compiled.spec, overrides)
        spec, hidden = overridden.spec, overridden.hidden
        if overridden.decodes_differently:
            decoder = overridden.decoder
    if protocol == FIRST_PROTOCOL and has_multi(spec):
        # A multi-select with too many choices (in this call) cannot have been asked on
        # 2025-06-18: asking refuses it, with the same error as here.
        refusal = too_many_checkboxes(spec, hidden)
        if refusal is not None:
            raise TooManyCheckboxes(refusal)
        content = fold_checkboxes(spec, content)  # asked as checkboxes there
    return decoder()(content)


def compile_form_class(cls: type, message: str | None, style: FormStyle | None = None) -> None:
    """Compile ``cls`` now (for ``@form``), replacing what was compiled of it before.

    Args:
        cls: The form class.
        message: The form's default message, if any.
        style: The form's wire style, if any: recorded on the class, so that it holds
            wherever the class is compiled again (nested in another form, subclassed).

    Raises:
        FormDefinitionError: The class cannot be expressed as a flat form, or ``style``
            holds a setting that is no style.
    """
    if style is not None:
        check_style(cls.__name__, style)
        with contextlib.suppress(TypeError, AttributeError):  # refused: kept in the spec only
            setattr(cls, STYLE_ATTRIBUTE, style)
    spec = inspect_form(cls, message=message, style=style)
    compiled = CompiledForm(cls, spec)
    compiled.current_decoder()
    compiled.prepare(LATEST_PROTOCOL)  # fails here for what no version can render
    _others.pop(cls)  # a class that refused the attribute may be cached there
    _store(cls, compiled)
