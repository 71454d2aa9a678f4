"""`PreparedForm`: one form as one question asks it, the seam between compiler and runtime.

The runtime (``ask()``) takes one from `compiled_forms.prepare` per question and holds it
for the whole question: it renders the ``elicitation/create`` params for a message and
decodes the client's answer, so a question looks its form type up once, not once per
step. Prepared forms are cached with the compiled form (one per protocol version, and one
per protocol version of each cached set of per-call overrides) and never change once made:
what they hand out is shared, so nothing may edit it (the public `requested_schema` hands
out a copy).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar, cast

from elicitkit._compiler.checkboxes import fold_checkboxes, has_multi
from elicitkit._compiler.form_spec import Decoder, FormSpec, Rebuilder, Shape
from elicitkit._compiler.names import humanise
from elicitkit._compiler.wire_formats import sendable_text
from elicitkit._lru import Lru
from elicitkit.protocol import FIRST_PROTOCOL, ProtocolVersion

J = TypeVar("J")

MAX_MESSAGES = 64
"""Rendered questions kept per prepared form: messages are often f-strings."""


@dataclass(frozen=True)
class RenderedQuestion:
    """The ``elicitation/create`` params of one question, and their digest.

    Attributes:
        params: ``{"mode": "form", "message": ..., "requestedSchema": ...}`` as the
            protocol version writes it (no ``mode`` on 2025-06-18). Shared: read-only.
        digest: `question_digest` of the params: equal exactly when message and schema are.
    """

    params: dict[str, Any]
    digest: str


@dataclass(frozen=True, eq=False)
class PreparedForm:
    """One form type on one protocol version, with one call's overrides applied.

    Attributes:
        tp: The form type, as the author passed it.
        spec: The form as this question shows it: its per-call titles name the fields in
            a re-ask, its per-call options judge the values kept for one.
        protocol: The protocol version the question is asked on.
        legacy_enum_names: Whether labelled single choices use ``enumNames`` (see
            `requested_schema`).
        schema: The wire ``requestedSchema``. Shared by every question: read-only.
        refusal: Why this form cannot be asked (`TooManyCheckboxes`'s text: too many
            checkboxes on 2025-06-18), or ``None``. Kept rather than raised when made, as
            a call's overrides, applied to this form, may narrow the choices.
    """

    tp: Any
    spec: FormSpec
    protocol: ProtocolVersion
    legacy_enum_names: bool
    schema: dict[str, Any]
    current_decoder: Callable[[], Decoder]
    """Returns the form's decoder (made at its first answer: a form type built for a call
    that is never answered never pays for one)."""
    current_rebuilder: Callable[[], Rebuilder]
    """Returns the form's rebuilder, for answers this form's decoder accepted in an earlier
    round (made at its first use)."""
    refusal: str | None = None
    _questions: Lru[str | None, RenderedQuestion] = field(
        default_factory=lambda: Lru[str | None, RenderedQuestion](MAX_MESSAGES)
    )

    def question(self, message: str | None) -> RenderedQuestion:
        """Render the question with ``message`` (default: the form's), once per message."""
        rendered = self._questions.get(message)
        if rendered is None:
            params = request_params(self.spec, self.schema, message, self.protocol)
            rendered = RenderedQuestion(params, question_digest(params))
            self._questions.put(message, rendered)
        return rendered

    def decode(self, content: object) -> Any:
        """Validate and convert a client's content (see `parse_content`).

        On 2025-06-18 a multi-select's checkboxes are folded back into it first.

        Raises:
            InvalidContent: The content does not fit the form; every problem is listed.
        """
        if self.checkboxes:
            content = fold_checkboxes(self.spec, content)
        return self.current_decoder()(content)

    @cached_property
    def checkboxes(self) -> bool:
        """Whether this form's multi-selects are sent as checkboxes (2025-06-18)."""
        return self.protocol == FIRST_PROTOCOL and has_multi(self.spec)

    def rebuild(self, values: Sequence[Any]) -> Any:
        """Rebuild an answer this form accepted before, from its wire values in field order.

        Converts without checking (see `build_rebuilder`: only for the values elicitkit
        sealed into the replay state after they passed `decode`).

        Raises:
            InvalidContent: The type's own checks (``__post_init__``, validators) refused.
        """
        return self.current_rebuilder()(values)


def request_params(
    spec: FormSpec, schema: dict[str, Any], message: str | None, protocol: ProtocolVersion
) -> dict[str, Any]:
    """The ``elicitation/create`` params for a form's question, as ``protocol`` writes them."""
    # A message may quote a tool argument, which may hold a lone surrogate: made sendable
    # here, before the question's digest is computed from it (and on every round alike).
    text = sendable_text(message or spec.message or default_message(spec))
    params: dict[str, Any] = {"message": text, "requestedSchema": schema}
    if protocol != FIRST_PROTOCOL:  # `mode` arrived with URL mode in 2025-11-25
        params = {"mode": "form", **params}
    return params


def default_message(spec: FormSpec) -> str:
    """What the client shows above a form asked without a message."""
    if spec.shape is Shape.SCALAR:
        return f"Please answer: {spec.fields[0].title}."
    return f"Please fill in: {humanise(spec.name)}."


def question_digest(params: Mapping[str, Any]) -> str:
    """Digest a rendered question: equal exactly when message and schema are equal."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()[:8]).decode()[:10]


def json_copy(value: J) -> J:
    """A deep copy of JSON-shaped data (dicts, lists, scalars): a schema to hand out."""
    return cast("J", _copied(value))


def _copied(value: object) -> object:
    if isinstance(value, dict):
        items = cast("dict[str, object]", value).items()
        return {key: _copied(item) for key, item in items}
    if isinstance(value, list):
        return [_copied(item) for item in cast("list[object]", value)]
    return value
