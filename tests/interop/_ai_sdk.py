"""The Vercel AI SDK's MCP client, run for real by ai_sdk_client.mjs and talked to in JSON lines.

The driver connects once (stdio: it starts the server; HTTP: to a URL), says which protocol
it speaks, then makes one tool call per line the test writes, answering each elicitation
the server sends with the next answer the test gave for that call, and reports the result
and every question it was asked (see the driver's header for the lines).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tests.interop._tools import AI_SDK_DRIVER, NODE_BIN

# Generous: two cores shared with other test runs, and a Python server's start inside it.
TIMEOUT = 120


@dataclass
class Call:
    """What one tool call showed: its result (or the client's error) and the questions."""

    result: dict[str, Any] | None
    error: dict[str, Any] | None
    asked: list[dict[str, Any]]
    unused: int  # answers the server never asked for

    @property
    def text(self) -> str:
        """The result's one text block (a failed call has none: that fails the test)."""
        assert self.result is not None, f"the call failed in the client: {self.error}"
        [block] = self.result["content"]
        return str(block["text"])


@dataclass
class AiSdk:
    """One connected AI SDK client; `call` makes a tool call on it."""

    process: subprocess.Popen[str]
    lines: queue.Queue[str | None]
    protocol: str = ""
    failed: dict[str, Any] | None = None
    calls: list[Call] = field(default_factory=list[Call])

    def next_line(self) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"The AI SDK client said nothing for {TIMEOUT} s.") from None
        if line is None:
            raise AssertionError(f"The AI SDK client exited ({self.process.wait()}).")
        return dict(json.loads(line))

    def call(
        self, tool: str, *answers: dict[str, Any], arguments: dict[str, Any] | None = None
    ) -> Call:
        """Call TOOL, answering the server's questions with ANSWERS in turn."""
        assert self.process.stdin is not None
        request = {"tool": tool, "arguments": arguments or {}, "answers": list(answers)}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        said = self.next_line()
        done = Call(said.get("result"), said.get("error"), said["asked"], said["unused"])
        self.calls.append(done)
        return done


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


DECLINE = {"action": "decline"}
CANCEL = {"action": "cancel"}


def stdio(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """The driver's transport for a server it starts itself: ARGV, with ENV added."""
    return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": env}


def http(url: str) -> dict[str, Any]:
    return {"type": "http", "url": url}


@contextmanager
def ai_sdk(
    package: Path,
    transport: dict[str, Any],
    log: Path,
    *,
    discovery: bool = True,
    waits: bool = True,
    forms: bool = True,
) -> Iterator[AiSdk]:
    """Run the driver with this transport until it has connected (or failed to); yield it.

    ``discovery``: the client's ``protocolVersionDiscovery`` (``False`` pins 2025-11-25);
    ``waits``: the stdio transport's ``waitsForProtocolVersionDiscovery`` (the probe race's
    workaround, docs/clients.md); ``forms``: declare elicitation and answer it. The
    driver's stderr, and so the stdio server's, goes to LOG.
    """
    config = {
        "transport": transport,
        "discovery": discovery,
        "waits": waits,
        "forms": forms,
        "package": str(package),
    }
    with log.open("a", encoding="utf-8") as errors:
        process = subprocess.Popen(
            [str(NODE_BIN / "node"), str(AI_SDK_DRIVER), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env={**os.environ, "NODE_NO_WARNINGS": "1"},
        )
        lines: queue.Queue[str | None] = queue.Queue()
        assert process.stdout is not None
        reader = threading.Thread(target=_read, args=(process.stdout, lines), daemon=True)
        reader.start()
        client = AiSdk(process, lines)
        try:
            said = client.next_line()
            client.protocol = said.get("connected", "")
            client.failed = said.get("failed")
            yield client
        finally:
            assert process.stdin is not None
            process.stdin.close()  # the driver closes the client, which ends a stdio server
            try:
                process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            reader.join()  # it has read to the end of the output of an exited process
            process.stdout.close()


def _read(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)
