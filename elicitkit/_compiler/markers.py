"""elicitkit's own per-field settings, carried inside ``Annotated[...]``."""

from __future__ import annotations

from collections.abc import Mapping, Sized
from dataclasses import dataclass, fields
from typing import Any, Final

from elicitkit._compiler.form_spec import MISSING, LabelStyle, StringFormat, TitleStyle

MISSING_PREFILL: Final[Any] = MISSING
"""No prefill given (distinct from ``None``)."""


@dataclass(frozen=True, repr=False)
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
        label_style: How a choice's labels travel, for this field only: ``"oneOf"`` (the
            current form, 2025-11-25 on) or ``"enumNames"`` (the deprecated ``enum`` +
            ``enumNames`` pair, for clients that know only that). Setting it sends labels
            even where none were given (humanised member names, or the option itself).
            ``None`` follows the form: ``oneOf`` where the version has it.
        title_style: How the field is titled when no ``title`` is given: ``"sentence"``
            (the default: ``zip_code`` becomes ``"Zip code"``), ``"title"`` (``"Zip Code"``),
            ``"name"`` (the wire key as it is), or ``"omit"`` (no ``title`` on the wire: the
            client shows the key, or its own label).
        required: ``True`` makes the client send the field even though it has a default
            (the default is still prefilled); ``False`` makes it optional. ``None`` decides
            from the type and the default.
        prefill: The value the client shows prefilled, when it is not the field's own
            default: a required field with a suggestion, or a multi-select of a plain
            dataclass whose default comes from a ``default_factory``. Sent on the wire only;
            an absent answer still gets the field's own default.
        keep_empty: ``True`` keeps ``""`` as the answer of an optional plain-text field. By
            default ``""`` there means "left empty" (every form client observed sends
            ``""`` for a text input nobody touched), so the field is absent: a
            ``NotRequired`` key is left out, ``str | None`` gets ``None``, a field with a
            default gets its default. A required text field always keeps ``""``.
    """

    title: str | None = None
    description: str | None = None
    format: StringFormat | None = None
    labels: Mapping[object, str] | None = None
    sensitive: bool | None = None
    label_style: LabelStyle | None = None
    title_style: TitleStyle | None = None
    required: bool | None = None
    prefill: Any = MISSING_PREFILL
    keep_empty: bool = False

    def __repr__(self) -> str:
        """Show only the settings given, so messages quoting an annotation stay short."""
        given = [
            f"{item.name}={getattr(self, item.name)!r}"
            for item in fields(self)
            if getattr(self, item.name) is not item.default
        ]
        return f"FormField({', '.join(given)})"

    def __hash__(self) -> int:
        """Hash by value, so ``Annotated`` types that carry labels stay usable as cache keys."""
        labels = tuple(self.labels.items()) if self.labels is not None else None
        return hash(
            (
                self.title,
                self.description,
                self.format,
                labels,
                self.sensitive,
                self.label_style,
                self.title_style,
                self.required,
                _hash_key(self.prefill),
                self.keep_empty,
            )
        )


def _hash_key(value: object) -> object:
    """Return ``value`` if hashable, else a coarse key that equal values share (a list prefill)."""
    try:
        hash(value)
    except TypeError:
        return (type(value).__name__, len(value) if isinstance(value, Sized) else 0)
    return value


Email: Final = FormField(format="email")
"""Marker for ``Annotated[str, Email]``: an email address field."""

Uri: Final = FormField(format="uri")
"""Marker for ``Annotated[str, Uri]``: a URI field."""
