"""Tickets: a question handed to the model instead of the client, sealed until it comes back.

When a client cannot show forms and the author chose ``on_unsupported="ask_model"``, the
tool call ends with a listing for the model and a ticket; the model collects the user's
answers and calls the companion tool ``answer_form(ticket, answers)``. The ticket carries
everything the server needs to run the original tool again through the replay: the tool's
name and arguments, the replay state (the dialogue id, the answers so far, the questions it
waits for, the steps done), and which questions went to the model.

A ticket is sealed with the codec that seals ``requestState`` (the SDK's AES-256-GCM under
the server's key, or ``MCP_REQUEST_STATE_KEY`` shared by every worker): authenticated and
encrypted, so the model can neither read the carried answers nor change a byte. It is bound
to the server (its audience), to the principal where the transport authenticates one (a
digest of it), and to an expiry no later than the outcome store keeps the dialogue, so the
at-most-once record outlives every ticket of its dialogue. Its payload names its kind, and
lacks the fields of the SDK's ``requestState`` envelope, so neither can pass for the other.

Nothing here knows an SDK: the integration hands in the codec and the principal.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

import elicitkit._clock as clock
from elicitkit.errors import ElicitError

_KIND = "elicitkit/answer_form/v1"
# A ticket is opened on the event loop before anything runs: bound its size first, so the
# work of a hostile one is linear in at most this many characters (a real one is the state,
# at most ReplayLimits.max_state_bytes, sealed: about 4/3 of it plus the arguments).
MAX_TICKET_CHARS = 1024 * 1024


class Codec(Protocol):
    """Authenticated encryption of bytes into a URL-safe token (the SDK's state codec)."""

    def seal(self, payload: bytes) -> str:
        """Return an opaque token protecting ``payload``."""
        ...

    def unseal(self, token: str) -> bytes:
        """Return the payload of a token ``seal`` made; raise for any other token."""
        ...


@dataclass(frozen=True)
class Ticket:
    """What a ticket carries back to the server.

    Attributes:
        tool: The tool to run again.
        arguments: Its arguments, as the client first sent them.
        state: The replay state of the round that issued the ticket (plaintext).
        dialogue: The dialogue's id (also in the state): the at-most-once record's key.
        questions: The keys of the questions the ticket waits for, in order.
        model_keys: Every question of the dialogue answered through the model so far,
            including ``questions``.
    """

    tool: str
    arguments: dict[str, Any]
    state: str
    dialogue: str
    questions: tuple[str, ...]
    model_keys: tuple[str, ...]


class TicketRefused(ElicitError):
    """A ticket given to ``answer_form`` cannot be used; nothing was run."""


class Tickets:
    """Seals and opens the tickets of one server."""

    def __init__(self, codec: Codec, *, ttl: float, audience: str | None) -> None:
        """Seal with ``codec``; tickets live ``ttl`` seconds and name ``audience``."""
        self.codec = codec
        self.ttl = ttl
        self.audience = audience

    def seal(self, ticket: Ticket, *, principal: str | None, now: float | None = None) -> str:
        """Return the sealed ticket, bound to this server, ``principal`` and the expiry."""
        issued = clock.now() if now is None else now
        payload = {
            "k": _KIND,
            "exp": round(issued + self.ttl, 3),
            "aud": self.audience,
            "p": principal_digest(principal),
            "t": ticket.tool,
            "g": ticket.arguments,
            "s": ticket.state,
            "d": ticket.dialogue,
            "q": list(ticket.questions),
            "m": list(ticket.model_keys),
        }
        return self.codec.seal(json.dumps(payload, separators=(",", ":")).encode())

    def open(self, token: object, *, principal: str | None, now: float | None = None) -> Ticket:
        """Unseal ``token`` and check its binding; every failure is refused before any run.

        Raises:
            TicketRefused: The ticket is malformed or altered, was issued by another server
                or to another principal, or has expired; the message says which and what
                to do.
        """
        if not isinstance(token, str) or not token or len(token) > MAX_TICKET_CHARS:
            raise TicketRefused(_NOT_OURS)
        try:
            plain = self.codec.unseal(token)
            fields: object = json.loads(plain)
        except Exception:  # noqa: BLE001  (any failure of a codec or of the JSON: not ours)
            raise TicketRefused(_NOT_OURS) from None
        if not isinstance(fields, dict):
            raise TicketRefused(_NOT_OURS)
        payload = cast("dict[str, object]", fields)
        ticket = _read(payload)
        if ticket is None:
            raise TicketRefused(_NOT_OURS)
        if payload.get("aud") != self.audience:
            raise TicketRefused(
                f"The ticket passed to answer_form was issued by another server, not this one "
                f"({self.audience!r}), so nothing was run. Call the tool {ticket.tool!r} of "
                "this server again to get a ticket of its own."
            )
        claim = payload.get("p")
        expected = principal_digest(principal)
        if (claim is None) != (expected is None) or (
            isinstance(claim, str)
            and expected is not None
            and not hmac.compare_digest(claim, expected)
        ):
            raise TicketRefused(
                "The ticket passed to answer_form was issued to another user, so nothing was "
                f"run. Call the tool {ticket.tool!r} again as yourself to get your own ticket."
            )
        expiry = payload.get("exp")
        moment = clock.now() if now is None else now
        if not isinstance(expiry, int | float) or not moment < expiry:
            raise TicketRefused(
                f"The ticket passed to answer_form has expired (a ticket lasts {self.ttl:g} "
                f"seconds), so nothing was run. Call the tool {ticket.tool!r} again to get a "
                "fresh ticket, and ask the user again."
            )
        return ticket


_NOT_OURS = (
    "This server process cannot open the ticket passed to answer_form, so nothing was run: "
    "it was sealed with a key this process does not have (another process of the server "
    "issued it, and the two share no key), or it was altered on the way. Call the tool again "
    "to get a fresh ticket, and pass it exactly as the tool returned it."
)


def principal_digest(principal: str | None) -> str | None:
    """A principal's SHA-256 (hex), ``None`` for none: the identity itself is kept nowhere.

    Tickets carry it inside their sealed payload; task stores count each caller's tasks by it.
    """
    if principal is None:
        return None
    return hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()


def _read(payload: Mapping[str, object]) -> Ticket | None:
    """The ticket in a payload of our kind, or ``None`` for anything else."""
    if payload.get("k") != _KIND:
        return None
    tool, arguments, state, dialogue = (payload.get(k) for k in ("t", "g", "s", "d"))
    questions, model_keys = payload.get("q"), payload.get("m")
    if not (
        isinstance(tool, str)
        and isinstance(arguments, dict)
        and isinstance(state, str)
        and isinstance(dialogue, str)
        and isinstance(questions, list)
        and isinstance(model_keys, list)
    ):
        return None
    asked = [key for key in cast("list[object]", questions) if isinstance(key, str)]
    answered = [key for key in cast("list[object]", model_keys) if isinstance(key, str)]
    return Ticket(
        tool,
        cast("dict[str, Any]", arguments),
        state,
        dialogue,
        tuple(asked),
        tuple(answered),
    )
