"""The one guard every public entry point of a tool call goes through.

``ask``, ``ask_all``, the one-liners, ``ask_url``, ``require_url``, ``step`` and
``go_async`` each start the same way: find the call they run in (or say which function was
called outside one), refuse to run inside a durable step where that cannot work, and refuse
beside the SDK's ``Resolve`` where they would ask through the same ``requestState``. And an
elicitkit error that escapes them must reach the client with its sentence: SDKs show the
model an unexpected exception as a bare "Error executing tool NAME", so the guard passes it
through the call's channel (`Channel.surface`). Raise sites inside therefore raise plain
errors; no sentence is lost because one of them forgot.

``replaying()`` asks only whether there is a call (`call_or_none`): outside one it says
``False``, as documented.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, cast

from elicitkit._runtime.context import (
    ToolRun,
    asked_in_step,
    current_run,
    no_call,
    running_step,
    sent_to_url_in_step,
)
from elicitkit.errors import ElicitError, FormDefinitionError, StepDefinitionError, StepError

P = ParamSpec("P")
R = TypeVar("R")

InStep = Callable[[ToolRun, str], str | None]
"""Why an entry point cannot run inside the step with this key (``None``: it can)."""

# What the guard passes on to the client: elicitkit's own errors, whoever raised them (a
# step's function included: its recorded ElicitError is raised again in later rounds).
_ELICITKIT_ERRORS = (ElicitError, FormDefinitionError, StepDefinitionError)


def entry_point(
    function: str, *, in_step: InStep | None = None, beside_resolve: bool = False
) -> Callable[[Callable[P, Coroutine[Any, Any, R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """Guard the public async function ``function`` (e.g. ``"ask()"``) of a tool call.

    Args:
        function: The name the author called, as errors name it.
        in_step: Why it cannot run inside a running durable step (a `StepError`), or
            ``None`` where it may.
        beside_resolve: Refuse it in a tool that also uses the SDK's ``Resolve``
            (`ToolRun.refusal`): set for what asks through the call's ``requestState``.

    The function's own signature (and its ``@overload``s) are kept for type checkers.
    """

    def guard(body: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        @functools.wraps(body)
        async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            run = current_run.get(None)
            if run is None:
                raise no_call(function)
            try:
                if in_step is not None:
                    step = running_step.get()
                    # On every era: on 2025 it would work, on 2026-07-28 it could not.
                    refused = None if step is None else in_step(run, step)
                    if refused is not None:
                        raise StepError(refused)
                if beside_resolve and run.refusal is not None:
                    raise ElicitError(run.refusal)
                return await body(*args, **kwargs)
            except _ELICITKIT_ERRORS as error:
                # The call's own channel, in a task too: go_async() switches the delivery,
                # not the channel, and a task's errors reach the client the same way.
                surfaced = run.channel.surface(cast("ElicitError", error))
                if surfaced is error:
                    raise
                raise surfaced from None

        return guarded

    return guard


def asks_a_question(_run: ToolRun, step: str) -> str:
    """A question cannot be asked inside a step (``ask()``, ``ask_all()``, the one-liners)."""
    return asked_in_step(step)


def sends_to_a_page(function: str) -> InStep:
    """``function`` (``ask_url()``, ``require_url()``) cannot send the user to a page in a step."""

    def refused(_run: ToolRun, step: str) -> str:
        return sent_to_url_in_step(step, function)

    return refused


def call_or_none() -> ToolRun | None:
    """The call this code runs in, or ``None`` (for what works outside a call too)."""
    return current_run.get(None)
