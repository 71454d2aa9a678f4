"""elicitkit's own per-field settings, carried inside ``Annotated[...]``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

StringFormat = Literal["email", "uri", "date", "date-time"]
"""The only string formats the MCP form grammar allows (every version)."""


@dataclass(frozen=True)
class FormField:
    """Settings for one form field that no other vocabulary expresses.

    Put it inside ``Annotated``; everything is optional and other vocabularies (pydantic
    ``Field``, ``annotated_types``, msgspec ``Meta``, ``typing_extensions.Doc``) still apply.
    Where both give the same setting, the ``FormField`` wins.

    Example:
        ``country: Annotated[Country, FormField(title="Ship to", labels={Country.NO: "Norway"})]``

    Attributes:
        title: The label the client shows. Without one, the field name is humanised
            (``zip_code`` becomes ``"Zip code"``).
        description: Help text shown with the field.
        format: ``"email"`` or ``"uri"`` for a plain ``str`` field; dates and datetimes get
            their format from their type.
        labels: Display labels for the options of a choice field, keyed by Enum member or
            Literal value (or by the option's wire string). Options without a label show a
            humanised member name, or the value itself for a Literal.
        sensitive: ``False`` declares that a field whose name looks like a credential
            (``token_count``, ``secret_santa``) holds no secret, so it may be asked in form
            mode; ``True`` refuses the field whatever its name. ``None`` decides by name.
    """

    title: str | None = None
    description: str | None = None
    format: StringFormat | None = None
    labels: Mapping[object, str] | None = None
    sensitive: bool | None = None

    def __hash__(self) -> int:
        """Hash by value, so ``Annotated`` types that carry labels stay usable as cache keys."""
        labels = tuple(self.labels.items()) if self.labels is not None else None
        return hash((self.title, self.description, self.format, labels, self.sensitive))


Email: Final = FormField(format="email")
"""Marker for ``Annotated[str, Email]``: an email address field."""

Uri: Final = FormField(format="uri")
"""Marker for ``Annotated[str, Uri]``: a URI field."""
