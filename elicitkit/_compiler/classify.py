"""Classification: which wire kind a field's Python type becomes, and what comes with it.

MCP forms have six kinds of field (text, integer, number, boolean, single choice,
multi-select). `classify` maps one unwrapped type to its kind and the `FieldSpec` values that
kind needs: a string format, a converter for the decoded value (``date``, ``Decimal``, URL
types), the options of a choice. Every type with no flat form is refused here, with the
reason and what to write instead. The order of the checks is the order of precedence
(``bool`` before ``int``, ``datetime`` before ``date``), so each subclass meets its own rule
first.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable
from typing import Any

import pydantic

from elicitkit._compiler.choices import (
    is_choice_type,
    multi_choice_settings,
    single_choice_settings,
)
from elicitkit._compiler.field_checks import URL_MODE_ADVICE
from elicitkit._compiler.field_settings import FieldSettings
from elicitkit._compiler.field_sources import is_form_class
from elicitkit._compiler.form_spec import Kind
from elicitkit._compiler.type_hints import collection, is_mapping, type_name
from elicitkit._compiler.wire_formats import parse_date, parse_datetime
from elicitkit.errors import FormDefinitionError


def classify(
    core: Any, settings: FieldSettings, problem: Callable[[str], FormDefinitionError]
) -> tuple[Kind, dict[str, Any]]:
    """Map the unwrapped type to a wire kind and the FieldSpec settings that go with it.

    Args:
        core: The field's type, unwrapped by `type_hints.unwrap`.
        settings: The field's settings (a choice's labels, a text field's format).
        problem: Makes the error for this field.

    Raises:
        FormDefinitionError: The type has no flat form field.
    """
    if core is Any or core is object:
        raise problem(
            f"{type_name(core)} says nothing about what to ask. Annotate the field with a "
            "concrete type such as str, int, bool, a Literal or an Enum."
        )
    if core is bool:
        return Kind.BOOLEAN, {}
    if is_choice_type(core):
        return Kind.CHOICE, single_choice_settings(core, settings, problem)
    parts = collection(core)
    if parts is not None:
        return Kind.MULTI_CHOICE, multi_choice_settings(core, parts, settings, problem)
    if is_mapping(core):
        raise problem(
            f"{type_name(core)} is a nested mapping, and MCP forms are flat. Declare one "
            "field per key instead."
        )
    if _is_secret_type(core):
        raise problem(f"{type_name(core)} holds a secret, and {URL_MODE_ADVICE}.")
    if is_form_class(core):
        raise problem(
            f"{type_name(core)} is a nested form, and nested forms are not supported yet. "
            f"Move its fields into this form, or ask for {type_name(core)} with a separate "
            "ask()."
        )
    if core is str:
        return Kind.TEXT, {"format": settings.format}
    if core is pydantic.EmailStr:
        return Kind.TEXT, {"format": "email"}
    if _is_url_type(core):
        return Kind.TEXT, {"format": "uri", "convert": core}
    if core is int:
        return Kind.INTEGER, {}
    if core is float:
        return Kind.NUMBER, {}
    if core is decimal.Decimal:
        return Kind.NUMBER, {"convert": _to_decimal}
    if core is dt.datetime:  # before date: every datetime is a date
        return Kind.TEXT, {"format": "date-time", "convert": parse_datetime}
    if core is dt.date:
        return Kind.TEXT, {"format": "date", "convert": parse_date}
    if isinstance(core, type) and getattr(core, "__annotations__", None):
        raise problem(
            f"{type_name(core)} is a plain class, and elicitkit reads fields only from "
            "dataclasses, pydantic models, msgspec Structs and TypedDicts. Decorate it with "
            "@dataclass."
        )
    raise problem(
        f"{type_name(core)} has no form field. Use str, int, float, bool, Decimal, date, "
        "datetime, a Literal, an Enum, or a list of a Literal or an Enum."
    )


def _to_decimal(value: float) -> decimal.Decimal:
    if isinstance(value, int):
        return decimal.Decimal(value)  # exact, and no str() of a huge int
    # Via str, so 0.1 becomes Decimal("0.1") rather than its binary approximation.
    return decimal.Decimal(str(value))


def _is_secret_type(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(
        tp, (pydantic.SecretStr, pydantic.SecretBytes, pydantic.types.Secret)
    )


def _is_url_type(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.AnyUrl)
