"""Run the official MCP conformance suite's 2025 server scenarios against elicitkit.

    python .ci/conformance.py

Installs Node 22 and ``@modelcontextprotocol/conformance`` from npm into ``.conformance/``
(once; the suite needs Node 22 or newer), starts ``examples/conformance_2025.py`` on a free
loopback port, runs each scenario, and reads every check the suite reports. It exits 0 only
if every check passed, except the checks in ``KNOWN_FAILURES``, which must fail exactly as
recorded: a known failure that starts passing fails the run too, so the list cannot go stale.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
PREFIX = ROOT / ".conformance"
SUITE_VERSION = "0.1.16"
NODE_MAJOR = "22"
SUITE = PREFIX / "node_modules" / "@modelcontextprotocol" / "conformance"
NODE = PREFIX / "node_modules" / ".bin" / "node"
SCENARIOS = [
    "server-initialize",
    "tools-list",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
]
# check id -> why it cannot pass yet. Empty: every check of these scenarios passes (the
# SEP-1330 legacy field uses a per-field label style since issue 9).
KNOWN_FAILURES: dict[str, str] = {}


def install() -> None:
    """Install Node 22 and the suite into PREFIX unless the right versions are there."""
    installed = SUITE / "package.json"
    if installed.is_file() and NODE.is_file():
        version = json.loads(installed.read_text())["version"]
        node = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=False)
        if version == SUITE_VERSION and node.stdout.startswith(f"v{NODE_MAJOR}."):
            return
    print(f"== installing node@{NODE_MAJOR} and the conformance suite {SUITE_VERSION} (npm)")
    subprocess.run(
        ["npm", "install", "--prefix", str(PREFIX), "--no-save", "--no-audit", "--no-fund",
         "--loglevel=error", f"node@{NODE_MAJOR}",
         f"@modelcontextprotocol/conformance@{SUITE_VERSION}"],
        check=True,
    )  # fmt: skip


def free_port() -> int:
    """Return a loopback port nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Say whether something accepts connections on the loopback port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
    except OSError:
        return False
    return True


def start_server(port: int) -> subprocess.Popen[bytes]:
    """Start examples/conformance_2025.py and wait until it listens."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "conformance_2025.py"), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not listening(port):
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            sys.exit("The conformance server did not start.")
        time.sleep(0.1)
    return server


def run_scenario(url: str, scenario: str, out: Path) -> list[dict[str, object]]:
    """Run one scenario; return the checks it reported (its exit status says less)."""
    subprocess.run(
        [NODE, SUITE / "dist" / "index.js", "server", "--url", url, "--scenario", scenario,
         "-o", str(out)],
        stdout=subprocess.DEVNULL,
        check=False,
        timeout=180,
    )  # fmt: skip
    reports = sorted(out.rglob("checks.json"))
    if len(reports) != 1:
        return [{"id": scenario, "status": "NO REPORT"}]
    checks: list[dict[str, object]] = json.loads(reports[0].read_text())
    return checks


def judge(scenario: str, checks: list[dict[str, object]]) -> list[str]:
    """Print each check with its verdict; return the problems."""
    problems = []
    graded = [check for check in checks if check.get("status") != "INFO"]
    if not any(check.get("status") == "SUCCESS" for check in graded):
        problems.append(f"{scenario}: no check passed")
    for check in graded:
        check_id, status = str(check.get("id")), check.get("status")
        known = check_id in KNOWN_FAILURES
        if status == "SUCCESS":
            verdict = "ok"
            if known:
                verdict = "PASSES NOW: remove it from KNOWN_FAILURES in .ci/conformance.py"
                problems.append(f"{check_id} passes now")
        elif known:
            verdict = f"known failure: {KNOWN_FAILURES[check_id]}"
        else:
            verdict = f"FAILED: {check.get('errorMessage', '')}"
            problems.append(f"{check_id}: {status}")
        print(f"  {scenario:30} {check_id:42} {status!s:8} {verdict}")
    return problems


def main() -> int:
    """Install, serve, run every scenario, judge; return the exit status."""
    install()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = start_server(port)
    problems: list[str] = []
    seen: set[str] = set()
    try:
        with tempfile.TemporaryDirectory() as results:
            for scenario in SCENARIOS:
                checks = run_scenario(url, scenario, Path(results) / scenario)
                seen.update(str(check.get("id")) for check in checks)
                problems += judge(scenario, checks)
    finally:
        server.terminate()
        server.wait(timeout=10)
    problems += [f"{check_id} was not reported" for check_id in KNOWN_FAILURES.keys() - seen]
    if problems:
        print(f"conformance: {len(problems)} problem(s): " + "; ".join(problems))
        return 1
    if KNOWN_FAILURES:
        print(f"conformance: every check passed but the {len(KNOWN_FAILURES)} known failure(s)")
    else:
        print("conformance: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
