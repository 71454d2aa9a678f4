"""fastmcp is an optional extra: elicitkit works without it, and refuses a fastmcp too old."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Run in a fresh interpreter, where fastmcp cannot be imported: `sys.modules[name] = None`
# makes `import name` raise ImportError, as if the package were not installed.
WITHOUT_FASTMCP = textwrap.dedent(
    """
    import sys
    for name in ("fastmcp", "fastmcp.server", "fastmcp.server.server"):
        sys.modules[name] = None

    import anyio
    import mcp_types as types
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    import elicitkit
    import elicitkit.testing
    from elicitkit import ask, install

    server = install(MCPServer("plain"))

    @server.tool()
    async def pick() -> str:
        answer = await ask(bool, "Sure?")
        return repr(answer.content)

    async def on_elicit(context, params):
        return types.ElicitResult(action="accept", content={"value": True})

    async def main() -> None:
        async with Client(server, mode="legacy", elicitation_callback=on_elicit) as client:
            result = await client.call_tool("pick", {})
            print(result.content[0].text)

    anyio.run(main)
    try:
        install(object())
    except TypeError as error:
        print(error)
    """
)


def test_elicitkit_works_without_fastmcp(starts_processes: None) -> None:
    shown = subprocess.run(
        [sys.executable, "-c", WITHOUT_FASTMCP], check=True, capture_output=True, text=True
    ).stdout
    assert shown == (
        "True\n"
        "Cannot install elicitkit on a builtins.object: install() takes the official SDK's "
        "server, mcp.server.mcpserver.MCPServer, or fastmcp's, fastmcp.FastMCP. Pass one of "
        "those.\n"
    )


def test_importing_elicitkit_does_not_import_fastmcp(starts_processes: None) -> None:
    # fastmcp is slow to import (about half a second): only its users should pay for it.
    probe = "import sys, elicitkit, elicitkit.testing; print('fastmcp' in sys.modules)"
    shown = subprocess.run(
        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
    ).stdout
    assert shown == "False\n"


def test_an_older_fastmcp_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import fastmcp  # noqa: PLC0415

    from elicitkit import install  # noqa: PLC0415

    monkeypatch.setattr(fastmcp, "__version__", "4.1.6")
    with pytest.raises(TypeError) as caught:
        install(fastmcp.FastMCP("old"))
    assert str(caught.value) == (
        "Cannot install elicitkit on this FastMCP server: it is fastmcp 4.1.6, and elicitkit "
        "needs fastmcp 4.2 or newer, whose servers run on the official SDK's server layer as "
        'elicitkit expects. Upgrade it: pip install "fastmcp>=4.2,<5".'
    )


@pytest.mark.parametrize("version", ["4.2.0", "4.2.4.dev3+g1234", "4.10.1", "5.0.0rc1"])
def test_fastmcp_42_and_newer_are_accepted(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    import fastmcp  # noqa: PLC0415

    from elicitkit import install  # noqa: PLC0415

    monkeypatch.setattr(fastmcp, "__version__", version)
    server = fastmcp.FastMCP("new")
    assert install(server) is server
