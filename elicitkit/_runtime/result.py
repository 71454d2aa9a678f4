"""ElicitResultTyped: the typed outcome of asking the user for one form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar, cast

from elicitkit.errors import ElicitationCancelled, ElicitationDeclined, ElicitError

T = TypeVar("T")

Action = Literal["accept", "decline", "cancel"]
"""What the user did: submitted the form, declined it, or dismissed it."""

AnsweredBy = Literal["user", "model", "defaults"]
"""Who filled the form in: the user in the client's form, the model relaying the user's
words (``on_unsupported="ask_model"``), or nobody (``on_unsupported="defaults"``)."""


@dataclass(frozen=True)
class ElicitResultTyped(Generic[T]):
    """The user's answer to one form.

    Decline and cancel are results, not errors: check them, or call `unwrap` to turn them
    into exceptions. Works in ``match`` statements::

        match answer:
            case ElicitResultTyped(action="accept", content=address):
                ship_to(address)
            case ElicitResultTyped(action="decline"):
                ...

    Attributes:
        action: ``"accept"``, ``"decline"`` or ``"cancel"``.
        content: The validated, converted answer when the user accepted; otherwise
            ``None``.
        answered_by: ``"user"`` for an answer given in the client's form; ``"model"`` when
            the client could not show forms and the model typed the answer it collected
            from the user (``on_unsupported="ask_model"``); ``"defaults"`` when the form's
            defaults were taken (``on_unsupported="defaults"``). A tool may refuse anything
            but ``"user"`` for a destructive action.
    """

    action: Action
    content: T | None = None
    answered_by: AnsweredBy = "user"

    def answered_by_model(self) -> bool:
        """Tell whether the model typed this answer rather than the user in a form."""
        return self.answered_by == "model"

    def is_accepted(self) -> bool:
        """Tell whether the user submitted the form."""
        return self.action == "accept"

    def is_declined(self) -> bool:
        """Tell whether the user explicitly declined the form."""
        return self.action == "decline"

    def is_cancelled(self) -> bool:
        """Tell whether the user dismissed the form without choosing."""
        return self.action == "cancel"

    def unwrap(self) -> T:
        """Return the answer of an accepted form.

        Raises:
            ElicitationDeclined: The user declined.
            ElicitationCancelled: The user dismissed the form.
        """
        if self.action == "decline":
            raise self._raised(ElicitationDeclined("The user declined the form."))
        if self.action == "cancel":
            raise self._raised(
                ElicitationCancelled("The user dismissed the form without answering.")
            )
        return cast("T", self.content)  # accepted: the content is the answer

    @staticmethod
    def _raised(error: ElicitError) -> BaseException:
        # Uncaught inside a call, the error must reach the client with its message.
        return _surfaced(error)


def _as_it_is(error: ElicitError) -> BaseException:
    return error


# Set once, by `elicitkit._runtime.context` when it is imported (before any call can
# start): the call's channel lives there, and the per-call records it holds (deliveries)
# return these results, so this module cannot import it.
_surfaced: Callable[[ElicitError], BaseException] = _as_it_is


def surface_through(hook: Callable[[ElicitError], BaseException]) -> None:
    """Make `ElicitResultTyped.unwrap` raise its error through ``hook`` (the call's)."""
    global _surfaced  # noqa: PLW0603  (one hook, set once at import)
    _surfaced = hook
