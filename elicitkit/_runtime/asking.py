"""``ask()``: one question to the user, on whatever protocol era the client speaks."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypeVar, overload

import elicitkit._clock as clock
from elicitkit._compiler.compiled_forms import CompiledForm, compiled_form
from elicitkit._compiler.form_spec import FormSpec
from elicitkit._compiler.overrides import Overrides
from elicitkit._compiler.prepared_form import question_digest
from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.state import WireQuestion
from elicitkit._runtime.answers import Asked, Rejected
from elicitkit._runtime.context import ToolRun, current_run
from elicitkit._runtime.entry import asks_a_question, entry_point
from elicitkit._runtime.keys import form_stem
from elicitkit._runtime.model_listing import ANSWER_TOOL
from elicitkit._runtime.question_log import QUESTION_LEVEL, log_question, logger
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit._runtime.retries import DEFAULT_RETRIES, check_retries, corrected_params
from elicitkit._runtime.timeouts import DEFAULT_TIMEOUT, check_timeout
from elicitkit._runtime.unsupported import OnUnsupported, check_policy, default_content
from elicitkit.errors import (
    ClientDisconnected,
    ElicitationTimeout,
    ElicitationUnsupported,
    ElicitError,
)
from elicitkit.protocol import ProtocolVersion, known_protocol

T = TypeVar("T")

# The grammar a question handed to the model, or answered with its defaults, is read in.
MODEL_PROTOCOL: ProtocolVersion = "2025-11-25"


@overload
async def ask(
    tp: type[T],
    message: str | None = None,
    *,
    key: str | None = None,
    retries: int = DEFAULT_RETRIES,
    timeout: float | None = DEFAULT_TIMEOUT,
    overrides: Overrides | None = None,
    on_unsupported: OnUnsupported | None = None,
) -> ElicitResultTyped[T]: ...
@overload
async def ask(
    tp: Any,
    message: str | None = None,
    *,
    key: str | None = None,
    retries: int = DEFAULT_RETRIES,
    timeout: float | None = DEFAULT_TIMEOUT,
    overrides: Overrides | None = None,
    on_unsupported: OnUnsupported | None = None,
) -> ElicitResultTyped[Any]: ...
@entry_point("ask()", in_step=asks_a_question, beside_resolve=True)
async def ask(
    tp: Any,
    message: str | None = None,
    *,
    key: str | None = None,
    retries: int = DEFAULT_RETRIES,
    timeout: float | None = DEFAULT_TIMEOUT,
    overrides: Overrides | None = None,
    on_unsupported: OnUnsupported | None = None,
) -> ElicitResultTyped[Any]:
    """Ask the user to fill in a form, and return the typed answer.

    Works inside any tool, prompt or resource of a server ``elicitkit.install(...)`` was
    called on, on every protocol era: on 2025-06-18 and 2025-11-25 the question is sent in
    the middle of the call; on 2026-07-28 the call ends with the question and the client
    runs the handler again with the answer, so code before an ``ask()`` runs once per round.
    Act in a step or after the last question: put a side effect between two questions in
    ``await step(key, fn, ...)`` (it runs once per call), or after the last ``ask()`` (that
    code runs at most once per call).

    Args:
        tp: The form type: a dataclass, pydantic model, msgspec Struct, TypedDict, or a bare
            field type for a one-field form.
        message: What the client shows above the form. Defaults to the message given with
            ``@form(message=...)``, or a sentence naming the form.
        key: The question's key on the wire on 2026-07-28 (1 to 64 letters, digits, ``_``,
            ``-``, ``.``), unique within the call. Defaults to the form's name and how many
            times this call has asked that form, e.g. ``address#1``.
        retries: How many times to ask again after an answer that does not fit the form
            (0 to 20; default 2): the same form, the problems added to the message in
            plain words, and the fields that were fine offered as defaults where the
            protocol version allows defaults.
        timeout: Seconds the user has to answer each time the form is shown (default 600),
            or ``None`` for no limit.
        overrides: This call's options, defaults, titles and descriptions (`Overrides`),
            without a new type; checked before anything is sent, enforced on the answer.
        on_unsupported: What to do if the client cannot show forms (default: the
            server's ``install(on_unsupported=...)``, itself ``"raise"`` by default):
            ``"raise"``, ``"ask_model"`` (the call ends with the questions and a ticket for
            the model, which asks the user and answers through the ``answer_form`` tool;
            the same form checks that answer, marked ``answered_by="model"``), or
            ``"defaults"`` (the form's defaults, when every required field has one).

    Returns:
        The outcome: ``is_accepted()`` with ``.content`` of type ``tp``, or a decline or a
        cancel.

    Raises:
        ElicitationUnsupported: The client cannot show forms (and the policy is
            ``"raise"``, or it cannot apply); nothing was sent.
        InvalidContent: The user's answer still did not fit the form after ``retries``
            re-asks; ``.errors`` says why.
        ElicitationTimeout: The user did not answer within ``timeout`` seconds.
        ElicitationFailed: The client answered with an error.
        ClientDisconnected: The client's connection closed while the form was open
            (2025-06-18, 2025-11-25).
        FormDefinitionError: ``tp`` cannot be expressed as a form, or ``key`` is malformed
            or already used in this call; nothing was sent.
        TooManyCheckboxes: The client speaks 2025-06-18, where a multi-select is one
            checkbox per choice, and it has more than ``MAX_CHECKBOXES`` choices.
        TooManyRounds: The call reached ``ReplayLimits.max_rounds`` (2026-07-28).
        StateTooLarge: The carried answers reached ``ReplayLimits.max_state_bytes``.
        ElicitError: ``ask()`` was called outside a handler, or beside the SDK's Resolve.
        StepError: ``ask()`` was called inside a durable step's function.
        ValueError: ``retries``, ``timeout`` or ``on_unsupported`` is out of range.
    """
    retries, timeout = check_retries(retries), check_timeout(timeout)
    if on_unsupported is not None:
        check_policy(on_unsupported, "ask()")
    run = current_run.get()
    asked = prepare(run, tp, message, key, timeout, overrides=overrides, policy=on_unsupported)
    if asked.answered is not None:
        return asked.answered
    # 2026-07-28: most asks of a long dialogue were answered in an earlier round, and were
    # logged then; each round returns them straight away.
    carried = run.delivery.carried(asked)
    if carried is not None:
        return marked(run, asked.question.key, carried)
    return await ask_until_valid(run, asked, retries)


async def ask_until_valid(run: ToolRun, asked: Asked, retries: int) -> ElicitResultTyped[Any]:
    """Ask one question; re-ask after an invalid answer, up to ``retries`` times.

    Each re-ask is its own question (on 2026-07-28 its key is the question's key, ``~``
    and the attempt number), built from the errors and kept values alone, so every round
    renders it identically. Logs the outcome once, in the round it becomes known.
    """
    form, question = asked.form, asked.question
    delivery = run.delivery
    base, attempt = question, 0
    invalid_fields: list[str] = []
    while True:
        # An outcome carried from an earlier round was logged in that round.
        fresh = delivery.fresh(question)
        started = clock.monotonic()

        log = _Log(run, question.key, fresh=fresh, started=started, retries=attempt)
        try:
            result = await run.delivery.ask(asked)
        except Rejected as rejected:
            invalid_fields.extend(e.field for e in rejected.error.errors if e.field is not None)
            if attempt >= retries:
                log.outcome("invalid", invalid_fields)
                raise rejected.error from None
            attempt += 1
            question = _again(run, form.spec, base, rejected, attempt)
            asked = Asked(form, question)
            continue
        except ElicitError as error:
            log.outcome(_outcome_of(error), invalid_fields)
            raise
        log.outcome(result.action, invalid_fields)
        return marked(run, question.key, result)


def marked(run: ToolRun, key: str, result: ElicitResultTyped[Any]) -> ElicitResultTyped[Any]:
    """``result``, marked as typed by the model when its question went to the model."""
    if key in run.keys.for_the_model:
        return replace(result, answered_by="model")
    return result


@dataclass(frozen=True)
class _Log:
    """Logs one attempt's outcome, unless an earlier round already did."""

    run: ToolRun
    key: str
    fresh: bool
    started: float
    retries: int

    def outcome(self, outcome: str, invalid_fields: list[str]) -> None:
        # A decline may be flagged (at WARNING) however the level is set: it needs the time.
        if self.fresh and (outcome == "decline" or logger.isEnabledFor(QUESTION_LEVEL)):
            log_question(
                tool=self.run.target,
                protocol=self.run.channel.protocol,
                mode="model" if self.key in self.run.keys.for_the_model else "form",
                key=self.key,
                outcome=outcome,
                seconds=self.run.delivery.seconds(self.started),
                retries=self.retries,
                invalid_fields=invalid_fields,
            )


def _outcome_of(error: ElicitError) -> str:
    if isinstance(error, ElicitationTimeout):
        return "timeout"
    if isinstance(error, ClientDisconnected):
        return "disconnected"
    return "failed"


def _again(
    run: ToolRun, spec: FormSpec, base: WireQuestion, rejected: Rejected, attempt: int
) -> WireQuestion:
    """The re-ask after ``rejected``: the problems in the message, kept values as defaults."""
    params = corrected_params(base.params, spec, rejected.error.errors, rejected.kept)
    key = run.keys.claim_reask(base.key, attempt)
    return WireQuestion(key, question_digest(params), params, base.timeout)


def prepare(
    run: ToolRun,
    tp: Any,
    message: str | None,
    key: str | None,
    timeout: float | None = DEFAULT_TIMEOUT,
    *,
    overrides: Overrides | None = None,
    policy: OnUnsupported | None = None,
) -> Asked:
    """Check the form and the client, and build the question with its key and digest.

    Raises:
        FormDefinitionError: The form cannot be expressed, or ``key`` cannot be claimed.
        TooManyCheckboxes: 2025-06-18, and a multi-select has too many choices.
        ElicitationUnsupported: The client cannot show forms, and the policy cannot help.
    """
    protocol = run.channel.protocol
    compiled = compiled_form(tp)
    if policy is None:
        policy = run.on_unsupported
    version = known_protocol(protocol)
    try:
        why_not = (
            f"it speaks MCP {protocol}, which has no elicitation"
            if version is None
            else run.delivery.why_no_forms()
        )
    except ElicitationUnsupported:  # the server's own transport setting: no request mid-call
        if policy == "raise":
            raise
        why_not = "the server cannot send it a request during this call"
    if why_not is not None or version is None:  # (the second test only narrows the type)
        unsupported = (
            f"This client cannot show forms ({why_not}), so the tool could not ask the "
            f"user for {compiled.spec.name}."
        )
        if policy == "defaults":
            return _defaulted(run, compiled, message, key, overrides, unsupported=unsupported)
        if policy == "ask_model" and run.answer_tool:
            return _to_the_model(run, compiled, message, key, overrides)
        if policy == "ask_model":
            unsupported = (
                f"This client cannot show forms ({why_not}), and this server has no "
                f"{ANSWER_TOOL} tool for the model to relay the user's answers through, so "
                f"the tool could not ask the user for {compiled.spec.name}. Install "
                f"elicitkit with install(server, on_unsupported='ask_model'), which adds it."
            )
        raise ElicitationUnsupported(unsupported)
    # Equal per-call values share one prepared form, and so one rendered question.
    form = compiled.prepare(version, overrides=overrides)
    rendered = form.question(message)
    key = _claim(run, form.spec, key)
    return Asked(form, WireQuestion(key, rendered.digest, rendered.params, timeout))


def _claim(run: ToolRun, spec: FormSpec, key: str | None) -> str:
    """The form question's key, claimed (see `elicitkit._runtime.keys`)."""
    return run.keys.claim(key, stem=form_stem(spec.stem), subject=spec.name, function="ask()")


def _to_the_model(
    run: ToolRun,
    compiled: CompiledForm,
    message: str | None,
    key: str | None,
    overrides: Overrides | None,
) -> Asked:
    """The question as the model gets it: the 2025-11-25 form, answered through the replay.

    Rendered for 2025-11-25 on every era (the grammar the listing describes), with no
    timeout of its own: the ticket's expiry bounds the wait. On a 2025 era the call switches
    to a replay here, so the rest of the dialogue runs as on 2026-07-28, across the calls of
    ``answer_form``.
    """
    form = compiled.prepare(MODEL_PROTOCOL, overrides=overrides)
    rendered = form.question(message)
    key = _claim(run, form.spec, key)
    run.keys.for_the_model.add(key)
    to_the_model(run)
    return Asked(form, WireQuestion(key, rendered.digest, rendered.params, None))


def _defaulted(
    run: ToolRun,
    compiled: CompiledForm,
    message: str | None,
    key: str | None,
    overrides: Overrides | None,
    *,
    unsupported: str,
) -> Asked:
    """The question answered with the form's defaults (``on_unsupported="defaults"``)."""
    # 2025-11-25 writes every field's default (2025-06-18 only a boolean's).
    form = compiled.prepare(MODEL_PROTOCOL, overrides=overrides)
    rendered = form.question(message)
    content, missing = default_content(rendered.params["requestedSchema"])
    if missing:
        names = ", ".join(repr(name) for name in missing)
        raise ElicitationUnsupported(
            f"{unsupported[:-1]}, and on_unsupported='defaults' cannot answer for the "
            f"user because {names} {'has' if len(missing) == 1 else 'have'} no default. "
            "Give every required field a default, or choose another policy."
        )
    key = _claim(run, form.spec, key)
    value = form.decode(content)
    question = WireQuestion(key, rendered.digest, rendered.params, None)
    log_question(
        tool=run.target,
        protocol=run.channel.protocol,
        mode="defaults",  # nobody answered: the log says so
        key=key,
        outcome="accept",
        seconds=0.0,
        retries=0,
        invalid_fields=(),
    )
    return Asked(form, question, ElicitResultTyped("accept", value, "defaults"))


def to_the_model(run: ToolRun) -> None:
    """Switch ``run`` to the delivery its questions for the model need (a replaying one)."""
    run.switch_to(run.delivery.for_the_model(run.limits or ReplayLimits()))
