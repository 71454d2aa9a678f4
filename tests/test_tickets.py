"""Tickets of answer_form: sealed, bound to server, principal and expiry; never a requestState."""

from __future__ import annotations

import json

import pytest
from mcp.server.request_state import AESGCMRequestStateCodec

from elicitkit._replay.ticket import MAX_TICKET_CHARS, Ticket, TicketRefused, Tickets

CODEC = AESGCMRequestStateCodec([b"s" * 32])
TICKET = Ticket("ship", {"item": "lamp"}, '{"v":2}', "dlg", ("address#1",), ("address#1",))
NOT_OURS = (
    "This server process cannot open the ticket passed to answer_form, so nothing was run: "
    "it was sealed with a key this process does not have (another process of the server "
    "issued it, and the two share no key), or it was altered on the way. Call the tool again "
    "to get a fresh ticket, and pass it exactly as the tool returned it."
)


def tickets(audience: str | None = "shop", ttl: float = 600.0) -> Tickets:
    return Tickets(CODEC, ttl=ttl, audience=audience)


def test_round_trip() -> None:
    sealed = tickets().seal(TICKET, principal="alice", now=1000.0)
    assert tickets().open(sealed, principal="alice", now=1599.0) == TICKET
    assert "lamp" not in sealed  # encrypted, not merely signed


def test_expired() -> None:
    sealed = tickets().seal(TICKET, principal=None, now=1000.0)
    with pytest.raises(TicketRefused) as caught:
        tickets().open(sealed, principal=None, now=1600.0)
    assert str(caught.value) == (
        "The ticket passed to answer_form has expired (a ticket lasts 600 seconds), so nothing "
        "was run. Call the tool 'ship' again to get a fresh ticket, and ask the user again."
    )


@pytest.mark.parametrize(
    ("issued_to", "presented_by"),
    [("alice", "bob"), ("alice", None), (None, "alice")],
    ids=["other-user", "now-anonymous", "was-anonymous"],
)
def test_principal_bound(issued_to: str | None, presented_by: str | None) -> None:
    sealed = tickets().seal(TICKET, principal=issued_to, now=1000.0)
    with pytest.raises(TicketRefused) as caught:
        tickets().open(sealed, principal=presented_by, now=1001.0)
    assert str(caught.value) == (
        "The ticket passed to answer_form was issued to another user, so nothing was run. "
        "Call the tool 'ship' again as yourself to get your own ticket."
    )


def test_audience_bound() -> None:
    sealed = tickets("shop").seal(TICKET, principal=None, now=1000.0)
    with pytest.raises(TicketRefused, match="issued by another server"):
        tickets("bank").open(sealed, principal=None, now=1001.0)


def test_a_request_state_envelope_is_not_a_ticket() -> None:
    # What the SDK's boundary seals with the same codec: valid crypto, another kind.
    envelope = {"v": 1, "iat": 1000.0, "exp": 2000.0, "m": "tools/call", "t": "ship", "s": "x"}
    token = CODEC.seal(json.dumps(envelope).encode())
    with pytest.raises(TicketRefused) as caught:
        tickets().open(token, principal=None, now=1001.0)
    assert str(caught.value) == NOT_OURS


def test_a_ticket_is_not_a_request_state_envelope() -> None:
    plain = json.loads(CODEC.unseal(tickets().seal(TICKET, principal=None, now=1000.0)))
    # The boundary requires v, iat, exp and s (else "malformed"): a ticket has no v nor iat.
    assert not {"v", "iat"} & set(plain)


@pytest.mark.parametrize(
    "token",
    ["", "x" * (MAX_TICKET_CHARS + 1), None, 7, ["v1.a"], "v1.", "v1.%%%"],
    ids=["empty", "huge", "none", "int", "list", "prefix-only", "bad-base64"],
)
def test_hostile_tokens(token: object) -> None:
    with pytest.raises(TicketRefused) as caught:
        tickets().open(token, principal=None, now=1001.0)
    assert str(caught.value) == NOT_OURS


def test_a_payload_of_our_kind_with_wrong_shapes_is_refused() -> None:
    payload = {"k": "elicitkit/answer_form/v1", "exp": 2000.0, "aud": "shop", "t": 1}
    token = CODEC.seal(json.dumps(payload).encode())
    with pytest.raises(TicketRefused) as caught:
        tickets().open(token, principal=None, now=1001.0)
    assert str(caught.value) == NOT_OURS
