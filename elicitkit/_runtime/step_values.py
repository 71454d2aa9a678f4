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

A recorded name never imports anything. The classes a step may rebuild are the ones its
function declares (`Rebuildable.declared`: its return annotation, and the fields of the
dataclasses in it), or a loaded subclass of one of them; a function without an annotation
(a lambda) may rebuild any class of the allowed kinds that the server has already loaded.
The names come from the server's own sealed state or its own sealed store records, never
from a client, and each kind is checked again on the way back.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import pydantic

from elicitkit._compiler.field_sources import is_dataclass_type, is_pydantic_model, is_struct
from elicitkit._compiler.type_hints import step_classes, type_name
from elicitkit._replay.once import AFRESH
from elicitkit.errors import StepDefinitionError

_TAGS = ("$date", "$datetime", "$enum", "$dc", "$pd", "$ms", "$m")


def is_record(tp: Any) -> bool:
    """Whether ``tp`` is a dataclass, a pydantic model or a msgspec Struct class."""
    return is_dataclass_type(tp) or is_pydantic_model(tp) or is_struct(tp)


class Rebuildable:
    """Which classes a recorded step value may name: the step function's own, or any loaded."""

    __slots__ = ("_by_path", "_declared")

    def __init__(self, declared: frozenset[type] | None) -> None:
        self._declared = declared
        self._by_path: Mapping[str, type] | None = (
            None if declared is None else {_class_path(c): c for c in declared}
        )

    @classmethod
    def declared(cls, hint: Any) -> Rebuildable:
        """The classes a function whose return annotation is ``hint`` may rebuild."""
        return cls(step_classes(hint, is_record))

    def find(self, path: str) -> type:
        """The class ``path`` names, if this step may rebuild it; never imports.

        Raises:
            TypeError: It is not loaded, not a class, or not one the step declares.
        """
        if self._by_path is not None and path in self._by_path:
            return self._by_path[path]
        found = loaded(path)
        if not isinstance(found, type):
            raise _changed(path, "not a class this server has loaded")
        if self._declared is not None and not issubclass(found, tuple(self._declared)):
            raise _changed(path, "not a type the step's function returns")
        return found


ANY_LOADED = Rebuildable(None)  # a function that declares no return type


def loaded(path: str) -> object:
    """What ``module:Qualname`` names among the modules already loaded, else ``None``.

    Never imports: a recorded name must not run a module's import side effects.
    """
    module, _, qualname = path.partition(":")
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


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


def decode(data: object, classes: Rebuildable) -> Any:
    """Rebuild a value from what `encode` returned, with only the classes ``classes`` allows.

    Raises:
        TypeError: The value names a class the step may not rebuild (or no longer can).
    """
    if isinstance(data, list):
        return [decode(item, classes) for item in cast("list[object]", data)]
    if not isinstance(data, dict):
        return data
    fields = cast("dict[str, Any]", data)
    tag = next((t for t in _TAGS if t in fields), None) if len(fields) <= 2 else None
    if tag is None:
        return {k: decode(v, classes) for k, v in fields.items()}
    if tag == "$m":
        return {k: decode(v, classes) for k, v in cast("dict[str, Any]", fields["$m"]).items()}
    if tag == "$date":
        return dt.date.fromisoformat(fields[tag])
    if tag == "$datetime":
        return dt.datetime.fromisoformat(fields[tag])
    cls = classes.find(fields[tag])
    value = fields["v"]
    if tag == "$enum" and issubclass(cls, enum.Enum):
        return cls(decode(value, classes))
    if tag == "$dc" and dataclasses.is_dataclass(cls):
        init = {f.name for f in dataclasses.fields(cls) if f.init}
        made = cls(**{k: decode(v, classes) for k, v in value.items() if k in init})
        for name, item in value.items():  # fields without init= are restored as they were
            if name not in init:
                object.__setattr__(made, name, decode(item, classes))
        return made
    if tag == "$pd" and is_pydantic_model(cls):
        return cls.model_validate(value)
    if tag == "$ms" and is_struct(cls):
        import msgspec  # noqa: PLC0415  (loaded already: cls is a Struct)

        return msgspec.convert(value, type=cls)
    raise _changed(fields[tag], f"no longer a {tag} type")


def _changed(path: str, what: str) -> TypeError:
    return TypeError(
        f"The recorded step value names {path!r}, which is {what} (the code changed since "
        f"the step was recorded), so the step's result cannot be rebuilt. Start {AFRESH}."
    )


def _path(value: object) -> str:
    return _class_path(type(value))


def _class_path(kind: type) -> str:
    return f"{kind.__module__}:{kind.__qualname__}"
