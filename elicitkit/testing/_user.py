"""`ScriptedUser`: answers forms from a script and records every form it was shown."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import anyio

from elicitkit import requested_schema
from elicitkit._compiler.checkboxes import box_key, box_of
from elicitkit.protocol import FIRST_PROTOCOL

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

    A multi-select is a list of its options' values on every era: on 2025-06-18, where it
    arrives as one checkbox per option, the user ticks the boxes of the listed options and
    unticks the others (see `ScriptedUser`).
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
            profile that declines or hangs, or a schema a strict client refused). On
            2025-06-18 a multi-select given as a list is here as the boxes it ticked.
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
            properties = request.schema.get("properties", {})
            # On 2025-06-18 a multi-select's key is its checkboxes' (``<key>__1``, ...).
            return self.target in properties or (
                request.protocol == FIRST_PROTOCOL and box_key(self.target, 0) in properties
            )
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

    A multi-select is answered with a list on every era. On 2025-06-18 it arrives as one
    checkbox per option (``<key>__1``, ``<key>__2``, ...), and the user ticks the boxes of
    the listed options and unticks the others: a box is found by the option's value, from
    the form type for an `on_form` rule, else by the option's label in the box's title
    ("Toppings: Olives"), which is its value unless the options are labelled; give such a
    label to an in-order or `on_key` reply, or answer with `on_form`.

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
                form = rule.target if rule.kind == "form" else None
                ticked = _ticking(reply, request, form)
                if isinstance(ticked, str):
                    self.problems.append(ticked)
                    return None
                problem = _unknown_keys(ticked, request)
                if problem is not None:
                    self.problems.append(problem)
                    return None
                return ticked
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


def _ticking(reply: Reply, request: FormRequest, form: Any) -> Reply | str:
    """``reply`` with each multi-select given as a list turned into its boxes (2025-06-18).

    Every box of the field is sent, ticked or not, as a person answers a column of
    checkboxes. Returns why an option could not be found, instead, as a sentence.
    """
    content = reply.content
    if request.protocol != FIRST_PROTOCOL or not reply.checked or not content:
        return reply
    properties: Mapping[str, Any] = request.schema.get("properties", {})
    lists = {
        key
        for key, value in content.items()
        if key not in properties and isinstance(value, (list, tuple, set, frozenset))
    }
    boxes = _boxes(properties, lists) if lists else {}
    if not boxes:
        return reply
    out: dict[str, Any] = {}
    for key, value in content.items():
        names = boxes.get(key)
        if names is None:
            out[key] = value
            continue
        titles = [str(properties[name].get("title", name)) for name in names]
        options = _options(form, key, len(names))
        ticked: set[int] = set()
        for item in cast("Sequence[object]", value):
            index = _box_of(item, titles, options)
            if index is None:
                shown = ", ".join(repr(title) for title in titles)
                return (
                    f"The scripted answer to {request.message!r} ticks {item!r} for {key!r}, "
                    f"which 2025-06-18 asks as checkboxes, and no box is that option: they "
                    f"are {shown}. Give the option's value or the label its box shows, or "
                    "answer with on_form(FormType, ...), which knows the options' values."
                )
            ticked.add(index)
        out.update({name: index in ticked for index, name in enumerate(names)})
    return Reply(reply.action, out, reply.checked, reply.delay)


def _boxes(properties: Mapping[str, Any], wanted: AbstractSet[str]) -> dict[str, list[str]]:
    """The checkbox keys of each field in ``wanted``, in their options' order (one pass)."""
    found: dict[str, list[tuple[int, str]]] = {}
    for name, prop in properties.items():
        box = box_of(name)
        if (
            box is not None
            and box[0] in wanted
            and isinstance(prop, Mapping)
            and cast("Mapping[str, Any]", prop).get("type") == "boolean"
        ):
            found.setdefault(box[0], []).append((box[1], name))
    return {field: [name for _, name in sorted(names)] for field, names in found.items()}


def _options(form: Any, key: str, count: int) -> dict[str, int] | None:
    """The form type's options for ``key`` by value, as the boxes order them, if known.

    Read from the form's 2025-11-25 schema, where the multi-select is one list; ``None``
    when there is no form type, or the call offered other options (a different count).
    """
    if form is None:
        return None
    items = requested_schema(form, protocol="2025-11-25")["properties"].get(key, {}).get("items")
    if not isinstance(items, Mapping):
        return None
    items = cast("Mapping[str, Any]", items)
    values = items.get("enum") or [option.get("const") for option in items.get("anyOf", ())]
    if len(values) != count:
        return None
    return {str(value): index for index, value in enumerate(values)}


def _box_of(item: object, titles: Sequence[str], options: Mapping[str, int] | None) -> int | None:
    """The index of the box that stands for option ``item``, or ``None``."""
    if isinstance(item, enum.Enum):
        item = item.value
    if not isinstance(item, (str, int)) or isinstance(item, bool):
        return None
    text = str(item)
    if options is not None and text in options:
        return options[text]
    # A box is titled "Field: label", or "label" alone when the field's title is hidden;
    # of several that end so ("A: b" and "A: x: b"), the shortest has no more of a label.
    matches = [i for i, title in enumerate(titles) if title == text or title.endswith(f": {text}")]
    return min(matches, key=lambda i: len(titles[i])) if matches else None


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
