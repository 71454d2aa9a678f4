"""The tools the official conformance suite calls for the 2025 elicitation scenarios.

``@modelcontextprotocol/conformance@0.1.16`` connects to a server over streamable HTTP,
negotiates 2025-11-25 and runs, among others, these server scenarios:

* ``server-initialize`` and ``tools-list``: the handshake, and tools that each have a name,
  a description and an input schema;
* ``tools-call-elicitation``: ``test_elicitation(message)`` asks for a username and an email;
* ``elicitation-sep1034-defaults``: ``test_elicitation_sep1034_defaults`` asks for a form
  with a default on every primitive kind;
* ``elicitation-sep1330-enums``: ``test_elicitation_sep1330_enums`` asks for the five kinds
  of choice: untitled and titled single-selects, a legacy titled single-select
  (``enumNames``), and untitled and titled multi-selects.

Every form below is a plain Python type: elicitkit derives the schemas the suite checks.
``register_2025_scenarios(server)`` adds the tools to any ``MCPServer``. Run alone, this file
is a server for the suite (``.ci/conformance.py`` starts it and runs the scenarios):

    python examples/conformance_2025.py --port 3001      # http://127.0.0.1:3001/mcp
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from mcp.server.mcpserver import MCPServer

from elicitkit import ElicitResultTyped, FormField, ask, install


@dataclass
class UserInfo:
    username: Annotated[str, FormField(description="User's response")]
    email: Annotated[str, FormField(description="User's email address")]


@dataclass
class Defaults:
    """SEP-1034: a default on every primitive kind."""

    name: Annotated[str, FormField(description="User name")] = "John Doe"
    age: Annotated[int, FormField(description="User age")] = 30
    score: Annotated[float, FormField(description="User score")] = 95.5
    status: Annotated[
        Literal["active", "inactive", "pending"], FormField(description="User status")
    ] = "active"
    verified: Annotated[bool, FormField(description="Verification status")] = True


class Enums(msgspec.Struct, rename="camel"):
    """SEP-1330: the five kinds of choice; wire keys in camelCase (``untitledSingle``, ...)."""

    untitled_single: Literal["option1", "option2", "option3"]
    titled_single: Annotated[
        Literal["value1", "value2", "value3"],
        FormField(
            labels={"value1": "First Option", "value2": "Second Option", "value3": "Third Option"}
        ),
    ]
    # The suite wants this one as the deprecated enum + enumNames, next to oneOf fields: a
    # per-field label style.
    legacy_enum: Annotated[
        Literal["opt1", "opt2", "opt3"],
        FormField(
            labels={"opt1": "Option One", "opt2": "Option Two", "opt3": "Option Three"},
            label_style="enumNames",
        ),
    ]
    untitled_multi: list[Literal["option1", "option2", "option3"]]
    titled_multi: Annotated[
        list[Literal["value1", "value2", "value3"]],
        FormField(
            labels={"value1": "First Choice", "value2": "Second Choice", "value3": "Third Choice"}
        ),
    ]


def _report(answer: ElicitResultTyped[Any]) -> str:
    content = answer.content
    if dataclasses.is_dataclass(content) and not isinstance(content, type):
        content = dataclasses.asdict(content)
    return f"action={answer.action}, content={json.dumps(msgspec.to_builtins(content))}"


def register_2025_scenarios(server: MCPServer) -> None:
    """Add the tools of the 2025 elicitation scenarios to ``server`` (installing elicitkit)."""
    install(server)  # idempotent: the tools below call ask()

    @server.tool()
    async def test_elicitation(message: str) -> str:
        """Ask the user for a username and an email, with the given message."""
        return f"User response: {_report(await ask(UserInfo, message))}"

    @server.tool()
    async def test_elicitation_sep1034_defaults() -> str:
        """Ask for a form with a default on every primitive kind (SEP-1034)."""
        answer = await ask(
            Defaults, "Test client default value handling - please accept with defaults"
        )
        return f"Elicitation completed: {_report(answer)}"

    @server.tool()
    async def test_elicitation_sep1330_enums() -> str:
        """Ask for a form with every kind of single and multiple choice (SEP-1330)."""
        answer = await ask(Enums, "Test enum schema variants - please choose")
        return f"Elicitation completed: {_report(answer)}"


def main() -> None:
    """Serve the scenarios' tools over streamable HTTP (sessions and SSE) at /mcp."""
    parser = argparse.ArgumentParser(description="elicitkit's server for the 2025 scenarios")
    parser.add_argument("--port", type=int, default=3001)
    port = parser.parse_args().port
    server = MCPServer("elicitkit-conformance")
    register_2025_scenarios(server)
    print(f"Conformance server at http://127.0.0.1:{port}/mcp", file=sys.stderr)
    server.run("streamable-http", host="127.0.0.1", port=port, streamable_http_path="/mcp")


if __name__ == "__main__":
    main()
