"""At most once on MCP 2026-07-28: a dialogue's later rounds, claimed, run, and recorded.

A dialogue (one logical call across its rounds) completes at most once. A round that
carries a dialogue id claims the dialogue in the `OutcomeStore` before it runs; when the
round completes the call its outcome is recorded, and a later round of a completed
dialogue gets that record back without running the handler. A round that finds another
round of its dialogue running waits for it (up to ``wait`` seconds) and then shares its
outcome. A round interrupted mid-run (cancelled, or an exception that is not an outcome)
is recorded as interrupted, so the dialogue never runs again: later rounds get an error
that says so.

Nothing here knows an SDK. The integration says, through `Outcomes`, how its results and
errors become records and back, what an "input required" result is, and how a problem of
the dialogue itself reaches the client. The record format is this module's: stored records
must stay readable by every later version, since a record outlives the process that wrote
it (the state's lifetime plus a minute, in a store shared by every worker).

Records are compact JSON objects:

* ``{"m": kind, "r": data}``: a result of the given kind (the request's method), or
  ``{"r": data}`` for a result the integration passes on as it is;
* ``{"e": {"code": ..., "message": ..., "data": ...}}``: a JSON-RPC error.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NoReturn, Protocol, TypeVar

import anyio

from elicitkit._replay.store import Claim, OutcomeStore

R = TypeVar("R")

INTERRUPTED = (
    "An earlier request for this call was interrupted before it finished (cancelled, or its "
    "server failed), so the call is not run again: what it had already done is unknown. "
    "Check the outcome, then start the call afresh without requestState to try again."
)
BUSY = (
    "Another request for this same call is still running, so its outcome is not known yet. "
    "Send the same request again in a few seconds to get that outcome."
)
# JSON-RPC's "internal error": how an interrupted dialogue is reported to later rounds.
INTERNAL_ERROR = -32603


class Outcomes(Protocol[R]):
    """What an integration knows of its SDK's outcomes for one kind of request.

    ``R`` is what the integration's handler returns (its SDK's result type).
    """

    def dump(self, result: R) -> tuple[str | None, Any]:
        """Return ``(kind, data)``: JSON-able ``data`` that `load` turns back into ``result``."""
        ...

    def load(self, kind: str | None, data: Any) -> R:
        """Rebuild a recorded result from what `dump` returned."""
        ...

    def error_data(self, error: BaseException) -> Mapping[str, Any] | None:
        """Return the JSON-RPC error (code, message, data) if ``error`` is an outcome.

        An error that is an outcome (the SDK sends it to the client as that JSON-RPC
        error) is recorded as it is; any other exception means the round was interrupted.
        """
        ...

    def raise_error(self, data: Mapping[str, Any]) -> NoReturn:
        """Raise the recorded JSON-RPC error ``data`` as the SDK sends one."""
        ...

    def needs_input(self, result: R) -> bool:
        """Whether ``result`` asks the client for more input (the dialogue goes on)."""
        ...

    def refused(self, message: str) -> R:
        """Return (or raise) the outcome that reports a problem of the dialogue itself."""
        ...


class AtMostOnce:
    """Runs the later rounds of each dialogue so that it completes at most once.

    Attributes:
        store: Where outcomes are recorded; shared by every process that serves the clients.
        keep: Seconds an outcome is kept (and a lease lasts): the lifetime of every state
            minted before it, plus the clock skew the state's seal tolerates.
        wait: Seconds a round waits for another round of its dialogue to finish.
    """

    def __init__(self, store: OutcomeStore, *, keep: float, wait: float = 30.0) -> None:
        """Record outcomes in ``store`` for ``keep`` seconds; wait ``wait`` on a busy one."""
        self.store = store
        self.keep = keep
        self.wait = wait

    async def run(
        self, dialogue: str, round_: Callable[[], Awaitable[R]], outcomes: Outcomes[R]
    ) -> R:
        """Run ``round_``, a later round of ``dialogue``, at most once to completion.

        Returns:
            The round's result; the recorded result of a completed dialogue (without
            running ``round_``); or ``outcomes.refused(BUSY)`` when another round of the
            dialogue is still running after ``wait`` seconds.

        Raises:
            BaseException: What ``round_`` raised (recorded first), or a recorded error.
        """
        lease = secrets.token_urlsafe(8)
        claim = await self._claim(dialogue, lease)
        if claim.status == "recorded":
            return replayed(claim.outcome or "", outcomes)
        if claim.status == "busy":
            return outcomes.refused(BUSY)
        try:
            result = await round_()
        except BaseException as error:
            data = outcomes.error_data(error)
            if data is not None:
                await self.store.record(dialogue, error_record(data), keep=self.keep)
                raise
            # Cancelled or crashed mid-round: the handler may have got past its last ask()
            # and done its side effect, so the dialogue must not run again. Later rounds
            # get an error that says so (shielded: a cancellation must not skip the record).
            with anyio.CancelScope(shield=True):
                interrupted = {"code": INTERNAL_ERROR, "message": INTERRUPTED}
                await self.store.record(dialogue, error_record(interrupted), keep=self.keep)
            raise
        if outcomes.needs_input(result):
            await self.store.release(dialogue, lease)
        else:
            kind, data = outcomes.dump(result)
            await self.store.record(dialogue, result_record(kind, data), keep=self.keep)
        return result

    async def _claim(self, dialogue: str, lease: str) -> Claim:
        """Claim the dialogue, waiting while another round of it runs (up to ``wait``)."""
        deadline = anyio.current_time() + self.wait
        pause = 0.005
        while True:
            claim = await self.store.claim(dialogue, lease, lease=self.keep)
            if claim.status != "busy" or anyio.current_time() >= deadline:
                return claim
            await anyio.sleep(pause)
            pause = min(pause * 2, 0.1)


def result_record(kind: str | None, data: Any) -> str:
    """The record of a result: ``{"m": kind, "r": data}``, or ``{"r": data}`` without a kind."""
    fields = {"r": data} if kind is None else {"m": kind, "r": data}
    return json.dumps(fields, separators=(",", ":"))


def error_record(data: Mapping[str, Any]) -> str:
    """The record of a JSON-RPC error: ``{"e": {"code": ..., "message": ...}}``."""
    return json.dumps({"e": dict(data)}, separators=(",", ":"))


def replayed(record: str, outcomes: Outcomes[R]) -> R:
    """Give back a recorded outcome: the same result, or the same JSON-RPC error raised."""
    fields: dict[str, Any] = json.loads(record)
    if "e" in fields:
        outcomes.raise_error(fields["e"])
    kind = fields.get("m")
    return outcomes.load(kind if isinstance(kind, str) else None, fields["r"])
