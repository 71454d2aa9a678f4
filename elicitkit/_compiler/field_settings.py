"""A field's settings gathered from every vocabulary that can declare them, before any check.

pydantic ``Field``, ``annotated_types`` bounds and lengths, msgspec ``Meta``,
``typing_extensions.Doc`` and elicitkit's own `FormField` (which wins) all fold into one
`FieldSettings`; the checks in `field_checks` then read that one record.

msgspec is recognised without being imported: ``import elicitkit`` must not pay for a
library only some authors use, and a ``msgspec.Meta`` can only exist once msgspec is loaded.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

import annotated_types
from pydantic.fields import FieldInfo as PydanticFieldInfo
from typing_extensions import Doc

from elicitkit._compiler.form_spec import MISSING, LabelStyle, StringFormat, TitleStyle
from elicitkit._compiler.markers import FormField

if TYPE_CHECKING:
    import msgspec


@dataclass
class FieldSettings:
    """Field settings gathered from every vocabulary, before they are checked."""

    title: str | None = None
    description: str | None = None
    format: StringFormat | None = None
    labels: Mapping[object, str] | None = None
    sensitive: bool | None = None
    ge: Any = None
    gt: Any = None
    le: Any = None
    lt: Any = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    label_style: LabelStyle | None = None
    title_style: TitleStyle | None = None
    required: bool | None = None
    prefill: Any = MISSING
    keep_empty: bool = False
    own: list[FormField] = field(default_factory=list[FormField])

    def read(self, item: Any) -> None:
        """Fold one metadata object into the settings; unknown objects are ignored."""
        if isinstance(item, FormField):
            self.own.append(item)  # applied last, so ours win
        elif isinstance(item, PydanticFieldInfo):
            self.title = item.title or self.title
            self.description = item.description or self.description
            for inner in item.metadata:
                self.read(inner)
        elif _is_msgspec_meta(item):
            self._read_msgspec(item)
        elif isinstance(item, Doc):
            self.description = item.documentation
        elif isinstance(item, annotated_types.Interval):
            for inner in item:
                self.read(inner)
        elif isinstance(item, annotated_types.Len):
            self.min_length = item.min_length
            self.max_length = item.max_length
        elif isinstance(item, annotated_types.MinLen):
            self.min_length = item.min_length
        elif isinstance(item, annotated_types.MaxLen):
            self.max_length = item.max_length
        elif isinstance(item, annotated_types.Ge):
            self.ge = item.ge
        elif isinstance(item, annotated_types.Gt):
            self.gt = item.gt
        elif isinstance(item, annotated_types.Le):
            self.le = item.le
        elif isinstance(item, annotated_types.Lt):
            self.lt = item.lt
        elif isinstance(getattr(item, "pattern", None), str):
            # pydantic's Field(pattern=...) arrives as its internal general metadata.
            self.pattern = item.pattern

    def _read_msgspec(self, meta: msgspec.Meta) -> None:
        self.title = meta.title or self.title
        self.description = meta.description or self.description
        for name in ("ge", "gt", "le", "lt", "min_length", "max_length", "pattern"):
            value = getattr(meta, name)
            if value is not None:
                setattr(self, name, value)

    def apply_own(self) -> None:
        """Apply elicitkit's FormField settings over everything else."""
        for own in self.own:
            self.title = own.title or self.title
            self.description = own.description or self.description
            self.format = own.format or self.format
            self.labels = own.labels if own.labels is not None else self.labels
            self.sensitive = own.sensitive if own.sensitive is not None else self.sensitive
            self.label_style = own.label_style or self.label_style
            self.title_style = own.title_style or self.title_style
            self.required = own.required if own.required is not None else self.required
            self.prefill = own.prefill if own.prefill is not MISSING else self.prefill
            self.keep_empty = own.keep_empty or self.keep_empty


def _is_msgspec_meta(item: object) -> TypeGuard[msgspec.Meta]:
    # Not imported here: if msgspec was never imported, nothing can be a Meta.
    msgspec_module = sys.modules.get("msgspec")
    return msgspec_module is not None and isinstance(item, msgspec_module.Meta)
