"""Names: identifiers to titles, and the credential words a name may hold.

Naming a type for messages (`type_hints.type_name`) reads type arguments, so it lives with
the rest of the annotation reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from elicitkit._compiler.form_spec import TitleStyle
from elicitkit._compiler.secret_names import find_secret

# An acronym (not followed by lower case), a capitalised or lower-case word, or digits:
# "zip_code", "zipCode" and "ZIP_CODE" all split into two words; "APIKey" into "API", "Key".
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _words(name: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(name)]


def humanise(name: str) -> str:
    """Turn an identifier into a title: ``zip_code`` and ``zipCode`` become ``"Zip code"``."""
    words = _words(name)
    if not words:
        return name
    text = " ".join(words)
    return text[0].upper() + text[1:]


def quoted(items: Iterable[object]) -> str:
    return ", ".join(sorted(repr(item) for item in items))


def styled_title(name: str, style: TitleStyle | None) -> str:
    """Title a field from its name in one of the `TitleStyle` styles (``"omit"`` aside).

    Raises:
        ValueError: ``style`` is not a title style.
    """
    if style is None or style in {"sentence", "omit"}:
        return humanise(name)  # an omitted title still names the field in messages
    if style == "title":
        return " ".join(word[:1].upper() + word[1:] for word in humanise(name).split(" "))
    if style == "name":
        return name
    raise ValueError(style)


def secret_word(name: str) -> str | None:
    """Return the credential words a field name contains (``"api key"``), or ``None``."""
    return find_secret(_words(name))
