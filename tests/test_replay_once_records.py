"""The records of `AtMostOnce`: byte-for-byte the format earlier versions stored, SDK-free.

Records outlive the process that wrote them (a store shared by every worker, kept for the
state's lifetime plus a minute), so a new version must read what an old one wrote.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

import elicitkit._replay.once
from elicitkit._replay.once import INTERRUPTED, error_record, replayed, result_record
from elicitkit.integrations._outcomes import OUTCOMES

# Written by elicitkit before AtMostOnce existed (integrations/mcp.py _result_record etc.).
OLD_RESULT = (
    '{"m":"tools/call","r":{"content":[{"type":"text","text":"paid"}],"isError":false,'
    '"resultType":"complete"}}'
)
OLD_ERROR = '{"e":{"code":-32603,"message":"' + INTERRUPTED + '"}}'


def test_a_result_is_recorded_as_before() -> None:
    result = types.CallToolResult(content=[types.TextContent(type="text", text="paid")])
    kind, data = OUTCOMES["tools/call"].dump(result)
    assert result_record(kind, data) == OLD_RESULT
    assert result_record(None, {"x": 1}) == '{"r":{"x":1}}'


def test_an_old_result_record_replays_as_the_same_result() -> None:
    result = replayed(OLD_RESULT, OUTCOMES["tools/call"])
    assert result == types.CallToolResult(content=[types.TextContent(type="text", text="paid")])


def test_an_interrupted_record_is_the_old_json_rpc_error() -> None:
    assert error_record({"code": -32603, "message": INTERRUPTED}) == OLD_ERROR
    with pytest.raises(MCPError) as raised:
        replayed(OLD_ERROR, OUTCOMES["tools/call"])
    assert (raised.value.error.code, raised.value.error.message) == (-32603, INTERRUPTED)


def test_the_at_most_once_module_knows_no_sdk() -> None:
    source = Path(elicitkit._replay.once.__file__).read_text()
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not {name for name in imported if name.split(".")[0] in ("mcp", "mcp_types", "fastmcp")}
