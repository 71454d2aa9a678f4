"""At most once on MCP 2026-07-28: a dialogue's later rounds, claimed, run, and recorded.

A dialogue (one logical call across its rounds) completes at most once. The first round
that asks a question opens the dialogue's entry in the `OutcomeStore`, and the state it
returns says so (``Replay.known``). A later round claims the dialogue before it runs; when
the round completes the call its outcome is recorded, and a later round of a completed
dialogue gets that record back without running the handler. A round that finds another
round of its dialogue running waits for it (up to ``wait`` seconds) and then shares its
outcome. A round interrupted mid-run (cancelled, or an exception that is not an outcome)
is recorded as interrupted, so the dialogue never runs again: later rounds get an error
that says so. The one exception is a round interrupted (or whose process died) inside a
durable step marked ``retry_safe``: it leaves the dialogue to the next round (`RoundLease`).

It fails closed whenever the store cannot vouch for a dialogue:

* A known dialogue the store has no trace of (restarted empty, evicted, flushed, failed
  over, or a process-local store of another process) is refused as forgotten
  (`FORGOTTEN`); nothing runs.
* A lease is short (``lease``, 10 s) and renewed every third of it while the round runs;
  a lapsed lease that was never recorded means the holder died, and the next round is
  told the call was interrupted (`INTERRUPTED`) within seconds, not after the state's
  lifetime.
* Every store call has a timeout (``timeout``, 3 s): a store that does not answer fails
  the round with `STORE_UNAVAILABLE`, never a hang; nothing runs without a claim.
* A record that cannot be written (the store died after the side effect) does not take
  the result from the client: it is returned, the failure is logged, and the unrenewed
  lease lapses into "interrupted" (or the lost entry reads as forgotten), so no later
  round runs the dialogue again.

Nothing here knows an SDK. The integration says, through `Outcomes`, how its results and
errors become records and back, what an "input required" result is, and how a problem of
the dialogue itself reaches the client. The record format is this module's: stored records
must stay readable by every later version, since a record outlives the process that wrote
it (the state's lifetime plus a minute, in a store shared by every worker).

Records are compact JSON objects:

* ``{"m": kind, "r": data}``: a result of the given kind (the request's method), or
  ``{"r": data}`` for a result the integration passes on as it is;
* ``{"e": {"code": ..., "message": ..., "data": ...}}``: a JSON-RPC error;
* ``{"m": kind, "c": {"bytes": n, "sha256": hex, "head": text}}`` (since the store
  learned to forget safely): a result whose record would exceed ``max_record_bytes``,
  kept as its size, its SHA-256 and its first `HEAD_CHARS` characters. A replay of it
  gets a short "already completed" answer (`TOO_LARGE_TO_KEEP`) instead of the result.
  Older versions cannot read this form; they never wrote it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NoReturn, Protocol, TypeVar, cast

import anyio

import elicitkit._clock as clock
from elicitkit._replay.store import (
    CallerFull,
    Claim,
    MemoryStore,
    OutcomeStore,
    StoreFull,
    caller_key,
)

R = TypeVar("R")
T = TypeVar("T")

logger = logging.getLogger("elicitkit")

# How a refusal tells a client to begin the call again. The answer_form handler rewrites it
# for a model, which never holds a requestState (`elicitkit.integrations._answer_call`).
AFRESH = "the call afresh without requestState"
INTERRUPTED = (
    "An earlier request for this call was interrupted before it finished (cancelled, or its "
    "server failed), so the call is not run again: what it had already done is unknown. "
    f"Check the outcome, then start {AFRESH} to try again."
)
BUSY = (
    "Another request for this same call is still running, so its outcome is not known yet. "
    "Send the same request again in a few seconds to get that outcome."
)
FORGOTTEN = (
    "The server has lost track of this call: the store where it records each call's "
    "outcome has no trace of it (the store restarted, failed over, evicted or expired it, "
    "or is not shared by the server's processes), so the server cannot tell whether the "
    "call already ran, and it does not run it again. Check the outcome, then start "
    f"{AFRESH} to try again."
)
STORE_UNAVAILABLE = (
    "The server could not reach the store where it records each call's outcome, so it "
    "cannot tell whether this call already ran, and it did not run it. Send the same "
    "request again in a little while."
)
STORE_FULL = (
    "The server is holding as many unfinished calls as it can, so it did not start this "
    "one, and nothing ran. Try again in a few minutes."
)
CALLER_FULL = (
    "This caller already has as many unfinished calls as the server lets one caller have, "
    "so the server did not start this one, and nothing ran. Finish one of them (or wait a "
    "few minutes for abandoned ones to expire), then try again."
)
UNREADABLE_RECORD = (
    "This call already completed, and it is not run again, but the server cannot read its "
    "recorded outcome: the record was sealed with another key (the server's key changed), "
    "or it was altered in the store. Check the outcome, then start {afresh}."
)
TOO_LARGE_TO_KEEP = (
    "This call already completed, and it is not run again. Its result ({size} bytes, "
    "SHA-256 {digest}) was larger than the {limit} bytes the server keeps to answer a "
    "repeated request, so only its beginning was kept: {head}"
)
# JSON-RPC's "internal error": how an interrupted or forgotten dialogue is reported.
INTERNAL_ERROR = -32603
# Defaults, in seconds. A lease of 10 s renewed every 3.3 s survives two lost renewals (or
# one that waits the whole timeout) before it lapses; a dead holder is reported within
# 10 s. Redis answers in well under a millisecond on a LAN: 3 s is a failure, not a load.
DEFAULT_LEASE = 10.0
DEFAULT_TIMEOUT = 3.0
# Records larger than this keep only a digest and a head: 32 KiB holds the results of
# ordinary tools whole, and bounds a store's bytes per dialogue (4,000 such records fill
# MemoryStore's default 128 MiB).
DEFAULT_MAX_RECORD_BYTES = 32 * 1024
HEAD_CHARS = 512


class StoreUnavailable(Exception):
    """A store call failed or did not answer within `AtMostOnce.timeout`."""


class RecordUnreadable(Exception):
    """A record in the store does not open with the server's key, or names another entry."""


class Codec(Protocol):
    """Authenticated encryption of bytes into a token (the SDK's ``requestState`` codec)."""

    def seal(self, payload: bytes) -> str:
        """Return an opaque token protecting ``payload``."""
        ...

    def unseal(self, token: str) -> bytes:
        """Return the payload of a token ``seal`` made; raise for any other token."""
        ...


# A record's plaintext starts with this and its entry's id: a record copied to another
# entry (another dialogue's step, another call's outcome) does not open there.
_RECORD_CONTEXT = "elicitkit record 1\n"


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
        keep: Seconds a store entry is kept after its last write: the lifetime of every
            state minted before it, plus the clock skew the state's seal tolerates.
        wait: Seconds a round waits for another round of its dialogue to finish.
        lease: Seconds a round's claim lasts unless renewed (every third of it).
        timeout: Seconds one store call may take before the round fails.
        max_record_bytes: The largest record kept whole (larger: a digest and a head).
        codec: Seals every record (results, errors, step values) before it reaches the
            store, and opens it back, so neither an SQLite file nor Redis holds an answer
            or a result in plaintext, and a record written by anyone without the key is
            refused. ``None``: records are stored as they are (SDK-free unit tests).
    """

    def __init__(
        self,
        store: OutcomeStore,
        *,
        keep: float,
        wait: float = 30.0,
        lease: float = DEFAULT_LEASE,
        timeout: float = DEFAULT_TIMEOUT,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        codec: Codec | None = None,
    ) -> None:
        """Record outcomes in ``store`` for ``keep`` seconds; wait ``wait`` on a busy one."""
        self.store = store
        self.codec = codec
        self.keep = keep
        self.wait = wait
        self.lease = lease
        self.timeout = timeout
        self.max_record_bytes = max_record_bytes

    async def begin(
        self,
        round_: Callable[[], Awaitable[R]],
        minted: Callable[[], str | None],
        outcomes: Outcomes[R],
        *,
        principal: str | None = None,
    ) -> R:
        """Run a dialogue's first round; if it asks, open the dialogue in the store.

        Args:
            round_: The round.
            minted: The dialogue id the round minted, read after it ran (``None``: it
                asked nothing, so there is no dialogue).
            outcomes: The integration's outcomes.
            principal: The authenticated caller (``None``: anonymous), whose count of open
                dialogues the store keeps (`OutcomeStore.open`).

        Returns:
            The round's result, or ``outcomes.refused(...)`` with `STORE_UNAVAILABLE`,
            `STORE_FULL` or `CALLER_FULL` when the store did not open the dialogue (its
            state, which says the store knows it, is then never sent).
        """
        result = await round_()
        dialogue = minted()
        if dialogue is None or not outcomes.needs_input(result):
            return result
        caller = caller_key(principal)
        try:
            await self._call(
                "open", lambda: self.store.open(dialogue, keep=self.keep, caller=caller)
            )
        except StoreUnavailable as error:
            return outcomes.refused(_refusal(error))
        return result

    async def run(
        self,
        dialogue: str,
        round_: Callable[[], Awaitable[R]],
        outcomes: Outcomes[R],
        *,
        known: bool = False,
        lease: RoundLease | None = None,
    ) -> R:
        """Run ``round_``, a later round of ``dialogue``, at most once to completion.

        Args:
            dialogue: The dialogue's id.
            round_: The round.
            outcomes: The integration's outcomes.
            known: The state says the store opened the dialogue (states minted before
                that was said carry ``False``, and a missing entry then means "new").
            lease: The round's lease (made by the caller so that the round's durable steps
                can mark it, see `RoundLease`); a new one by default. A round interrupted
                while it is marked (inside a step its author marked ``retry_safe``) releases
                the dialogue (the next round runs it again) rather than closing it.

        Returns:
            The round's result; the recorded result of a completed dialogue (without
            running ``round_``); or ``outcomes.refused(...)`` with `BUSY` (another round
            still runs after ``wait`` seconds), `STORE_UNAVAILABLE`, or
            `TOO_LARGE_TO_KEEP`.

        Raises:
            BaseException: What ``round_`` raised (recorded first), a recorded error, or
                the -32603 error of an interrupted or forgotten dialogue.
        """
        lease = lease or RoundLease(self, dialogue)
        token = lease.token
        try:
            claim = await self._claim(dialogue, token, known=known)
        except StoreUnavailable as error:
            return outcomes.refused(_refusal(error))
        if claim.status == "recorded":
            try:
                record = self._open(dialogue, claim.outcome or "")
            except RecordUnreadable:
                return outcomes.refused(UNREADABLE_RECORD.format(afresh=AFRESH))
            return self._replayed(record, outcomes)
        if claim.status == "interrupted":
            outcomes.raise_error({"code": INTERNAL_ERROR, "message": INTERRUPTED})
        if claim.status == "forgotten":
            logger.warning(
                "elicitkit refused a round of dialogue %s: the store has no trace of it "
                "although the dialogue's state says the store opened it, so the store lost "
                "what it knew (a restart, failover, eviction or flush) or is not shared by "
                "every process. The client was told to start the call afresh.",
                dialogue,
            )
            outcomes.raise_error({"code": INTERNAL_ERROR, "message": FORGOTTEN})
        if claim.status == "busy":
            return outcomes.refused(BUSY)
        try:
            result = await self._renewing(lease, round_)
        except BaseException as error:
            data = outcomes.error_data(error)
            if data is not None:
                await self._record(dialogue, error_record(data))
                raise
            # Cancelled or crashed mid-round: the handler may have got past its last ask()
            # and done its side effect, so the dialogue must not run again. Later rounds
            # get an error that says so (shielded: a cancellation must not skip the record).
            # Inside a step marked retry_safe, everything before it in this round was a
            # replayable read, an answer or a recorded step, so running it again is safe.
            if lease.inside_safe_step:
                # Unmarked, then released; if the store cannot be told, the marked lease
                # lapses and the next round takes it: the same outcome, seconds later.
                with anyio.CancelScope(shield=True), contextlib.suppress(StoreUnavailable):
                    if await lease.leave_safe_step():
                        await self._call(
                            "release", lambda: self.store.release(dialogue, token, keep=self.keep)
                        )
                raise
            with anyio.CancelScope(shield=True):
                interrupted = {"code": INTERNAL_ERROR, "message": INTERRUPTED}
                await self._record(dialogue, error_record(interrupted))
            raise
        if outcomes.needs_input(result):
            try:
                await self._call(
                    "release", lambda: self.store.release(dialogue, token, keep=self.keep)
                )
            except StoreUnavailable:
                # The lease stays and lapses: the next round is told "interrupted", which
                # is true enough, since this round's questions never reach the client.
                return outcomes.refused(STORE_UNAVAILABLE)
        else:
            kind, data = outcomes.dump(result)
            await self._record(dialogue, self._result_record(kind, data))
        return result

    async def claim_step(self, dialogue: str, key: str, token: str) -> Claim:
        """Claim durable step ``key`` of ``dialogue`` (a later round, which holds the dialogue).

        A step's entry lives in the same store as its dialogue, under ``dialogue/key`` (a
        dialogue id is base64url and a key has no ``/``, so the two never collide), with
        the same expiry. Only rounds after the first read it: round one's steps travel in
        the state of every later round (see `elicitkit._runtime.steps`).

        Raises:
            StoreUnavailable: The store failed or did not answer within ``timeout``.
            RecordUnreadable: The step's record does not open with the server's key.
        """
        entry = f"{dialogue}/{key}"
        claim = await self._call(
            "claim step",
            lambda: self.store.claim(entry, token, lease=self.lease, keep=self.keep, known=False),
        )
        if claim.status != "recorded":
            return claim
        return Claim("recorded", self._open(entry, claim.outcome or ""))

    async def record_step(self, dialogue: str, key: str, outcome: str) -> None:
        """Record durable step ``key``'s outcome before the round's answer leaves the server.

        Raises:
            StoreUnavailable: The store failed or did not answer within ``timeout``.
        """
        entry = f"{dialogue}/{key}"
        sealed = self._seal(entry, outcome)
        await self._call("record step", lambda: self.store.record(entry, sealed, keep=self.keep))

    async def release_step(self, dialogue: str, key: str, token: str) -> None:
        """Give up a ``retry_safe`` step's claim after an interruption (best effort)."""
        entry = f"{dialogue}/{key}"
        # If the store cannot be told, the lease lapses: the step reads as interrupted.
        with contextlib.suppress(StoreUnavailable):
            await self._call(
                "release step", lambda: self.store.release(entry, token, keep=self.keep)
            )

    async def _claim(self, dialogue: str, token: str, *, known: bool) -> Claim:
        """Claim the dialogue, waiting while another round of it runs (up to ``wait``)."""
        deadline = clock.monotonic() + self.wait
        pause = 0.005
        while True:
            claim = await self._call(
                "claim",
                lambda: self.store.claim(
                    dialogue, token, lease=self.lease, keep=self.keep, known=known
                ),
            )
            if claim.status != "busy" or clock.monotonic() >= deadline:
                return claim
            await clock.sleep(pause)
            pause = min(pause * 2, 0.1)

    async def _renewing(self, lease: RoundLease, round_: Callable[[], Awaitable[R]]) -> R:
        """Run ``round_`` while renewing its lease; raise what it raised, unwrapped."""
        dialogue = lease.dialogue

        async def renew() -> None:
            while True:
                try:
                    renewed = await lease.renew()
                except StoreUnavailable:
                    renewed = True  # logged; the next renewal may reach it before the lapse
                if not renewed:
                    logger.warning(
                        "elicitkit could not renew the lease of dialogue %s: the store no "
                        "longer holds it for this round (it lapsed, or the store lost it), "
                        "so a concurrent round of the call is told it was interrupted.",
                        dialogue,
                    )
                    return
                await clock.sleep(self.lease / 3)

        # Most rounds end well within a third of the lease, so the renewal task is only
        # started when one does not: a timer costs about 1.4 µs, a task group with its task
        # about 60 µs, 10 % of a one-question round trip in memory (benchmarks/README.md).
        # The timer is the clock's (asyncio's loop, or a test's fake clock); elicitkit's
        # background tasks are asyncio's (see `elicitkit._runtime.tasks`).
        renewal: list[asyncio.Task[None]] = []
        loop = asyncio.get_running_loop()
        timer = clock.call_later(self.lease / 3, lambda: renewal.append(loop.create_task(renew())))
        try:
            return await round_()
        finally:
            timer.cancel()
            for task in renewal:
                task.cancel()

    async def _record(self, dialogue: str, record: str) -> None:
        """Record ``record``; on failure, log it: the dialogue stays closed anyway."""
        sealed = self._seal(dialogue, record)
        try:
            await self._call("record", lambda: self.store.record(dialogue, sealed, keep=self.keep))
        except StoreUnavailable:
            logger.error(  # noqa: TRY400  (_call logged the cause; this says what it means)
                "elicitkit could not record the outcome of dialogue %s: the client gets "
                "this round's outcome, and the call is never run again (its lease lapses "
                "within %g seconds, and later rounds are told it was interrupted, or that "
                "the server lost track of it if the store lost the entry).",
                dialogue,
                self.lease,
            )

    async def _call(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """One store call, within ``timeout`` seconds; `StoreUnavailable` otherwise."""
        try:
            if isinstance(self.store, MemoryStore):
                # In this process, it answers without waiting on anything: no timer (each
                # costs about 8 µs, and a round makes two or three calls).
                return await call()
            with anyio.fail_after(self.timeout):
                return await call()
        except TimeoutError:
            logger.error(  # noqa: TRY400  (a timeout has no traceback worth logging)
                "elicitkit's outcome store (%s) did not answer %s within %g seconds.",
                type(self.store).__name__,
                what,
                self.timeout,
            )
            raise StoreUnavailable(what) from None
        except Exception as error:
            # One line, not a traceback: a store that is down fails every round for a while.
            logger.error(  # noqa: TRY400
                "elicitkit's outcome store (%s) failed %s: %s",
                type(self.store).__name__,
                what,
                error,
            )
            raise StoreUnavailable(what) from error

    def _result_record(self, kind: str | None, data: Any) -> str:
        record = result_record(kind, data)
        if len(record) <= self.max_record_bytes:  # ASCII (json.dumps escapes): chars = bytes
            return record
        capped = {
            "bytes": len(record),
            "sha256": hashlib.sha256(record.encode()).hexdigest(),
            "head": json.dumps(data, separators=(",", ":"), ensure_ascii=False)[:HEAD_CHARS],
        }
        fields = {"c": capped} if kind is None else {"m": kind, "c": capped}
        return json.dumps(fields, separators=(",", ":"))

    def _seal(self, entry: str, record: str) -> str:
        if self.codec is None:
            return record
        return self.codec.seal(f"{_RECORD_CONTEXT}{entry}\n{record}".encode())

    def _open(self, entry: str, stored: str) -> str:
        """The record ``stored`` under ``entry``, opened; `RecordUnreadable` if it is not one."""
        if self.codec is None:
            return stored
        try:
            plain = self.codec.unseal(stored).decode()
        except Exception:  # noqa: BLE001  (any failure of the codec: not a record of ours)
            plain = ""
        context = f"{_RECORD_CONTEXT}{entry}\n"
        if not plain.startswith(context):
            logger.error(
                "elicitkit refused the record of %s: it does not open with this server's key "
                "(the key changed, or the record was written by someone else), so the call "
                "is not run again and its outcome is not given.",
                entry,
            )
            raise RecordUnreadable(entry)
        return plain[len(context) :]

    def _replayed(self, record: str, outcomes: Outcomes[R]) -> R:
        fields: dict[str, Any] = json.loads(record)
        found = fields.get("c")
        if isinstance(found, dict) and "r" not in fields and "e" not in fields:
            capped = cast("dict[str, Any]", found)
            return outcomes.refused(
                TOO_LARGE_TO_KEEP.format(
                    size=capped.get("bytes"),
                    digest=capped.get("sha256"),
                    limit=self.max_record_bytes,
                    head=capped.get("head"),
                )
            )
        return replayed(record, outcomes)


def _refusal(error: StoreUnavailable) -> str:
    """What a round refused by its store is told (a full store's bounds go to the log only)."""
    cause = error.__cause__
    if isinstance(cause, CallerFull):
        return CALLER_FULL
    return STORE_FULL if isinstance(cause, StoreFull) else STORE_UNAVAILABLE


class RoundLease:
    """The lease one later round holds on its dialogue, and whether it is in a safe step.

    A durable step marked ``retry_safe`` marks the lease while its function runs
    (`OutcomeStore.hold`): if the process dies meanwhile, the lease lapses into a new claim
    rather than "interrupted", and the next round runs again (everything before the step
    in the round is replayable: answers, recorded steps, reads). A crash anywhere else
    still closes the dialogue. Marking and renewing take turns (a lock): a renewal sent
    while the mark changes must not undo it, nor find the lease "not held".

    Attributes:
        dialogue: The dialogue's id.
        token: The round's token, which holds the lease.
        inside_safe_step: The store has the lease marked right now.
    """

    def __init__(self, once: AtMostOnce, dialogue: str) -> None:
        """A new round's lease on ``dialogue``, with a fresh token (claimed by `AtMostOnce.run`)."""
        self.dialogue = dialogue
        self.token = secrets.token_urlsafe(8)
        self.inside_safe_step = False
        self._once = once
        self._turns = anyio.Lock()

    async def renew(self) -> bool:
        """Extend the lease, marked or not; False if the round no longer holds it.

        Raises:
            StoreUnavailable: The store failed or did not answer.
        """
        async with self._turns:
            if self.inside_safe_step:
                return await self._hold("renew", retry_safe=True)
            once = self._once
            return await once._call(  # pyright: ignore[reportPrivateUsage]  (this module's)
                "renew",
                lambda: once.store.renew(
                    self.dialogue, self.token, lease=once.lease, keep=once.keep
                ),
            )

    async def enter_safe_step(self) -> None:
        """Mark the lease before a ``retry_safe`` step runs (unmarked on failure: closed)."""
        async with self._turns:
            with contextlib.suppress(StoreUnavailable):
                self.inside_safe_step = await self._hold("mark", retry_safe=True)

    async def leave_safe_step(self) -> bool:
        """Unmark the lease after the step; False if it could not be (the round must stop)."""
        async with self._turns:
            if not self.inside_safe_step:
                return True
            try:
                held = await self._hold("unmark", retry_safe=False)
            except StoreUnavailable:
                return False
            self.inside_safe_step = not held
            return held

    async def _hold(self, what: str, *, retry_safe: bool) -> bool:
        once = self._once
        return await once._call(  # pyright: ignore[reportPrivateUsage]  (this module's)
            what,
            lambda: once.store.hold(
                self.dialogue,
                self.token,
                retry_safe=retry_safe,
                lease=once.lease,
                keep=once.keep,
            ),
        )


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
