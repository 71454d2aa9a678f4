"""``ask()``: one question to the user, on whatever protocol era the client speaks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, overload

from elicitkit._errors import ElicitationFailed, ElicitationUnsupported, ElicitError, InvalidContent
from elicitkit._forms import form_spec, parse_content, requested_schema
from elicitkit._formspec import FormSpec, Shape
from elicitkit._introspect import humanise
from elicitkit._overrides import Overrides
from elicitkit._protocol import FIRST_PROTOCOL, ProtocolVersion, known_protocol
from elicitkit._replay import NeedInput, question_key
from elicitkit._result import ElicitResultTyped
from elicitkit._run import Channel, current_run
from elicitkit._wire_values import sendable_text

T = TypeVar("T")

_ACTIONS = ("accept", "decline", "cancel")
OUTSIDE_A_TOOL = (
    "ask() was called outside a tool call of a server elicitkit is installed on, so there is "
    "no client to ask. Call elicitkit.install(server) once after creating the server, and "
    "call ask() only inside its tools."
)


@overload
async def ask(
    tp: type[T], message: str | None = None, *, overrides: Overrides | None = None
) -> ElicitResultTyped[T]: ...
@overload
async def ask(
    tp: Any, message: str | None = None, *, overrides: Overrides | None = None
) -> ElicitResultTyped[Any]: ...
async def ask(
    tp: Any, message: str | None = None, *, overrides: Overrides | None = None
) -> ElicitResultTyped[Any]:
    """Ask the user to fill in a form, and return the typed answer.

    Works inside any tool of a server ``elicitkit.install(...)`` was called on, on every
    protocol era: on 2025-06-18 and 2025-11-25 the question is sent in the middle of the
    call; on 2026-07-28 the call ends with the question and the client runs the tool again
    with the answer, so code before an ``ask()`` runs once per round (keep side effects
    after the last ``ask()``).

    Args:
        tp: The form type: a dataclass, pydantic model, msgspec Struct, TypedDict, or a bare
            field type for a one-field form.
        message: What the client shows above the form. Defaults to the message given with
            ``@form(message=...)``, or a sentence naming the form.
        overrides: This call's options, defaults, titles and descriptions (`Overrides`),
            without a new type; checked before anything is sent, enforced on the answer.

    Returns:
        The outcome: ``is_accepted()`` with ``.content`` of type ``tp``, or a decline or a
        cancel.

    Raises:
        ElicitationUnsupported: The client cannot show forms; nothing was sent.
        InvalidContent: The user's answer does not fit the form; ``.errors`` says why.
        ElicitationFailed: The client answered with an error.
        FormDefinitionError: ``tp`` cannot be expressed as a form; nothing was sent.
        ElicitError: ``ask()`` was called outside a tool call.
    """
    try:
        run = current_run.get()
    except LookupError:
        raise ElicitError(OUTSIDE_A_TOOL) from None
    channel = run.channel
    spec = form_spec(tp)
    version = known_protocol(channel.protocol)
    why_not = (
        f"it speaks MCP {channel.protocol}, which has no elicitation"
        if version is None
        else channel.why_no_forms()
    )
    if why_not is not None or version is None:  # (the second test only narrows the type)
        raise channel.surface(
            ElicitationUnsupported(
                f"This client cannot show forms ({why_not}), so the tool could not ask the "
                f"user for {spec.name}."
            )
        )
    params = _request_params(spec, tp, message, version, overrides)
    if run.replay is None:
        raw = await channel.send(params)
    else:
        key = question_key(run.asked, params)
        run.asked += 1
        answer = run.replay.answer(key)
        if answer is None:
            raise NeedInput(key, params)
        raw = answer
    return _typed_result(tp, spec, raw, version, channel, overrides=overrides)


def _request_params(
    spec: FormSpec,
    tp: Any,
    message: str | None,
    version: ProtocolVersion,
    overrides: Overrides | None = None,
) -> dict[str, Any]:
    # A message may quote a tool argument, which may hold a lone surrogate: made sendable
    # here, before the question's key is computed from it (and on every round alike).
    text = sendable_text(message or spec.message or _default_message(spec))
    params: dict[str, Any] = {
        "message": text,
        "requestedSchema": requested_schema(tp, protocol=version, overrides=overrides),
    }
    if version != FIRST_PROTOCOL:  # `mode` arrived with URL mode in 2025-11-25
        params = {"mode": "form", **params}
    return params


def _default_message(spec: FormSpec) -> str:
    if spec.shape is Shape.SCALAR:
        return f"Please answer: {spec.fields[0].title}."
    return f"Please fill in: {humanise(spec.name)}."


def _typed_result(
    tp: Any,
    spec: FormSpec,
    raw: Mapping[str, Any],
    version: str,
    channel: Channel,
    *,
    overrides: Overrides | None = None,
) -> ElicitResultTyped[Any]:
    action = raw.get("action")
    if action not in _ACTIONS:
        raise channel.surface(
            ElicitationFailed(
                f"The client's answer to {spec.name} is not an elicitation result: its action "
                f"is {action!r}, not 'accept', 'decline' or 'cancel'."
            )
        )
    if action != "accept":
        return ElicitResultTyped(action, None, _surface=channel.surface)
    content = raw.get("content")
    try:
        # Some clients accept with no content at all; every required field then says so.
        value = parse_content(
            tp, {} if content is None else content, protocol=version, overrides=overrides
        )
    except InvalidContent as error:
        raise channel.surface(error) from None
    return ElicitResultTyped("accept", value, _surface=channel.surface)
