"""A durable step's result as JSON, and back to the very same type.

A step's result is carried in the sealed ``requestState`` and recorded in the outcome store,
so it must survive JSON. Plain JSON values (``None``, ``bool``, ``int``, ``float``, ``str``,
lists, dicts with string keys) are written as they are; the other allowed values carry a
one-key tag, so a later round rebuilds the same type without knowing the function's
annotation (a lambda has none):

* ``{"$date": "2026-07-28"}`` and ``{"$datetime": "2026-07-28T10:00:00+00:00"}``;
* ``{"$enum": "module:Qualname", "v": value}``;
* ``{"$dc": "module:Qualname", "v": {field: value}}`` (a dataclass, every field);
* ``{"$pd": "module:Qualname", "v": ...}`` (a pydantic model, dumped in JSON mode);
* ``{"$ms": "module:Qualname", "v": ...}`` (a msgspec Struct, as builtins);
* ``{"$m": {...}}``: a plain dict that has a key starting with ``$``, escaped.

Classes are found again by module and qualified name; only a class of the allowed kinds is
accepted on the way back. The names come from the server's own sealed state or its own store,
never from a client.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import importlib
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import pydantic

from elicitkit._compiler.field_sources import is_dataclass_type, is_pydantic_model, is_struct
from elicitkit._compiler.type_hints import type_name
from elicitkit._replay.once import AFRESH
from elicitkit.errors import StepDefinitionError

_TAGS = ("$date", "$datetime", "$enum", "$dc", "$pd", "$ms", "$m")


def is_record(tp: Any) -> bool:
    """Whether ``tp`` is a dataclass, a pydantic model or a msgspec Struct class."""
    return is_dataclass_type(tp) or is_pydantic_model(tp) or is_struct(tp)


def unsupported(step: str, tp: Any) -> StepDefinitionError:
    """The error for a step whose result type ``tp`` has no JSON round trip."""
    return StepDefinitionError(
        f"Cannot record the result of step {step!r}: {type_name(tp)} has no JSON round "
        "trip, so a later round could not get the same value back. Return None, bool, int, "
        "float, str, date, datetime, an Enum, a dataclass, a pydantic model, a msgspec "
        "Struct, or lists and dicts with str keys of these (convert a tuple or set to a list)."
    )


def encode(step: str, value: object) -> Any:
    """Return ``value`` as JSON-able data that `decode` turns back into an equal value.

    Raises:
        StepDefinitionError: ``value`` (or a part of it) has no JSON round trip.
    """
    if isinstance(value, enum.Enum):  # first: an IntEnum or StrEnum is an int or str too
        return {"$enum": _path(value), "v": encode(step, value.value)}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [encode(step, item) for item in cast("list[object]", value)]
    if isinstance(value, dict):
        items = cast("dict[object, object]", value)
        if not all(isinstance(k, str) for k in items):
            raise unsupported(step, dict)
        plain: dict[str, Any] = {str(k): encode(step, v) for k, v in items.items()}
        return {"$m": plain} if any(k.startswith("$") for k in plain) else plain
    if isinstance(value, dt.datetime):  # before date: a datetime is a date
        return {"$datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    kind = type(value)
    # Dataclasses first: a pydantic dataclass is a dataclass, rebuilt by its __init__.
    if dataclasses.is_dataclass(kind):
        fields = {f.name: encode(step, getattr(value, f.name)) for f in dataclasses.fields(kind)}
        return {"$dc": _path(value), "v": fields}
    if is_pydantic_model(kind):
        return {"$pd": _path(value), "v": cast("pydantic.BaseModel", value).model_dump(mode="json")}
    if is_struct(kind):
        import msgspec  # noqa: PLC0415  (loaded already: value is a Struct)

        return {"$ms": _path(value), "v": msgspec.to_builtins(value)}
    raise unsupported(step, kind)


def decode(data: object) -> Any:
    """Rebuild a value from what `encode` returned."""
    if isinstance(data, list):
        return [decode(item) for item in cast("list[object]", data)]
    if not isinstance(data, dict):
        return data
    fields = cast("dict[str, Any]", data)
    tag = next((t for t in _TAGS if t in fields), None) if len(fields) <= 2 else None
    if tag is None:
        return {k: decode(v) for k, v in fields.items()}
    if tag == "$m":
        return {k: decode(v) for k, v in cast("dict[str, Any]", fields["$m"]).items()}
    if tag == "$date":
        return dt.date.fromisoformat(fields[tag])
    if tag == "$datetime":
        return dt.datetime.fromisoformat(fields[tag])
    cls = _class(fields[tag])
    value = fields["v"]
    if tag == "$enum" and issubclass(cls, enum.Enum):
        return cls(decode(value))
    if tag == "$dc" and dataclasses.is_dataclass(cls):
        init = {f.name for f in dataclasses.fields(cls) if f.init}
        made = cls(**{k: decode(v) for k, v in value.items() if k in init})
        for name, item in value.items():  # fields without init= are restored as they were
            if name not in init:
                object.__setattr__(made, name, decode(item))
        return made
    if tag == "$pd" and is_pydantic_model(cls):
        return cls.model_validate(value)
    if tag == "$ms" and is_struct(cls):
        import msgspec  # noqa: PLC0415  (loaded already: cls is a Struct)

        return msgspec.convert(value, type=cls)
    raise _changed(fields[tag], f"no longer a {tag} type")


def _changed(path: str, what: str) -> TypeError:
    return TypeError(
        f"The recorded step value names {path!r}, which is {what} (the class changed since "
        f"the step was recorded), so the step's result cannot be rebuilt. Start {AFRESH}."
    )


def _path(value: object) -> str:
    kind = type(value)
    return f"{kind.__module__}:{kind.__qualname__}"


def _class(path: str) -> type:
    module, _, qualname = path.partition(":")
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise _changed(path, "no longer importable") from None
    if not isinstance(found, type):
        raise _changed(path, "not a class")
    return found
