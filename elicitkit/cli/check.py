"""``elicitkit check``: definition errors, and what known clients will do with each form.

Errors are forms elicitkit cannot express (`FormDefinitionError`). Warnings come from the
table of client facts (`elicitkit._client.facts.KNOWN_CLIENTS`) and from protocol versions a
form cannot be asked on. Notes, once per run, are what that table says about clients beyond
their forms (how one connects, what one lacks): no form changes them, so they are no warnings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from elicitkit import requested_schema
from elicitkit._client.facts import KNOWN_CLIENTS, ClientProfile
from elicitkit._client.spec_keys import unknown_key
from elicitkit._client.untouched import filled_when_untouched
from elicitkit._compiler.compiled_forms import form_spec
from elicitkit._compiler.form_spec import MISSING, FormSpec, Kind
from elicitkit.cli.form_loader import FoundForm
from elicitkit.errors import FormDefinitionError, TooManyCheckboxes
from elicitkit.protocol import PROTOCOL_VERSIONS


@dataclass
class Report:
    """What ``check`` found for one form."""

    form: FoundForm
    errors: list[str] = field(default_factory=list[str])
    warnings: list[str] = field(default_factory=list[str])


def check_form(found: FoundForm) -> Report:
    """Compile ``found`` and compare it with what every known client can show."""
    report = Report(found)
    try:
        spec = form_spec(found.tp)
        requested_schema(found.tp)
    except FormDefinitionError as error:
        report.errors.append(str(error))
        return report
    for version in PROTOCOL_VERSIONS:
        try:
            schema = requested_schema(found.tp, protocol=version)
        except (FormDefinitionError, TooManyCheckboxes) as error:
            report.warnings.append(f"Not on {version}: {error}")
            continue
        key = unknown_key(schema, version)
        if key is not None:  # rendering never emits one: a guard against regressions
            report.errors.append(
                f"On {version} the schema has {key!r}, which strict clients refuse."
            )
    report.warnings.extend(_client_warnings(spec))
    report.warnings.extend(_filled_warnings(requested_schema(found.tp)))
    return report


# (the client fact that is missing, the field kinds it concerns, what the client does then,
# what the author can do: "{it}" is "it" for one field, "each" for several)
_GAPS: tuple[tuple[str, tuple[Kind, ...], str, str], ...] = (
    (
        "number_widgets",
        (Kind.INTEGER, Kind.NUMBER),
        "has no number input, so it shows only approve/decline and sends no content",
        (
            "If its users must answer, ask {it} as a choice (a Literal of the values, or an "
            "Enum) or as text (str) the tool converts."
        ),
    ),
    (
        "multi_select_widgets",
        (Kind.MULTI_CHOICE,),
        "has no multi-select input, so it shows only approve/decline and sends no content",
        "If its users must answer, ask {it} as one choice, or as one yes/no (bool) per option.",
    ),
)


def _client_warnings(spec: FormSpec) -> list[str]:
    warnings: list[str] = []
    for fact, kinds, consequence, advice in _GAPS:
        keys = [f.key for f in spec.fields if f.kind in kinds]
        if keys:
            warnings.extend(
                f"{_subject(keys)}: {client.name} {consequence} ({client.source_for(fact)}). "
                + advice.format(it=_it(keys))
                for client in _lacking(fact)
            )
    defaults = [
        f.key
        for f in spec.fields
        if f.kind is not Kind.BOOLEAN and (f.default is not MISSING or f.default_factory)
    ]
    if defaults:
        warnings.extend(
            f"{_subject(defaults)}: {client.name} does not prefill defaults, so an answer "
            "left empty arrives absent and the server fills in the default "
            f"({client.source_for('applies_defaults')}). Name the default in "
            f"{'the' if len(defaults) == 1 else 'each'} field's description "
            "(FormField(description=...)) if its users should know what an empty answer means."
            for client in _lacking("applies_defaults")
        )
    return warnings


def _filled_warnings(schema: dict[str, Any]) -> list[str]:
    """Optional fields some clients send as answers when the user leaves them alone.

    (A client that ``breaks_on_cleared`` gets no warning: no form avoids it, so there is
    nothing for the author to change; docs/clients.md explains it.)
    """
    keys = filled_when_untouched(schema)
    if not keys:
        return []
    consequence = (
        "fills in optional fields the user leaves alone (a choice with its first option, a "
        "yes/no with false, a multi-select with []), so the server cannot tell them from "
        "answers; give each a default (a 'no preference' option, say) if that matters"
    )
    return [
        f"{_subject(keys)}: {client.name} {consequence} ({client.source_for('fills_untouched')})."
        for client in KNOWN_CLIENTS.values()
        if client.fills_untouched
    ]


def client_notes() -> list[str]:
    """What the known clients' facts say beyond forms, one line each, named by client."""
    return [f"{client.name}: {note}" for client in KNOWN_CLIENTS.values() for note in client.notes]


def _lacking(fact: str) -> list[ClientProfile]:
    return [client for client in KNOWN_CLIENTS.values() if not getattr(client, fact)]


def _it(keys: list[str]) -> str:
    return "it" if len(keys) == 1 else "each"


def _subject(keys: list[str]) -> str:
    return f"Field {keys[0]!r}" if len(keys) == 1 else "Fields " + ", ".join(map(repr, keys))
