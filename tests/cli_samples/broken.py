"""A module whose @form fails at import: a list of free text has no flat form."""

from __future__ import annotations

import dataclasses

from elicitkit import form


@form
@dataclasses.dataclass
class Tags:
    tags: list[str]
