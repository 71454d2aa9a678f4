"""Where the real clients live, and what to do when one is missing.

`.ci/run` installs them into folders of the repository (ignored by git):

* `.ci/node/`: Node 22 (npm package `node@22`) and `@modelcontextprotocol/inspector` 2.x;
* `.ci/node/mcp-use/`: `@mcp-use/inspector` (run with the Node 22 above);
* `.ci/node/ai-sdk/`: `@ai-sdk/mcp`, the Vercel AI SDK's MCP client (the same Node 22);
* `.ci/fast-agent-venv/`: a Python >= 3.12 venv with `fast-agent-mcp`;
* `.ci/strands-venv/` and `.ci/strands-1130-venv/`: `strands-agents` with `mcp` 2.1.1 (it
  speaks 2026-07-28) and with `mcp` 1.30.0 (it speaks 2025-11-25);
* Debian's `chromium` and `tmux` (apt).

A missing client skips its tests with the reason and the fix, except in CI (`CI` set), where
`.ci/run` has installed everything and a missing client is a failure, never a silent skip.
The one exception is fast-agent on a machine with no Python >= 3.12 at all: that is a skip
even in CI, with the reason spelled out.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(__file__).resolve().with_name("server.py")
NODE_DIR = Path(os.environ.get("ELICITKIT_NODE_DIR", ROOT / ".ci" / "node"))
NODE_BIN = NODE_DIR / "node_modules" / ".bin"
INSPECTOR = NODE_BIN / "mcp-inspector"
# The mcp-use Inspector has a folder of its own under .ci/node, so that its install never
# rearranges the MCP Inspector's dependencies (and the other way round).
MCP_USE_INSPECTOR = (
    NODE_DIR / "mcp-use" / "node_modules" / "@mcp-use" / "inspector" / "dist" / "cli.js"
)
# The AI SDK's MCP client in a folder of its own too; ai_sdk_client.mjs imports it from here.
AI_SDK_MCP = NODE_DIR / "ai-sdk" / "node_modules" / "@ai-sdk" / "mcp"
AI_SDK_DRIVER = Path(__file__).resolve().with_name("ai_sdk_client.mjs")
FAST_AGENT_VENV = Path(
    os.environ.get("ELICITKIT_FAST_AGENT_VENV", ROOT / ".ci" / "fast-agent-venv")
)
FAST_AGENT = FAST_AGENT_VENV / "bin" / "fast-agent"
NO_PYTHON_312 = FAST_AGENT_VENV / "NO_PYTHON_312"  # written by .ci/run when it found none
# strands-agents, once per `mcp` line it runs on: each line speaks one era, and the era names
# of docs/clients.json are these pins.
STRANDS_VENVS = {
    "mcp-2.1.1": Path(os.environ.get("ELICITKIT_STRANDS_VENV", ROOT / ".ci" / "strands-venv")),
    "mcp-1.30.0": Path(
        os.environ.get("ELICITKIT_STRANDS_1130_VENV", ROOT / ".ci" / "strands-1130-venv")
    ),
}
CHROMIUM = Path(os.environ.get("ELICITKIT_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(
    os.environ.get("ELICITKIT_INTEROP_ARTIFACTS", ROOT / ".ci" / "artifacts" / "interop")
)

# The interop server comes in two flavours with the same tools (server.py): the official SDK's
# MCPServer and fastmcp's FastMCP. A test runs on both, or on the official one only, by
# parametrising the module-scoped `flavour` fixture (conftest.py) with one of these marks.
# What a client shows is the client's behaviour: it must be the same for both flavours.
FLAVOURS = ("mcp", "fastmcp")
both_flavours = pytest.mark.parametrize("flavour", FLAVOURS, indirect=True)
mcp_only = pytest.mark.parametrize("flavour", ["mcp"], indirect=True)


def missing(what: str) -> None:
    """Skip (or, in CI, fail) the current test because a client is not installed."""
    message = f"{what} is not installed. Run .ci/run, which installs it."
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI is set, so .ci/run should have installed it.)")
    pytest.skip(message)


def require_inspector() -> Path:
    """Return the Inspector launcher, after checking Node 22, Chromium and Playwright."""
    if not INSPECTOR.exists() or not (NODE_BIN / "node").exists():
        missing(f"The MCP Inspector (expected at {INSPECTOR}, with Node 22 beside it)")
    if not CHROMIUM.exists():
        missing(f"Chromium (expected at {CHROMIUM}, Debian package 'chromium')")
    try:
        import playwright  # noqa: F401, PLC0415
    except ImportError:
        missing("Playwright for Python (the dev extra 'playwright')")
    return INSPECTOR


def require_mcp_use_inspector() -> Path:
    """Return the mcp-use Inspector's launcher, after checking Node 22, Chromium, Playwright."""
    if not MCP_USE_INSPECTOR.exists() or not (NODE_BIN / "node").exists():
        missing(
            f"The mcp-use Inspector (expected at {MCP_USE_INSPECTOR}, with Node 22 in {NODE_BIN})"
        )
    if not CHROMIUM.exists():
        missing(f"Chromium (expected at {CHROMIUM}, Debian package 'chromium')")
    try:
        import playwright  # noqa: F401, PLC0415
    except ImportError:
        missing("Playwright for Python (the dev extra 'playwright')")
    return MCP_USE_INSPECTOR


def require_inspector_cli() -> Path:
    """Return the Inspector launcher for its `--cli` mode (no browser), after checking Node 22."""
    if not INSPECTOR.exists() or not (NODE_BIN / "node").exists():
        missing(f"The MCP Inspector (expected at {INSPECTOR}, with Node 22 beside it)")
    return INSPECTOR


def require_ai_sdk() -> Path:
    """Return the folder of the installed `@ai-sdk/mcp`, after checking Node 22."""
    if not (AI_SDK_MCP / "package.json").exists() or not (NODE_BIN / "node").exists():
        missing(f"The AI SDK's MCP client (expected at {AI_SDK_MCP}, with Node 22 in {NODE_BIN})")
    return AI_SDK_MCP


def require_fast_agent() -> Path:
    """Return the fast-agent launcher, after checking tmux."""
    if NO_PYTHON_312.exists():
        pytest.skip(
            "fast-agent needs Python >= 3.12 and .ci/run found none on this machine "
            "(looked for python3.12/python3.13 on PATH and under /root/.pyenv/versions)."
        )
    if not FAST_AGENT.exists():
        missing(f"fast-agent (expected at {FAST_AGENT})")
    require_tmux("fast-agent runs in")
    return FAST_AGENT


def require_tmux(who: str) -> None:
    """Check tmux, the terminal that WHO (``"fast-agent runs in"``) names."""
    if shutil.which("tmux") is None:
        missing(f"tmux (Debian package 'tmux'), the terminal {who}")


def require_strands(era: str) -> Path:
    """Return the python of the strands venv of ERA (a key of `STRANDS_VENVS`)."""
    python = STRANDS_VENVS[era] / "bin" / "python"
    if not python.exists():
        missing(f"strands-agents on {era} (expected a venv at {STRANDS_VENVS[era]})")
    return python
