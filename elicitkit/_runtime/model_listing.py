"""The listing a model gets instead of a form: what to ask the user, and how to answer.

Under ``on_unsupported="ask_model"`` a question the client cannot show ends the tool call
with a normal result that tells the model, in plain words and in ``structuredContent``,
what to collect from the user and how to give it back through ``answer_form``. The fields
are read from the very ``requestedSchema`` elicitkit would have sent (rendered for
2025-11-25), so the listing says what the form's checks will enforce: type, format,
choices with their labels, bounds, whether required, the default. Nothing here knows an
SDK; the integration puts the text and the structure into its result type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from elicitkit._replay.state import WireQuestion
from elicitkit._runtime.retries import without_corrections

ANSWER_TOOL = "answer_form"
"""The name of the companion tool the model calls with the user's answers."""

ANSWER_TOOL_DESCRIPTION = (
    "Give a tool the answers the user typed, after that tool returned a ticket and a list "
    "of questions because this client cannot show forms. Ask the user each question and "
    "pass their own answers; never guess or invent them. Pass the ticket exactly as given. "
    "Use action 'decline' if the user refuses to answer, 'cancel' if they want to stop."
)


def listing(
    tool: str,
    ticket: str,
    questions: Sequence[WireQuestion],
    corrections: Mapping[str, Sequence[tuple[str | None, str]]],
) -> tuple[str, dict[str, Any]]:
    """Return the text and the ``structuredContent`` that hand ``questions`` to the model.

    Args:
        tool: The tool that asked.
        ticket: The sealed ticket to pass back.
        questions: The questions waiting for answers (one, or several from ``ask_all``).
        corrections: Per question key, the ``(field, message)`` problems of the answer
            given last time, when the question is asked again after an invalid answer.
    """
    several = len(questions) > 1
    listed: list[dict[str, Any]] = []
    lines = [
        (
            f"The tool {tool} needs answers from the user before it can continue, and this "
            "client cannot show the user a form. Ask the user the question below in your "
            "own words and wait for their reply. Do not guess, invent or fill in answers "
            "yourself."
        )
    ]
    for question in questions:
        params = question.params
        message = str(params.get("message", ""))
        if params.get("mode") == "url":
            link = str(params.get("url", ""))
            # Only the URL: the elicitation id stays in the sealed ticket.
            listed.append({"key": question.key, "message": message, "url": link})
            lines += [
                "",
                f"Link for the user: {message}",
                f"  {link}",
                (
                    "Show the user this link to open in their browser. Do not open it "
                    f"yourself. When the user says they are done there, call {ANSWER_TOOL} "
                    "with the ticket; the server checks that the page was completed."
                ),
            ]
            continue
        schema = cast("Mapping[str, Any]", params.get("requestedSchema") or {})
        fields = _fields(schema)
        problems = corrections.get(question.key, ())
        if problems:  # a re-ask: its problems once, under their heading, not in the message
            message = without_corrections(message)
        entry: dict[str, Any] = {
            "key": question.key,
            "message": message,
            "fields": fields,
            "requestedSchema": schema,
        }
        if problems:
            entry["corrections"] = [{"field": field, "message": text} for field, text in problems]
        listed.append(entry)
        lines.append("")
        if several:
            lines.append(f"Question {question.key!r}: {message}")
        else:
            lines.append(f"Question: {message}")
        if problems:
            lines.append("Corrections (the last answer was not accepted):")
            lines.extend(f"  - {field or 'answer'}: {text}" for field, text in problems)
        lines.append("Fields:")
        lines.extend(f"  - {_describe(field)}" for field in fields)
    shape = (
        "an object with one entry per question key, each an object of that question's fields"
        if several
        else "an object with the fields above, by name"
    )
    how = (
        f"When the user has answered, call {ANSWER_TOOL} with ticket set to the ticket "
        f"below and answers set to {shape}. If the user refuses, call {ANSWER_TOOL} with "
        "the ticket and action 'decline'; if they want to stop, action 'cancel'."
    )
    lines += ["", how, "", f"ticket: {ticket}"]
    structured = {
        "status": "input_required",
        "tool": tool,
        "instructions": (
            "Ask the user; do not guess. Then call the answer tool with the ticket and the "
            "user's answers."
        ),
        "answer_tool": ANSWER_TOOL,
        "ticket": ticket,
        "questions": listed,
    }
    return "\n".join(lines), structured


class HandedToModel(BaseException):
    """Ends a tool run with a result for the model that the integration builds.

    A `BaseException`, like `NeedInput`, so a tool's ``except Exception:`` cannot swallow
    it on its way to the integration, which returns ``text`` with ``structured`` in the
    result's ``structuredContent`` (beside ``result``, the text, which a tool's wrapped
    output schema requires).
    """

    def __init__(self, text: str, structured: dict[str, Any], *, error: bool = False) -> None:
        """Carry the result's text and structured content; ``error``: a tool error."""
        super().__init__(text)
        self.text = text
        self.structured = structured
        self.error = error


def missing_arguments(
    tool: str, names: Sequence[str], schema: Mapping[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The text and structured content of ``@fill_missing`` for a client without forms.

    Each missing argument is described as the form would have asked it (type, format,
    choices, bounds), and the form's ``requestedSchema`` (2025-11-25) is the JSON schema
    of the missing arguments.
    """
    quoted = [f"'{name}'" for name in names]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    fields = _fields(schema)
    lines = [
        (
            f"This client cannot show forms, so {tool} did not run. Ask the user for "
            f"{listed}, then call {tool} again with them."
        ),
        *(f"  - {_describe(field)}" for field in fields),
    ]
    structured = {"missing_arguments": {"tool": tool, "fields": fields, "schema": schema}}
    return "\n".join(lines), structured


def invalid_arguments(
    tool: str, errors: Sequence[tuple[str | None, str]], schema: Mapping[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The text and structured content of ``@fill_missing`` for arguments that do not fit.

    The same per-field messages as the form's, and the same field descriptions as
    `missing_arguments`.
    """
    fields = _fields(schema)
    lines = [
        (
            f"The arguments given to {tool} do not fit, so {tool} did not run. Ask the user "
            f"for corrected values, then call {tool} again with them."
        ),
        *(f"  - {field or 'arguments'}: {message}" for field, message in errors),
        "The arguments, as the form asks them:",
        *(f"  - {_describe(field)}" for field in fields),
    ]
    structured = {
        "invalid_arguments": {
            "tool": tool,
            "corrections": [{"field": field, "message": message} for field, message in errors],
            "fields": fields,
            "schema": schema,
        }
    }
    return "\n".join(lines), structured


def _fields(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One plain record per property of a rendered ``requestedSchema``, in order."""
    properties = cast("Mapping[str, Mapping[str, Any]]", schema.get("properties") or {})
    required = set(cast("list[str]", schema.get("required") or []))
    found: list[dict[str, Any]] = []
    for name, prop in properties.items():
        field: dict[str, Any] = {"name": name, "type": prop.get("type", "string")}
        for key in ("title", "description", "format"):
            if key in prop:
                field[key] = prop[key]
        choices = _choices(prop)
        if prop.get("type") == "array":
            items = cast("Mapping[str, Any]", prop.get("items") or {})
            choices = _choices(items)
        if choices is not None:
            field["choices"] = choices
        for key in ("minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"):
            if key in prop:
                field[key] = prop[key]
        field["required"] = name in required
        if "default" in prop:
            field["default"] = prop["default"]
        found.append(field)
    return found


def _choices(prop: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The choices of a single- or multi-select property, with their labels."""
    titled = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(titled, list):
        return [
            {"value": option.get("const"), "label": option.get("title", option.get("const"))}
            for option in cast("list[Mapping[str, Any]]", titled)
        ]
    values: object = prop.get("enum")
    if isinstance(values, list):
        options = cast("list[object]", values)
        names: object = prop.get("enumNames")
        labels = cast("list[object]", names) if isinstance(names, list) else options
        return [
            {"value": value, "label": label} for value, label in zip(options, labels, strict=False)
        ]
    return None


_KINDS = {
    "string": "text",
    "integer": "whole number",
    "number": "number",
    "boolean": "true or false",
    "array": "a list",
}

# Each bound a field may carry, in the order the line names them, and how it reads.
_BOUNDS = {
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "minimum": "at least {}",
    "maximum": "at most {}",
    "minItems": "pick at least {}",
    "maxItems": "pick at most {}",
}


def _describe(field: Mapping[str, Any]) -> str:
    """One line for one field: ``zip_code (text, at least 4 characters, required)``."""
    parts = [_KINDS.get(str(field["type"]), str(field["type"]))]
    if "format" in field:
        parts.append(f"format {field['format']}")
    parts.extend(phrase.format(field[bound]) for bound, phrase in _BOUNDS.items() if bound in field)
    choices = cast("list[Mapping[str, Any]] | None", field.get("choices"))
    if choices is not None:
        kind = "any of" if field["type"] == "array" else "one of"
        options = ", ".join(
            json.dumps(choice["value"])
            + ("" if choice["label"] == choice["value"] else f" ({choice['label']})")
            for choice in choices
        )
        parts.append(f"{kind} {options}")
    if "default" in field:
        parts.append(f"default {json.dumps(field['default'])}")
    parts.append("required" if field["required"] else "optional")
    title = field.get("title")
    name = str(field["name"])
    label = f"{name} ({', '.join(parts)})"
    # A title that only repeats the name ("Zip code" for zip_code) says nothing more.
    if isinstance(title, str) and title and title.lower() != name.replace("_", " ").lower():
        label = f"{label}: {title}"
    description = field.get("description")
    if isinstance(description, str) and description:
        label = f"{label}. {description}"
    return label
