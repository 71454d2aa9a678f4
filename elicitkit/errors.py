"""Every exception elicitkit raises: form definitions it cannot express, and runtime outcomes.

`FormDefinitionError` (a ``TypeError``) is raised when a form is compiled, before anything
is sent. Every other error derives from `ElicitError`. Decline and cancel are results, not
exceptions, unless you call ``unwrap()``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ClientDisconnected",
    "ElicitError",
    "ElicitationCancelled",
    "ElicitationDeclined",
    "ElicitationFailed",
    "ElicitationTimeout",
    "ElicitationUnsupported",
    "FieldError",
    "FormDefinitionError",
    "InvalidContent",
    "StateTooLarge",
    "StepDefinitionError",
    "StepError",
    "StepFailed",
    "TasksUnsupported",
    "TooManyCheckboxes",
    "TooManyOpenUrls",
    "TooManyRounds",
]


class FormDefinitionError(TypeError):
    """A form type elicitkit cannot express as a flat MCP form.

    Raised when the form is compiled (at ``@form`` decoration or first use), always before
    anything is sent to a client. The message names the form, the field, the reason, and
    what to write instead.
    """


class ElicitError(Exception):
    """Base class of every runtime elicitation error."""


@dataclass(frozen=True)
class FieldError:
    """One problem with one field of a client's answer.

    Attributes:
        field: The wire key of the field, or ``None`` for a problem with the answer as a
            whole (for example a model validator that checks two fields together).
        message: A sentence a person can act on, such as
            ``"Must be at least 4 characters long."``.
    """

    field: str | None
    message: str

    def __str__(self) -> str:
        """Return ``"field: message"``, or just the message for a whole-answer problem."""
        return self.message if self.field is None else f"{self.field}: {self.message}"


class InvalidContent(ElicitError):
    """The client accepted the form, but its answer does not fit the form.

    Attributes:
        form_name: The name of the form type the answer was checked against.
        errors: Every problem found, not only the first, in field order.
    """

    def __init__(self, form_name: str, errors: list[FieldError]) -> None:
        """Store the problems and build a one-paragraph message listing them all."""
        self.form_name = form_name
        self.errors = errors
        noun = "problem" if len(errors) == 1 else "problems"
        listed = " ".join(str(error) for error in errors)
        super().__init__(f"The answer to {form_name} has {len(errors)} {noun}: {listed}")


class ElicitationDeclined(ElicitError):
    """The user explicitly declined the form (raised by ``unwrap()``)."""


class ElicitationCancelled(ElicitError):
    """The user dismissed the form without choosing (raised by ``unwrap()``)."""


class ElicitationUnsupported(ElicitError):
    """The client cannot show forms: it did not declare the elicitation capability.

    Raised by ``ask()`` before anything is sent. Catch it to carry on without the user's
    input (ask the model for the value instead, use a default, or stop politely).
    """


class ElicitationFailed(ElicitError):
    """The client answered the form request with an error instead of a result."""


class ClientDisconnected(ElicitError):
    """The client's connection closed while a question was open, so there is no answer.

    Raised by ``ask()`` on the eras that ask mid-call (2025-06-18, 2025-11-25). Nothing can
    reach that client any more: clean up and return. (A call the client *cancels* is not
    this error: the tool is cancelled, as any cancelled task, and ``ask()`` raises the
    event loop's cancellation exception.)
    """


class ElicitationTimeout(ElicitError):
    """The user did not answer within the question's ``timeout``.

    On 2025-06-18 and 2025-11-25 the client is told the question is withdrawn (a
    ``notifications/cancelled`` for the ``elicitation/create`` request). On 2026-07-28,
    where the question travels in the call's result, an answer that arrives after the
    question's deadline (carried in the sealed ``requestState``) is refused with this error.
    """


class TooManyCheckboxes(ElicitError):
    """A multi-select has too many choices to be asked as checkboxes on MCP 2025-06-18.

    2025-06-18 has no multi-select, so elicitkit sends one boolean (a checkbox) per choice,
    up to `elicitkit.protocol.MAX_CHECKBOXES` of them. Raised before anything is sent; an
    `ElicitError`, so ``except ElicitError`` covers it like any other reason a question
    could not be asked.
    """


class TooManyOpenUrls(ElicitError):
    """The server holds as many open URL elicitations as its URL router may.

    Raised by ``ask_url()`` and ``require_url()`` before anything is sent. The routes already
    open are kept (another user's page can still complete); the new question is refused.
    Routes are dropped as their questions are declined, cancelled or time out, their pages
    expire, or their sessions end, so a later call may succeed.
    """


class TasksUnsupported(ElicitError):
    """``go_async(required=True)`` in a call whose client cannot follow a task.

    The client did not declare the Tasks extension (``io.modelcontextprotocol/tasks``) on
    this request, or speaks a protocol version without it. Uncaught, the client gets the
    extension's -32021 error naming the extension it lacks.
    """


class TooManyRounds(ElicitError):
    """A call asked more rounds of questions than `ReplayLimits.max_rounds` allows."""


class StateTooLarge(ElicitError):
    """The answers carried between rounds outgrew `ReplayLimits.max_state_bytes`."""


class StepDefinitionError(TypeError):
    """A step elicitkit cannot record: its result type has no JSON round trip.

    Raised before the step's function runs, on every protocol era, so a tool that works
    on 2025-11-25 does not start failing on 2026-07-28.
    """


class StepError(ElicitError):
    """A durable step could not be run or replayed safely, so the call fails closed.

    Raised when a step key is reused with another function or other arguments, when a
    step was interrupted (its outcome is unknown), when its result is too large to carry,
    or when the store that records steps cannot be reached.
    """


class StepFailed(StepError):
    """A step's function raised, in an earlier round, an exception that cannot be rebuilt.

    Attributes:
        type_name: The dotted name of the exception the function raised.
    """

    def __init__(self, message: str, type_name: str) -> None:
        """Carry the recorded text and the name of the original exception type."""
        super().__init__(message)
        self.type_name = type_name
