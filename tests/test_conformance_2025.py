"""examples/conformance_2025.py in memory: the forms the official suite's 2025 scenarios check.

The suite itself (Node) runs in .ci/conformance.py; these tests hold the same expectations
without Node, with the SDK client on 2025-11-25 (the version the suite negotiates).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).parents[1] / "examples" / "conformance_2025.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_2025", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve postponed annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def server() -> MCPServer:
    server = MCPServer("elicitkit-conformance")
    _load().register_2025_scenarios(server)
    return server


async def _ask(
    server: MCPServer, tool: str, arguments: dict[str, Any], answer: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    asked: list[types.ElicitRequestParams] = []

    async def user(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content=answer)

    async with Client(server, mode="legacy", elicitation_callback=user) as client:
        assert client.protocol_version == "2025-11-25"
        result = await client.call_tool(tool, arguments)
    assert not result.is_error
    (params,) = asked
    dumped = params.model_dump(by_alias=True, exclude_none=True)
    assert dumped["mode"] == "form"
    return dumped, result.content[0].text  # type: ignore[union-attr]


async def test_tools_list(server: MCPServer) -> None:
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    assert sorted(tool.name for tool in tools) == [
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
    ]
    assert all(tool.description and tool.input_schema for tool in tools)


async def test_elicitation(server: MCPServer) -> None:
    answer = {"username": "testuser", "email": "test@example.com"}
    params, text = await _ask(server, "test_elicitation", {"message": "Who are you?"}, answer)
    assert params["message"] == "Who are you?"
    assert params["requestedSchema"] == {
        "type": "object",
        "properties": {
            "username": {"type": "string", "title": "Username", "description": "User's response"},
            "email": {"type": "string", "title": "Email", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    assert text == f"User response: action=accept, content={json.dumps(answer)}"


async def test_sep1034_defaults(server: MCPServer) -> None:
    answer = {"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": False}
    params, text = await _ask(server, "test_elicitation_sep1034_defaults", {}, answer)
    properties = params["requestedSchema"]["properties"]
    assert {key: (field["type"], field["default"]) for key, field in properties.items()} == {
        "name": ("string", "John Doe"),
        "age": ("integer", 30),
        "score": ("number", 95.5),
        "status": ("string", "active"),
        "verified": ("boolean", True),
    }
    assert properties["status"]["enum"] == ["active", "inactive", "pending"]
    assert "required" not in params["requestedSchema"]
    assert text == (
        'Elicitation completed: action=accept, content={"name": "Jane Smith", "age": 25, '
        '"score": 88.0, "status": "inactive", "verified": false}'
    )


async def test_sep1330_enums(server: MCPServer) -> None:
    answer = {
        "untitledSingle": "option1",
        "titledSingle": "value1",
        "legacyEnum": "opt1",
        "untitledMulti": ["option1", "option2"],
        "titledMulti": ["value1", "value2"],
    }
    params, text = await _ask(server, "test_elicitation_sep1330_enums", {}, answer)
    properties = params["requestedSchema"]["properties"]
    assert list(properties) == list(answer)
    assert properties["untitledSingle"]["enum"] == ["option1", "option2", "option3"]
    assert "oneOf" not in properties["untitledSingle"]
    assert properties["titledSingle"]["oneOf"][0] == {"const": "value1", "title": "First Option"}
    assert properties["untitledMulti"]["items"] == {
        "type": "string",
        "enum": ["option1", "option2", "option3"],
    }
    assert properties["titledMulti"]["items"]["anyOf"][2] == {
        "const": "value3",
        "title": "Third Choice",
    }
    # The legacy field alone travels as the deprecated enum + enumNames (a per-field style).
    assert properties["legacyEnum"] == {
        "type": "string",
        "title": "Legacy enum",
        "enum": ["opt1", "opt2", "opt3"],
        "enumNames": ["Option One", "Option Two", "Option Three"],
    }
    assert text == f"Elicitation completed: action=accept, content={json.dumps(answer)}"
