"""elicitkit: typed, spec-valid MCP elicitation for Python MCP servers.

Declare a form as a dataclass, pydantic model, msgspec Struct or TypedDict; elicitkit derives
the strict flat schema each MCP protocol version allows, and turns the client's answer back
into your type, with every problem reported per field.

The root holds what a tool author types daily. The rest lives in public submodules:
`elicitkit.errors` (every exception), `elicitkit.stores` (where dialogues are recorded,
``MemoryStore`` and ``RedisStore``), `elicitkit.url` (URL mode and its URL routers),
`elicitkit.replay` (the caps on a 2026-07-28 dialogue, ``ReplayLimits``, and ``replaying()``),
`elicitkit.protocol` (the protocol versions), `elicitkit.testing` (a scripted user and a
pytest plugin).
"""

# ruff: noqa: E402  (one call comes before the imports: see below)

import warnings
from typing import TYPE_CHECKING, Any

from elicitkit._interrupt import quiet_when_interrupted_at_start

# First, before the imports below take their fifth of a second: a Ctrl-C in that moment of
# `python -m elicitkit demo` leaves with one line (only when this process is the CLI).
quiet_when_interrupted_at_start()

from elicitkit._compiler.markers import Email, FormField, Uri
from elicitkit._compiler.overrides import Overrides
from elicitkit._runtime.all_at_once import Question, ask_all
from elicitkit._runtime.asking import ask
from elicitkit._runtime.form_functions import form, parse_content, requested_schema
from elicitkit._runtime.missing_arguments import fill_missing
from elicitkit._runtime.oneliners import ask_text, choose, confirm
from elicitkit._runtime.result import Action, AnsweredBy, ElicitResultTyped
from elicitkit._runtime.steps import step
from elicitkit._runtime.tasks import go_async
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit.errors import ElicitError, FormDefinitionError, InvalidContent
from elicitkit.integrations import install

__all__ = [
    "Action",
    "AnsweredBy",
    "ElicitError",
    "ElicitResultTyped",
    "Email",
    "FormDefinitionError",
    "FormField",
    "InvalidContent",
    "OnUnsupported",
    "Overrides",
    "Question",
    "Uri",
    "ask",
    "ask_all",
    "ask_text",
    "choose",
    "confirm",
    "fill_missing",
    "form",
    "go_async",
    "install",
    "parse_content",
    "requested_schema",
    "step",
]

# Names that moved to a public submodule: still importable from the root at run time, with
# a warning naming the new import, until a release removes them; not in __all__ nor dir().
# Hidden from type checkers: a module-level __getattr__ they can see would type every
# misspelt root name as Any, so a checker points at the new import instead.
_MOVED = {"ReplayLimits": "elicitkit.replay", "replaying": "elicitkit.replay"}

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        module = _MOVED.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        warnings.warn(
            f"elicitkit.{name} has moved to {module}: import it as "
            f"`from {module} import {name}`; the root will stop providing it in a later "
            "release.",
            DeprecationWarning,
            stacklevel=2,
        )
        import importlib  # noqa: PLC0415  (only when a moved name is asked for)

        return getattr(importlib.import_module(module), name)
