"""Forms for the command-line tests: a multi-select, numbers, defaults, an ask() type."""

from __future__ import annotations

import dataclasses
import enum
from typing import Literal

from elicitkit import ask, form


class Topic(enum.Enum):
    MCP = "mcp"
    PYTHON = "python"


@form
@dataclasses.dataclass
class Survey:
    topics: list[Topic]
    score: int
    weight: float = 1.5
    mood: Literal["good", "bad"] = "good"


@dataclasses.dataclass
class Nested:
    inner: dict[str, int]  # a mapping: MCP forms are flat


async def tool() -> None:
    await ask(bool, "Go on?")
    await ask(Nested)
