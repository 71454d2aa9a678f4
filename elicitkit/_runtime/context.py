"""The tool run an ``ask()`` belongs to, and what an SDK integration provides for it."""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.once import RoundLease
from elicitkit._replay.state import Replay, WireQuestion
from elicitkit._replay.store import Claim
from elicitkit._runtime.answers import Asked
from elicitkit._runtime.keys import KeyBook
from elicitkit._runtime.result import ElicitResultTyped, surface_through
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit._runtime.url_routes import UrlChannel, UrlRouter
from elicitkit.errors import ElicitError, FormDefinitionError


class Channel(Protocol):
    """What an SDK integration provides to ``ask()`` for one tool call: form transport.

    URL mode's pieces (its reasons, the completion notifier, the session) are the
    integration's `UrlChannel`, kept apart.
    """

    @property
    def protocol(self) -> str:
        """The protocol version this call speaks."""
        ...

    def why_no_forms(self) -> str | None:
        """Say why this call cannot show the user a form, or return ``None`` if it can.

        The reason completes "This client cannot show forms (...)", e.g. "it did not
        declare the elicitation capability".
        """
        ...

    async def send(
        self, params: dict[str, Any], within: float | None, *, key: str | None = None
    ) -> Mapping[str, Any]:
        """Send ``elicitation/create`` mid-call (handshake eras) and return the raw result.

        Args:
            params: The request's params.
            within: Seconds to wait for the answer (``None``: no limit). On expiry the
                client is told the request is withdrawn.
            key: The question's key, unique in the run (a channel that names its
                requests, such as a task's ``inputRequests``, uses it).

        Raises:
            ElicitationFailed: The client answered with an error.
            ElicitationTimeout: No answer within ``within`` seconds.
        """
        ...

    def surface(self, error: ElicitError | FormDefinitionError) -> BaseException:
        """Return the exception to raise for ``error``.

        Uncaught by the tool, it must reach the client with its message: SDKs hide the text
        of exceptions they do not expect. Called by the entry guard for whatever elicitkit
        error escapes an entry point (`elicitkit._runtime.entry`), so it may see an error
        twice (``confirm()`` asks through ``ask()``): surfacing one again changes nothing.
        """
        ...


class Delivery(Protocol):
    """How the questions of a call reach the user, and their answers come back.

    One object per mode: `elicitkit._runtime.delivery` (mid-call, replaying, and replaying
    in a task's leg); what a way of asking does differently
    per mode is a method here, not a test of the mode.

    Attributes:
        replay: The answers carried into this round (the replaying mode), or ``None``
            where questions wait for their answers. Read by what keeps a round's state
            (durable steps, the end of the round), never to choose how to ask.
        in_task: This run is a leg of a task (after ``go_async()``): ``go_async()`` returns
            ``True`` at once, and the call it came from was answered long ago.
    """

    @property
    def replay(self) -> Replay | None: ...
    @property
    def in_task(self) -> bool: ...

    def why_no_forms(self) -> str | None:
        """Why this call cannot show forms now (see `Channel.why_no_forms`), or ``None``."""
        ...

    def why_no_url(self) -> str | None:
        """Why this call cannot send the user to a URL now, or ``None``."""
        ...

    def carried(self, asked: Asked) -> ElicitResultTyped[Any] | None:
        """The accepted answer an earlier round carried for ``asked``, or ``None``.

        ``ask()``'s shortcut: most asks of a long dialogue were answered, and logged, in
        an earlier round.
        """
        ...

    def fresh(self, question: WireQuestion) -> bool:
        """Whether ``question``'s outcome is news (not carried from an earlier round)."""
        ...

    def seconds(self, started: float) -> float | None:
        """Seconds the user took to answer a question asked at ``started`` (monotonic)."""
        ...

    async def ask(self, asked: Asked) -> ElicitResultTyped[Any]:
        """Ask one question once, and decode its answer.

        Raises:
            Rejected: The answer does not fit the form.
            NeedInput: Not answered yet: the round ends with the question.
        """
        ...

    async def ask_all(self, asked: Sequence[Asked]) -> tuple[ElicitResultTyped[Any], ...]:
        """Ask several questions (``ask_all()``), and decode their answers in order.

        A question already ``answered`` is not asked. The first invalid answer raises its
        `InvalidContent`; nothing is asked again.

        Raises:
            NeedInput: Some are not answered yet: the round ends with all of them.
        """
        ...

    async def ask_url(
        self,
        run: ToolRun,
        message: str,
        url: str | Callable[[str], str],
        *,
        elicitation_id: str | None,
        timeout: float | None,
        completed: Callable[[str], Awaitable[bool]] | None,
        key: str | None,
        model: bool,
    ) -> ElicitResultTyped[str]:
        """Send the user to a page (``ask_url()``; see `elicitkit._runtime.url_mode`)."""
        ...

    async def require_url(
        self, run: ToolRun, message: str, url: str, *, elicitation_id: str | None, key: str | None
    ) -> NoReturn:
        """End the call by sending the user to a page (``require_url()``)."""
        ...

    def for_the_model(self, limits: ReplayLimits) -> Delivery:
        """The delivery once a question goes to the model: a replaying one (this, if it is)."""
        ...


class StepBook(Protocol):
    """Where a later round's durable steps are recorded (`elicitkit._replay.once.AtMostOnce`)."""

    async def claim_step(self, dialogue: str, key: str, token: str) -> Claim:
        """Claim step ``key`` of ``dialogue``: its record, or the right to run it.

        Raises ``StoreUnavailable``, or ``RecordUnreadable`` for a record that does not open.
        """
        ...

    async def record_step(self, dialogue: str, key: str, outcome: str) -> None:
        """Record step ``key``'s outcome."""
        ...

    async def release_step(self, dialogue: str, key: str, token: str) -> None:
        """Give up the claim of an interrupted ``retry_safe`` step."""
        ...


class Detacher(Protocol):
    """Turns the rest of one tool call into a task (see ``go_async()``)."""

    async def detach(self, run: ToolRun, message: str | None) -> None:
        """Create the task and end the round, which the call answers with the task.

        Raises (once the task is durably created) the signal that ends the round; the
        task's legs then run the tool again (see ``elicitkit._runtime.tasks``).
        """
        ...


@dataclass
class ToolRun:
    """One run of one tool body.

    Attributes:
        channel: The integration's channel for this call (forms, and its errors).
        delivery: How its questions reach the user now (`elicitkit._runtime.delivery`):
            mid-call, replaying, or in a task; changed only by `switch_to`.
        urls: The integration's URL transport for this call (URL mode mid-call).
        keys: The keys this run has claimed, its questions' and its steps', and which
            questions went to the model (`elicitkit._runtime.keys.KeyBook`).
        refuses: Works out why ``ask()`` cannot be used in this call at all (e.g. the tool
            also uses the SDK's own ``Resolve``), or ``None``; called at most once, by the
            first ``ask()`` (see `refusal`).
        target: The tool's name (or the prompt's, or the resource's URI), for the log.
        url_router: The server's URL router (URL mode), or ``None`` for the process
            default (`elicitkit.url.use_url_router`).
        steps: Where durable steps are recorded (2026-07-28; ``None``: not recorded).
        on_unsupported: The server's policy for a client that cannot show forms
            (``install(on_unsupported=...)``); an ``ask()`` may choose its own.
        answer_tool: The server registered the companion tool ``answer_form``, so a
            question may go to the model (``"ask_model"``).
        limits: The caps of a dialogue, for a replay started mid-run on a 2025 era when a
            question goes to the model (`Delivery.for_the_model`).
        call_tag: The testing kit's tag of the call (in its request's ``_meta``), read only
            while the kit counts runs (`elicitkit._runtime.steps.observers`).
        lease: The lease a later round holds on its dialogue (2026-07-28), which a step
            marked ``retry_safe`` marks while its function runs; ``None`` in round one and
            on 2025 eras.
        detacher: How this call becomes a task (``go_async()``), or ``None`` if it
            cannot: see ``no_tasks``.
        no_tasks: Why this call cannot become a task (completes "the client cannot
            follow a task (...)"), read only when ``detacher`` is ``None``.
        no_tasks_here: Why this server cannot run any task (the ``tasks`` extra is not
            installed), or ``None``: then the client is why, if anything.
    """

    channel: Channel
    delivery: Delivery
    urls: UrlChannel
    keys: KeyBook = field(default_factory=KeyBook)
    refuses: Callable[[], str | None] | None = None
    target: str = ""
    url_router: UrlRouter | None = None
    steps: StepBook | None = None
    on_unsupported: OnUnsupported = "raise"
    answer_tool: bool = False
    limits: ReplayLimits | None = None
    lease: RoundLease | None = None
    call_tag: str | None = None
    detacher: Detacher | None = None
    no_tasks: str = "the server cannot run this call as a task"
    no_tasks_here: str | None = None
    _refusal: tuple[str | None] | None = field(default=None, init=False, repr=False)

    @property
    def refusal(self) -> str | None:
        """Why ``ask()`` cannot be used in this call at all, or ``None``.

        Worked out on first use, not when the call starts: the integration's check may read
        the SDK's internals, and a tool that never asks must not pay for that, nor fail
        with it.
        """
        if self._refusal is None:
            self._refusal = (None if self.refuses is None else self.refuses(),)
        return self._refusal[0]

    def switch_to(self, delivery: Delivery) -> None:
        """Ask the rest of the run's questions through ``delivery``.

        ``go_async()`` switches to the task's, and a question handed to the model to a
        replaying one (`Delivery.for_the_model`).
        """
        self.delivery = delivery


current_run: contextvars.ContextVar[ToolRun] = contextvars.ContextVar("elicitkit_tool_run")
# The key of the durable step whose function is running in this context, so ask() can refuse
# to run inside it on every era. A context variable, not a field of the run: a sibling task
# of the body that asks while a step runs elsewhere is not inside the step.
running_step: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "elicitkit_running_step", default=None
)


def asked_in_step(key: str) -> str:
    """Why ``ask()`` cannot run inside step ``key``, and the fix."""
    return (
        f"The step {key!r} asked the user a question, which a step cannot do: its outcome is "
        "recorded once, but a question ends the round before it. Ask before or after the step."
    )


def sent_to_url_in_step(key: str, function: str) -> str:
    """Why ``ask_url()`` or ``require_url()`` (``function``) cannot run inside step ``key``."""
    return (
        f"The step {key!r} called {function} to send the user to a page, which a step cannot "
        "do: its outcome is recorded once, but a question ends the round before it. Send the "
        "user to the page before or after the step."
    )


# Set by an integration for a call that reaches a server elicitkit is installed on only
# through a server it is not installed on (fastmcp's mount()): the installed server's name.
reached_through_uninstalled: contextvars.ContextVar[str] = contextvars.ContextVar(
    "elicitkit_reached_through_uninstalled"
)


def outside_a_call(function: str) -> str:
    """Why ``function`` (``ask()``, ``ask_url()``) found no call to ask in, and the fix."""
    mounted = reached_through_uninstalled.get(None)
    if mounted is not None:
        return (
            f"{function} was called in a tool of the server {mounted!r}, which elicitkit is "
            "installed on, but the call came through a server that mounts it and that "
            "elicitkit is not installed on, so there is no client to ask. Call "
            "elicitkit.install(server) on the server you serve; the tools of the servers it "
            "mounts can then ask."
        )
    return (
        f"{function} was called outside a tool call of a server elicitkit is installed on, so "
        "there is no client to ask. Call elicitkit.install(server) once after creating the "
        f"server, and call {function} only inside its tools."
    )


def no_call(function: str) -> ElicitError:
    """The error of ``function`` (``ask()``, ``step()``, ...) run where it finds no call.

    Usually a tool of a server elicitkit was never installed on: there is no channel to
    make the error readable, so the hook that `elicitkit.integrations` sets (it knows the
    SDKs) makes it one whose text the serving SDK passes on to the client and the model.
    """
    return _without_a_call(ElicitError(outside_a_call(function)))


def _as_it_is(error: ElicitError) -> ElicitError:
    return error


# Set once, when elicitkit.integrations is imported (which `import elicitkit` does): the
# runtime must not know the SDKs, and the integrations may not be called from here upward.
_without_a_call: Callable[[ElicitError], ElicitError] = _as_it_is


def surface_without_a_call(hook: Callable[[ElicitError], ElicitError]) -> None:
    """Make `no_call` pass its error through ``hook`` (used by `elicitkit.integrations`)."""
    global _without_a_call  # noqa: PLW0603  (one hook, set once at import)
    _without_a_call = hook


def surfaced(error: ElicitError | FormDefinitionError) -> BaseException:
    """The exception to raise for ``error``: inside a call, one whose text reaches the client.

    SDKs show the model an unexpected exception as a bare "Error executing tool NAME"; the
    call's channel turns the error into one whose text they pass on (still of its own
    class). Outside a call the error is raised as it is.

    For what an author calls outside the entry points (``unwrap()``, ``parse_content()``):
    what escapes an entry point is surfaced by its guard (`elicitkit._runtime.entry`).
    """
    try:
        run = current_run.get()
    except LookupError:
        return error
    return run.channel.surface(error)


surface_through(surfaced)
