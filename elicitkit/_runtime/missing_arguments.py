"""``@fill_missing``: a tool asks the user for the optional arguments the model left out.

A tool declares what it may need as optional parameters (``day: date | None = None``). When
the model calls it without some of them, the decorator asks the user for exactly those, in
one form built from the signature (types, ``Annotated`` metadata), then runs the tool with
everything. The tool's signature, and so the input schema the model sees, is unchanged.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar, cast, overload

from elicitkit._compiler.compiled_forms import compiled_form, form_spec
from elicitkit._compiler.field_sources import parameter_default
from elicitkit._compiler.markers import FormField
from elicitkit._compiler.names import humanise
from elicitkit._compiler.type_hints import (
    accepts_none,
    admitting_text,
    parameter_hints,
    value_type,
)
from elicitkit._runtime.asking import MODEL_PROTOCOL, ask
from elicitkit._runtime.form_functions import requested_schema
from elicitkit._runtime.model_listing import HandedToModel, invalid_arguments, missing_arguments
from elicitkit._runtime.result import ElicitResultTyped
from elicitkit.errors import ElicitationUnsupported, FormDefinitionError, InvalidContent

R = TypeVar("R")
Tool = Callable[..., Awaitable[R]]

ARGUMENTS_CHECK = "__elicitkit_check_arguments__"
"""The attribute of a ``@fill_missing`` tool that checks the model's values with the form."""

checked_tools: set[str] = set()
"""The names of the functions decorated with ``@fill_missing`` in this process.

While any exists, integrations look each called tool up by its registered name to find its
check (`elicitkit.integrations._arguments_check`); in a process with none, a call pays
nothing and reads nothing private. The names also let a fastmcp server skip the full tool
lookup for a tool whose function carries no check."""


@overload
def fill_missing(fn: Tool[R], /) -> Tool[R | str]: ...
@overload
def fill_missing(*, message: str | None = None) -> Callable[[Tool[R]], Tool[R | str]]: ...
def fill_missing(fn: Any = None, /, *, message: str | None = None) -> Any:
    """Ask the user for the optional arguments the model left out, then run the tool.

    Use bare (``@fill_missing``) or with a message (``@fill_missing(message="...")``), under
    the server's tool decorator. Every parameter whose default is ``None`` (also as
    pydantic's ``Field(default=None, ...)``) and whose type admits ``None`` can be asked;
    the ones the model gave (not ``None``) are never asked. Other parameters, such as the
    server's ``ctx: Context``, are passed through. With all given, the tool runs at once;
    otherwise one form asks for the missing ones, each required and described by its
    annotation (``Annotated[..., FormField(...)]`` or ``Field(...)``).

    If the client cannot show forms, the tool does not run and returns text telling the
    model which values to get from the user before calling again, each with its type,
    format, choices and bounds as the form would have asked it, and the JSON schema of
    the missing arguments in ``structuredContent`` (``missing_arguments``); if the user
    declines or cancels, it returns text saying so. So that this text fits the tool's
    output schema, a return type that does not admit ``str`` is declared as
    ``ReturnType | str``.

    Raises:
        FormDefinitionError: A parameter that can be asked has no form field, or none can
            be asked (checked at decoration), or the function is not ``async``.
    """

    def decorate(tool: Tool[R]) -> Tool[R | str]:
        return _decorate(tool, message)

    return decorate if fn is None else decorate(fn)


def _decorate(tool: Tool[R], message: str | None) -> Tool[R | str]:
    if not inspect.iscoroutinefunction(tool):
        raise FormDefinitionError(
            f"Cannot use @fill_missing on {tool.__qualname__}: it is not an async function, "
            "and asking the user needs await. Declare it with async def."
        )
    signature = inspect.signature(tool)
    hints = parameter_hints(tool)
    # name -> (annotation, metadata carried by a Field(...) default)
    askable: dict[str, tuple[Any, tuple[Any, ...]]] = {}
    for name, parameter in signature.parameters.items():
        default, metadata = parameter_default(parameter.default)
        if (
            default is None
            and name in hints
            and accepts_none(hints[name])
            and not injected_by_server(value_type(hints[name]))  # ctx: Context | None = None
        ):
            askable[name] = (hints[name], metadata)
    if not askable:
        raise FormDefinitionError(
            f"Cannot use @fill_missing on {tool.__qualname__}: none of its parameters can be "
            "asked, since only a parameter whose default is None and whose type admits None "
            "can be missing. Declare one like `day: date | None = None`, or remove "
            "@fill_missing."
        )
    forms: dict[tuple[str, ...], type] = {}

    def form_for(names: tuple[str, ...]) -> type:
        # One form type per set of missing names, made once: the same type every round, so
        # the question's key is stable on 2026-07-28.
        if names not in forms:
            fields = [(name, _field_type(*askable[name])) for name in names]
            made = dataclasses.make_dataclass(f"{tool.__name__}_missing", fields)
            made.__qualname__ = f"Missing arguments of {tool.__name__}"
            form_spec(made)  # a parameter elicitkit cannot ask fails here, at decoration
            forms[names] = made
        return forms[names]

    form_for(tuple(askable))
    ask_message = message or f"{humanise(tool.__name__)} needs a few more details."

    @functools.wraps(tool)
    async def run(*args: Any, **kwargs: Any) -> R | str:
        bound = signature.bind(*args, **kwargs)
        for name in askable:  # a Field(default=None) default is None, not the Field
            bound.arguments.setdefault(name, None)
        bound.apply_defaults()
        missing = tuple(name for name in askable if bound.arguments.get(name) is None)
        if missing:
            form: Any = form_for(missing)
            try:
                # Its own fallback (the model calls the tool again with the arguments), not
                # the server's: the arguments were the model's to give in the first place.
                answer: ElicitResultTyped[Any] = await ask(
                    form, ask_message, on_unsupported="raise"
                )
            except ElicitationUnsupported:
                schema = requested_schema(form, protocol=MODEL_PROTOCOL)
                text, structured = missing_arguments(tool.__name__, missing, schema)
                raise HandedToModel(text, structured) from None
            if not answer.is_accepted():
                return (
                    f"The user did not give {_listed(missing)} ({answer.action}), so "
                    f"{tool.__name__} did not run."
                )
            filled = answer.unwrap()
            for name in missing:
                bound.arguments[name] = getattr(filled, name)
        return await tool(*bound.args, **bound.kwargs)

    _declare_text_result(run, signature, hints)
    setattr(run, ARGUMENTS_CHECK, _ArgumentsCheck(tool.__name__, tuple(askable), form_for))
    checked_tools.add(tool.__name__)
    return run


@dataclasses.dataclass(frozen=True)
class _ArgumentsCheck:
    """Checks the askable arguments the model gave with the form, before the SDK does.

    So a value that does not fit gets the form's per-field message, not the server SDK's
    validation error. Linear in the arguments given.
    """

    tool: str
    askable: tuple[str, ...]
    form_for: Callable[[tuple[str, ...]], type]

    def __call__(self, arguments: object) -> HandedToModel | None:
        """Return the result that refuses ``arguments``, or ``None`` if they fit."""
        if not isinstance(arguments, Mapping):
            return None
        raw = cast("Mapping[str, object]", arguments)
        given = tuple(name for name in self.askable if raw.get(name) is not None)
        if not given:
            return None
        form = self.form_for(given)
        content = {name: raw[name] for name in given}
        try:
            compiled_form(form).prepare(MODEL_PROTOCOL).decode(content)
        except InvalidContent as error:
            schema = requested_schema(form, protocol=MODEL_PROTOCOL)
            problems = [(problem.field, problem.message) for problem in error.errors]
            text, structured = invalid_arguments(self.tool, problems, schema)
            return HandedToModel(text, structured, error=True)
        return None


def _field_type(annotation: Any, metadata: tuple[Any, ...]) -> Any:
    """The form field of a missing parameter: required, its Field(...) default as metadata."""
    parts = (annotation, *metadata, FormField(required=True))
    return cast("Any", Annotated)[parts]


def _declare_text_result(run: Any, signature: inspect.Signature, hints: dict[str, Any]) -> None:
    """Declare that ``run`` may return text, if the tool's return type does not admit it.

    Both SDKs derive a tool's output schema from its return annotation, and the client
    checks the result against it: ``-> int`` with our "ask the user for ..." text fails
    there. ``functools.wraps`` made ``run`` show the tool's own annotations and signature,
    so both are replaced, resolved (a copied string annotation would be resolved in this
    module, where its names do not exist).
    """
    if "return" not in hints:
        return
    widened = admitting_text(hints["return"])
    if widened is hints["return"]:
        return
    run.__annotations__ = {**hints, "return": widened}
    run.__signature__ = signature.replace(
        parameters=[
            parameter.replace(annotation=hints.get(name, parameter.annotation))
            for name, parameter in signature.parameters.items()
        ],
        return_annotation=widened,
    )


def _listed(names: tuple[str, ...]) -> str:
    quoted = [f"'{name}'" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def injected_by_server(tp: object) -> bool:
    """Whether a tool parameter of type ``tp`` is filled in by the server, not by the model.

    Both SDKs pass a tool its request context through a parameter annotated with their
    ``Context`` (also as ``Context | None = None``).
    """
    from mcp.server.mcpserver import Context  # noqa: PLC0415  (the official SDK: a dependency)

    kinds: list[type] = [Context]
    # fastmcp's Context exists only if fastmcp was imported; never import it here.
    fastmcp_context: object = getattr(sys.modules.get("fastmcp.server.context"), "Context", None)
    if isinstance(fastmcp_context, type):
        kinds.append(fastmcp_context)
    return isinstance(tp, type) and issubclass(tp, tuple(kinds))
