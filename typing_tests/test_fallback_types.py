"""Static typing contract of the on_unsupported policy (issue 20).

Only type-checked (mypy and pyright, strict), never executed.
"""

from __future__ import annotations

import dataclasses

from mcp.server.mcpserver import MCPServer
from typing_extensions import assert_type

from elicitkit import (
    AnsweredBy,
    ElicitResultTyped,
    OnUnsupported,
    ask,
    ask_all,
    ask_text,
    choose,
    confirm,
    install,
)


@dataclasses.dataclass
class Name:
    name: str


@dataclasses.dataclass
class Age:
    age: int


async def tool(policy: OnUnsupported) -> None:
    answer = await ask(Name, on_unsupported="ask_model")
    assert_type(answer, ElicitResultTyped[Name])
    assert_type(answer.answered_by, AnsweredBy)
    assert_type(answer.answered_by_model(), bool)
    both = await ask_all(Name, Age, on_unsupported=policy)
    assert_type(both, tuple[ElicitResultTyped[Name], ElicitResultTyped[Age]])
    assert_type(await confirm("Sure?", on_unsupported="raise"), bool)
    assert_type(await choose("Pick", ["a", "b"], on_unsupported=policy), str | None)
    assert_type(await ask_text("Name?", on_unsupported="ask_model"), str | None)
    await ask(Name, on_unsupported="guess")  # type: ignore[call-overload]


server = install(MCPServer("typed"), on_unsupported="defaults")
assert_type(server, MCPServer)
