"""ElicitResultTyped: the typed outcome, its predicates, unwrap and pattern matching."""

from __future__ import annotations

import dataclasses

import pytest

from elicitkit import ElicitError, ElicitResultTyped
from elicitkit.errors import ElicitationCancelled, ElicitationDeclined


@dataclasses.dataclass
class Address:
    city: str


def test_accepted() -> None:
    result = ElicitResultTyped("accept", Address("Oslo"))
    assert result.is_accepted()
    assert not result.is_declined()
    assert not result.is_cancelled()
    assert result.unwrap() == Address("Oslo")
    assert result.content == Address("Oslo")


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        ("decline", ElicitationDeclined, "The user declined the form."),
        ("cancel", ElicitationCancelled, "The user dismissed the form without answering."),
    ],
)
def test_not_accepted(action: str, error: type[ElicitError], message: str) -> None:
    result: ElicitResultTyped[Address] = ElicitResultTyped(action)  # type: ignore[arg-type]
    assert not result.is_accepted()
    assert result.is_declined() is (action == "decline")
    assert result.is_cancelled() is (action == "cancel")
    assert result.content is None
    with pytest.raises(error) as caught:
        result.unwrap()
    assert str(caught.value) == message
    assert isinstance(caught.value, ElicitError)


def _describe(result: ElicitResultTyped[Address]) -> str:
    match result:
        case ElicitResultTyped(action="accept", content=Address(city=city)):
            return f"shipping to {city}"
        case ElicitResultTyped(action="decline"):
            return "declined"
        case _:
            return "cancelled"


def test_match_statement() -> None:
    assert _describe(ElicitResultTyped("accept", Address("Oslo"))) == "shipping to Oslo"
    assert _describe(ElicitResultTyped("decline")) == "declined"
    assert _describe(ElicitResultTyped("cancel")) == "cancelled"


def test_frozen_and_comparable() -> None:
    result = ElicitResultTyped("accept", Address("Oslo"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.action = "decline"  # type: ignore[misc]
    assert result == ElicitResultTyped("accept", Address("Oslo"))
