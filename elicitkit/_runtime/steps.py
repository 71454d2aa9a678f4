"""``step()``: act between questions, once per dialogue, on every protocol era.

On MCP 2026-07-28 a tool that asks runs again from the top in every round, so code before
its last ``ask()`` runs once per round. ``await step(key, fn, ...)`` runs ``fn`` once per
dialogue and gives later rounds its recorded outcome instead (Temporal's activities, DBOS's
steps and Restate's ``ctx.run`` do the same for workflows).

Where a step's outcome lives, and why in two places:

* **In the sealed state**, as ``[key, digest, outcome]``. Every later round of the dialogue
  descends from the state the round that ran the step returned, so it replays the step
  without a store read: a step replayed costs a dict lookup and a JSON decode. Round one
  needs nothing else: its steps are in every state a client can ever send back.
* **In the outcome store** (`AtMostOnce`, the dialogue's own store), under
  ``dialogue/key``, for steps run in a later round, recorded before the round's answer
  leaves the server. A client can resend that round with the older state, which lacks the
  step; the round (which holds the dialogue's lease, so no other round of it runs at the
  same time) claims the step and finds its record.

It fails closed like the dialogue does: a step whose store entry is leased or interrupted
(its round died mid-step) is refused with `StepError`; a step whose outcome cannot be
recorded ends the round with `StepError` (the dialogue's outcome records that, or its
lease lapses into "interrupted"); a round cancelled mid-step is recorded as interrupted by
`AtMostOnce`. A ``retry_safe`` step of a later round instead marks the dialogue's lease
while its function runs (`elicitkit._replay.once.RoundLease`), so a round cancelled or a
process killed inside it leaves the dialogue to the next round, which runs the step again;
the mark is lifted after the step's outcome is recorded, and a round that cannot lift it
stops. A dialogue the store forgot never reaches a step: `AtMostOnce` refuses the round
first.

On 2025-06-18 and 2025-11-25 the tool runs once, so ``step`` calls ``fn`` and returns its
result; the result type is still checked, so a tool that works there works on 2026-07-28.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import inspect
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast, overload

import anyio
import anyio.to_thread

from elicitkit._compiler.type_hints import return_hint, step_type_problem
from elicitkit._lru import Lru
from elicitkit._replay.once import AFRESH, RecordUnreadable, StoreUnavailable
from elicitkit._replay.state import CarriedStep, NeedInput
from elicitkit._replay.store import StoreFull
from elicitkit._runtime.context import (
    StepBook,
    ToolRun,
    asked_in_step,
    current_run,
    running_step,
)
from elicitkit._runtime.entry import call_or_none, entry_point
from elicitkit._runtime.step_values import (
    ANY_LOADED,
    Rebuildable,
    decode,
    encode,
    is_record,
    loaded,
    unsupported,
)
from elicitkit.errors import StepDefinitionError, StepError, StepFailed

T = TypeVar("T")


# Who is told each time a step's function or a tool body actually runs: the testing kit
# counts them (elicitkit.testing.count_runs). Events are ("step", key, call) and ("body",
# target, call), where ``call`` is the request's ``_meta`` value under CALL_TAG (ToolRun.
# call_tag), so that counts are per call even while other calls run in the process.
observers: list[Callable[[str, str, str | None], None]] = []
CALL_TAG = "elicitkit/counted-call"


def observe(event: str, name: str, call: str | None) -> None:
    """Tell the observers that ``name`` (a step key or a tool) ran for real in ``call``."""
    for observer in observers:
        observer(event, name, call)


@overload
async def step(
    key: str,
    fn: Callable[..., Awaitable[T]],
    /,
    *args: Any,
    retry_safe: bool = False,
    **kwargs: Any,
) -> T: ...
@overload
async def step(
    key: str, fn: Callable[..., T], /, *args: Any, retry_safe: bool = False, **kwargs: Any
) -> T: ...
# Not refused inside a step (a nested step is recorded like any other), nor beside Resolve: a
# step asks nothing, and Resolve's requestState is lost only to a question of elicitkit's.
@entry_point("step()")
async def step(
    key: str, fn: Callable[..., Any], /, *args: Any, retry_safe: bool = False, **kwargs: Any
) -> Any:
    """Run ``fn(*args, **kwargs)`` once per call, and return its result in every round.

    On MCP 2026-07-28 the tool body runs again in each round of questions; a step runs in
    the first round that reaches it, its outcome (result or exception) is recorded, and
    every later round, a resent round, an older state, or another worker sharing the
    store, gets that outcome without calling ``fn``. On 2025-06-18 and 2025-11-25 the body
    runs once and ``fn`` is simply called. A sync ``fn`` runs in a worker thread, so a
    slow one does not stall the server (nor the renewal of the call's lease).

    Args:
        key: The step's name in this call (1 to 64 letters, digits, ``_``, ``-``, ``.``),
            unique within the call, the same in every round.
        fn: The function: sync or async. It must not ask the user anything.
        *args: Its positional arguments.
        retry_safe: ``fn`` may run again if its round is cancelled, or its server
            process dies, while it runs (an idempotent call that carries its own
            idempotency key): the next round runs again from its state. Without it, a
            step interrupted either way closes the call.
        **kwargs: Its keyword arguments.

    Returns:
        ``fn``'s result; in a later round, the recorded result rebuilt as the same type.

    Raises:
        StepDefinitionError: ``fn``'s return annotation has no JSON round trip (checked
            before ``fn`` runs), or its value has none (recorded as the step's outcome).
        StepError: ``key`` is malformed or used twice, or was used with another function
            or other arguments in an earlier round; or the step's outcome is unknown (its
            round was interrupted) or could not be recorded: the call fails closed.
        StepFailed: ``fn`` raised, in an earlier round, an exception that cannot be
            rebuilt; it carries that exception's text and type name.
        Exception: What ``fn`` raised (in a later round: rebuilt as the same type).
    """
    run = current_run.get()
    run.keys.claim_step(key)
    problem, classes = _declared(fn)
    if problem is not None:
        raise unsupported(key, problem)
    replay = run.delivery.replay
    if replay is None:  # 2025 eras: the body runs once
        return await _call(run, key, fn, args, kwargs)
    digest = _digest(fn, args, kwargs)
    carried = replay.steps.get(key)
    # Only a later round reads and writes the store: round one's steps travel in the state.
    where = (
        (run.steps, replay.dialogue, secrets.token_urlsafe(8))
        if replay.rounds > 0 and replay.dialogue is not None and run.steps is not None
        else None
    )
    if carried is None and where is not None:
        carried = await _claimed(key, where, retry_safe=retry_safe)
    if carried is not None:
        if carried.digest != digest:
            raise StepError(_REUSED.format(key=key, fn=_name(fn)))
        replay.steps[key] = carried
        return _replayed(carried, classes)
    failure: BaseException | None = None
    value: Any = None
    # A retry_safe step of a later round marks the dialogue's lease while fn runs, so that
    # a crash in fn leaves the dialogue to the next round rather than closing it.
    lease = run.lease if retry_safe and where is not None else None
    if lease is not None:
        await lease.enter_safe_step()
    try:
        value = await _call(run, key, fn, args, kwargs)
    except Exception as error:  # noqa: BLE001  (the step's outcome: recorded, then re-raised)
        failure = error
    except BaseException:
        # Cancelled: the lease stays marked, so AtMostOnce releases the dialogue.
        if retry_safe and where is not None:
            with anyio.CancelScope(shield=True):
                await where[0].release_step(where[1], key, where[2])
        raise
    outcome, failure = _outcome(key, value, failure)
    text = json.dumps({"d": digest, "o": outcome}, separators=(",", ":"), ensure_ascii=False)
    limit = replay.limits.max_state_bytes
    if len(text) > limit:
        message = _TOO_LARGE.format(key=key, size=len(text), limit=limit)
        outcome = {"e": {"t": "elicitkit.errors:StepError", "m": message}}
        failure = StepError(message)
        text = json.dumps({"d": digest, "o": outcome}, separators=(",", ":"))
    if where is not None:
        try:
            await where[0].record_step(where[1], key, text)
        except StoreUnavailable:
            raise StepError(_UNRECORDED.format(key=key)) from None
    # Recorded first: a crash between the two finds the lease marked, and the step recorded.
    if lease is not None and not await lease.leave_safe_step():
        raise StepError(_STILL_MARKED.format(key=key))
    replay.steps[key] = CarriedStep(digest, outcome)
    if failure is not None:
        raise failure
    return value


async def _claimed(
    key: str, where: tuple[StepBook, str, str], *, retry_safe: bool
) -> CarriedStep | None:
    """The step's record in the store, or ``None`` once this round holds its claim.

    Raises:
        StepError: The store cannot be reached, or the step was interrupted (not retry_safe).
    """
    book, dialogue, token = where
    try:
        claim = await book.claim_step(dialogue, key, token)
    except StoreUnavailable as error:
        full = isinstance(error.__cause__, StoreFull)
        raise StepError((_FULL if full else _UNREACHABLE).format(key=key)) from None
    except RecordUnreadable:
        raise StepError(_UNREADABLE.format(key=key)) from None
    if claim.status == "recorded":
        record = json.loads(claim.outcome or "{}")
        return CarriedStep(str(record.get("d")), record.get("o") or {})
    # "busy" too: the round holds the dialogue's lease, so a leased step is a dead round's.
    if claim.status != "claimed" and not retry_safe:
        in_task = current_run.get().delivery.in_task
        raise StepError((_INTERRUPTED_IN_TASK if in_task else _INTERRUPTED).format(key=key))
    return None


def replaying() -> bool:
    """Say whether this round of the call is a replay: a later round on MCP 2026-07-28.

    For logs and metrics only (e.g. to log "looked up the quote" once): ``step()`` makes
    it unnecessary for correctness. ``False`` on 2025 eras, in round one, and outside a
    call.
    """
    run = call_or_none()  # outside a call too: it is only for logs
    replay = None if run is None else run.delivery.replay
    return replay is not None and replay.rounds > 0


async def _call(
    run: ToolRun, key: str, fn: Callable[..., Any], args: Any, kwargs: dict[str, Any]
) -> Any:
    if observers:
        observe("step", key, run.call_tag)
    # Seen by ask() in fn's task and in the worker thread (which copies this context).
    inside = running_step.set(key)
    try:
        if inspect.iscoroutinefunction(fn) or _async_callable(fn):
            return await fn(*args, **kwargs)
        result = await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
        if inspect.isawaitable(result):  # a lambda returning a coroutine
            return await result
    except NeedInput:  # an ask the check in ask() did not see (a task fn started itself)
        raise StepError(asked_in_step(key)) from None
    else:
        return result
    finally:
        running_step.reset(inside)


def _async_callable(fn: object) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004  (an object with an async __call__)
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        getattr(fn, "func", None)  # functools.partial of an async function
    )


# fn -> its return annotation's problem (None: fine) and the classes it declares.
_CHECKED: Lru[Any, tuple[object, Rebuildable]] = Lru(1024)


def _declared(fn: Callable[..., Any]) -> tuple[object, Rebuildable]:
    """What ``fn``'s return annotation says, read once per function.

    The part of it without a JSON round trip (``None``: fine), and the classes a recorded
    result of ``fn`` may be rebuilt with.
    """
    try:
        found = _CHECKED.get(fn)
    except TypeError:  # an unhashable callable: read it every time
        found = None
    if found is None:
        hint = return_hint(fn)
        problem = step_type_problem(hint, is_record)
        found = (problem, Rebuildable.declared(hint) if problem is None else ANY_LOADED)
        with contextlib.suppress(TypeError):
            _CHECKED.put(fn, found)
    return found


def _digest(fn: Callable[..., Any], args: Any, kwargs: dict[str, Any]) -> str:
    """10 base64url characters of SHA-256 over the function's name and arguments' JSON.

    An argument with no JSON form (a client object, say) counts by its type's name only.
    """
    payload = json.dumps(
        [_name(fn), args, kwargs],
        sort_keys=True,
        separators=(",", ":"),
        default=_argument_json,
    )
    raw = hashlib.sha256(payload.encode()).digest()
    return base64.urlsafe_b64encode(raw).decode()[:10]


def _argument_json(value: object) -> object:
    try:
        return encode("", value)
    except StepDefinitionError:
        return f"<{type(value).__qualname__}>"


def _name(fn: object) -> str:
    inner = getattr(fn, "func", fn)  # functools.partial: its function
    module = getattr(inner, "__module__", "") or ""
    return f"{module}.{getattr(inner, '__qualname__', type(inner).__qualname__)}"


def _outcome(
    key: str, value: Any, failure: BaseException | None
) -> tuple[dict[str, Any], BaseException | None]:
    """The step's outcome to record, and the exception it raises (if any)."""
    if failure is None:
        try:
            return {"r": encode(key, value)}, None
        except StepDefinitionError as error:
            failure = error
    kind = type(failure)
    return {"e": {"t": f"{kind.__module__}:{kind.__qualname__}", "m": str(failure)}}, failure


def _replayed(carried: CarriedStep, classes: Rebuildable) -> Any:
    outcome = carried.outcome
    if "e" in outcome:
        raise _rebuilt_error(outcome["e"])
    return decode(outcome.get("r"), classes)


def _rebuilt_error(data: Any) -> BaseException:
    """The recorded exception: its own type where it is loaded and takes one message."""
    fields = cast("dict[str, Any]", data) if isinstance(data, dict) else {}
    path, message = str(fields.get("t", "")), str(fields.get("m", ""))
    found = loaded(path)  # never imports: only classes the server has loaded
    if isinstance(found, type) and issubclass(found, Exception):
        try:
            rebuilt = found(message)
        except Exception:  # noqa: BLE001,S110  (a constructor that wants more: StepFailed below)
            pass
        else:
            if str(rebuilt) == message:
                return rebuilt
    return StepFailed(message, path.replace(":", "."))


_INTERRUPTED = (
    "The step {key!r} was started in an earlier round of this call that was interrupted "
    "before it recorded the step's outcome, so whether it took effect is unknown and it is "
    f"not run again. Check its effect, then start {AFRESH}; mark the step retry_safe=True "
    "only if running it twice is harmless."
)
_INTERRUPTED_IN_TASK = (
    "The step {key!r} was started by a part of this task whose server process stopped "
    "(it crashed, was killed or restarted) before it recorded the step's outcome, so whether "
    "it took effect is unknown and it is not run again: the task stops here. Check its "
    "effect, then call the tool again; mark the step retry_safe=True only if running it "
    "twice is harmless."
)
_UNREADABLE = (
    "The step {key!r} was recorded in an earlier round, but its record does not open with "
    "this server's key (the key changed, or the record was altered in the store), so it is "
    f"not run again and its result is not used. Check its effect, then start {AFRESH}."
)
_UNREACHABLE = (
    "The step {key!r} was not run: the store where this call's steps are recorded could not "
    "be reached, so the server cannot tell whether it already ran. Send the same request "
    "again in a little while."
)
_FULL = (
    "The step {key!r} was not run: the store where this call's steps are recorded is full "
    "(it takes no new record rather than drop an unfinished call's), so the step could not "
    "be claimed. Send the same request again in a few minutes."
)
_UNRECORDED = (
    "The step {key!r} ran, but its outcome could not be recorded (the store could not be "
    "reached), so the call stops here rather than risk running it again. Check its effect, "
    f"then start {AFRESH}."
)
_STILL_MARKED = (
    "The step {key!r} ran and its outcome was recorded, but the store could not be told that "
    "the call left this retry_safe step, so the call stops here rather than let a crash "
    "after it run its later code again. Send the same request again in a little while."
)
_REUSED = (
    "The step {key!r} was recorded in an earlier round of this call with another function "
    "or other arguments than {fn} is called with now, so its recorded outcome does not "
    "belong to this call. Give each step its own key, and call it with the same arguments "
    "in every round."
)
_TOO_LARGE = (
    "The result of step {key!r} takes {size} bytes, over the {limit} bytes a call carries "
    "between rounds (ReplayLimits.max_state_bytes), so it was not kept and the step is not "
    "run again. Return less from the step (an id rather than the whole record), or raise "
    "ReplayLimits(max_state_bytes=...) in install()."
)
