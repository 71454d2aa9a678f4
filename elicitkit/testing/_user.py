"""`ScriptedUser`: answers forms from a script and records every form it was shown."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import anyio

from elicitkit import requested_schema

Action = Literal["accept", "decline", "cancel"]


class _Cleared:
    """The type of `CLEARED`."""

    def __repr__(self) -> str:
        return "CLEARED"


CLEARED: Any = _Cleared()
"""A field value in `accept`: the user filled this field, then emptied it.

What arrives depends on the client: most leave the field out of the answer; the
``mcp-inspector`` profile breaks the answer the way the MCP Inspector does (see
`ClientProfile.breaks_on_cleared`).
"""


@dataclass(frozen=True)
class Reply:
    """One scripted answer to one form. Build it with `accept`, `invalid`, `decline`, `cancel`.

    Attributes:
        action: What the user does.
        content: The fields sent with an ``accept``, exactly as given.
        checked: Whether the content's keys are checked against the form before sending
            (``accept``: a typo in a test fails loudly; ``invalid``: anything goes).
        delay: Seconds the user takes before answering.
    """

    action: Action
    content: Mapping[str, Any] | None = None
    checked: bool = True
    delay: float = 0.0


def accept(content: Mapping[str, Any] | None = None, /, **fields: Any) -> Reply:
    """Accept the form with these fields (a mapping, keyword arguments, or both).

    The keys must be fields of the form: a key the form does not have fails the test.
    Fields left out are absent, or prefilled with their default by a client that applies
    defaults (the default, and every profile but ``ignores-defaults``). A field given as
    `CLEARED` was filled and then emptied: the client decides what that sends.
    """
    return Reply("accept", {**(content or {}), **fields})


def invalid(content: Mapping[str, Any] | None = None, /, **fields: Any) -> Reply:
    """Accept the form with content sent exactly as given, unchecked: to test bad answers.

    The script does not check the keys; a client profile's own checks still apply (the
    ``fast-agent`` profile stops a text shorter than its ``minLength`` in the form).
    """
    return Reply("accept", {**(content or {}), **fields}, checked=False)


def decline() -> Reply:
    """Decline the form (the user said no)."""
    return Reply("decline")


def cancel() -> Reply:
    """Cancel the form (the user dismissed it)."""
    return Reply("cancel")


def delay(seconds: float, reply: Reply) -> Reply:
    """Answer with ``reply`` after ``seconds``: a user who takes their time."""
    return Reply(reply.action, reply.content, reply.checked, reply.delay + seconds)


@dataclass
class FormRequest:
    """One form a client received, as the client saw it.

    Attributes:
        protocol: The protocol version of the session.
        message: The message shown above the form.
        schema: The ``requestedSchema`` exactly as it arrived.
        params: Every parameter of the request, as the SDK client parsed it (the SDK's
            model fills in ``mode: "form"`` even on 2025-06-18, where the wire has none).
        reply: What the scripted user answered, or ``None`` if it never got to answer (a
            profile that declines or hangs, or a schema a strict client refused).
        sent: What the client sent back: an ``ElicitResult`` as a dict (after the profile
            applied defaults or dropped content), or an error as ``{"error": {...}}``.
        stopped: The errors the client showed in the form instead of sending an answer
            (a profile that ``checks_min_length``), in order; each took one reply.
    """

    protocol: str
    message: str
    schema: dict[str, Any]
    params: dict[str, Any]
    reply: Reply | None = None
    sent: dict[str, Any] | None = None
    stopped: list[str] = field(default_factory=list[str])


@dataclass
class _Rule:
    kind: Literal["form", "key", "message", "order"]
    target: Any
    replies: list[Reply]

    def matches(self, request: FormRequest) -> bool:
        if not self.replies:
            return False
        if self.kind == "form":
            # Defaults aside: a re-ask after an invalid answer offers the fields that were
            # fine as defaults, and is still this form.
            asked = _without_defaults(request.schema)
            return any(
                asked
                == _without_defaults(
                    requested_schema(
                        self.target, protocol=request.protocol, legacy_enum_names=legacy
                    )
                )
                for legacy in (False, True)
            )
        if self.kind == "key":
            return self.target in request.schema.get("properties", {})
        if self.kind == "message":
            return bool(self.target.search(request.message))
        return True


def _without_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    properties = cast("dict[str, dict[str, Any]]", schema.get("properties", {}))
    return {
        **schema,
        "properties": {
            name: {key: value for key, value in prop.items() if key != "default"}
            for name, prop in properties.items()
        },
    }


class ScriptedUser:
    """A user who answers forms from a script, and remembers every form shown.

    Rules are tried in the order they were added; a rule gives its replies one per matching
    form, in order, then stops matching. The replies given to the constructor (or to
    `then`) answer any form no other rule takes, in order::

        user = (
            ScriptedUser()
            .on_form(ShippingAddress, invalid(zip_code="1"), accept(ADDRESS))  # re-asked
            .on_key("value", accept(value=True))  # every bare yes/no question
        )

    A form that no rule answers, or a reply with a key the form does not have, fails the
    test when the connection closes (the client cancels that form meanwhile).

    Attributes:
        requests: Every form shown, in order, with the reply given.
        problems: What went wrong with the script, one sentence each, in order.
    """

    def __init__(self, *replies: Reply) -> None:
        """Answer forms with ``replies`` in order (after the rules added with ``on_*``)."""
        self.requests: list[FormRequest] = []
        self.problems: list[str] = []
        self._rules: list[_Rule] = []
        self._in_order = _Rule("order", None, list(replies))

    def __repr__(self) -> str:
        """Show how many forms were shown and how many replies are left."""
        left = sum(len(rule.replies) for rule in (*self._rules, self._in_order))
        return f"<ScriptedUser: {len(self.requests)} forms shown, {left} replies left>"

    def on_form(self, form: Any, *replies: Reply) -> ScriptedUser:
        """Answer forms of type ``form`` (its schema on the session's version) with ``replies``."""
        self._rules.append(_Rule("form", form, list(replies)))
        return self

    def on_key(self, key: str, *replies: Reply) -> ScriptedUser:
        """Answer forms that have a field with wire key ``key`` with ``replies``."""
        self._rules.append(_Rule("key", key, list(replies)))
        return self

    def on_message(self, pattern: str | re.Pattern[str], *replies: Reply) -> ScriptedUser:
        """Answer forms whose message matches the regular expression ``pattern``."""
        self._rules.append(_Rule("message", re.compile(pattern), list(replies)))
        return self

    def then(self, *replies: Reply) -> ScriptedUser:
        """Add ``replies`` to the in-order answers for forms no rule takes."""
        self._in_order.replies.extend(replies)
        return self

    @property
    def schemas(self) -> list[dict[str, Any]]:
        """The ``requestedSchema`` of every form shown, in order."""
        return [request.schema for request in self.requests]

    @property
    def messages(self) -> list[str]:
        """The message of every form shown, in order."""
        return [request.message for request in self.requests]

    def reply_for(self, request: FormRequest) -> Reply | None:
        """Take the next reply for ``request``; ``None`` (and a problem noted) if none fits."""
        for rule in (*self._rules, self._in_order):
            if rule.matches(request):
                reply = rule.replies.pop(0)
                problem = _unknown_keys(reply, request)
                if problem is not None:
                    self.problems.append(problem)
                    return None
                return reply
        fields = ", ".join(request.schema.get("properties", {}))
        self.problems.append(
            f"The scripted user had no answer for the form {request.message!r} (fields "
            f"{fields}), so it was cancelled. Add a reply for it (on_form, on_key, on_message "
            "or then)."
        )
        return None

    async def answer(self, request: FormRequest, *, again: bool = False) -> Reply | None:
        """Record ``request``, wait the reply's delay, and return the reply.

        ``again``: the form is still open (the client refused to send the last reply), so
        it is not recorded a second time.
        """
        if not again:
            self.requests.append(request)
        reply = self.reply_for(request)
        if reply is None:
            return None
        request.reply = reply
        if reply.delay:
            await anyio.sleep(reply.delay)
        return reply


def _unknown_keys(reply: Reply, request: FormRequest) -> str | None:
    if not reply.checked or reply.content is None:
        return None
    known = request.schema.get("properties", {})
    unknown = [key for key in reply.content if key not in known]
    if not unknown:
        return None
    return (
        f"The scripted answer to {request.message!r} has field {unknown[0]!r}, which the "
        f"form does not have: its fields are {', '.join(known) or 'none'}. Fix the key, "
        "or use invalid(...) to send it on purpose."
    )


class ScriptError(AssertionError):
    """The test's script does not fit the forms the server asked."""
