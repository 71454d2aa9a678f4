"""A real pseudo-terminal (tmux) that a test types into and reads, like a person would.

The screen (`tmux capture-pane`) shows what is visible now; the raw byte stream the program
wrote (`tmux pipe-pane`) keeps everything it ever printed, even lines a full-screen form
later drew over, so results are read from the stream with the escape codes stripped.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

# CSI sequences, charset selections, keypad modes, OSC strings: what a terminal draws with.
_ESCAPES = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>78]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)"
)


class Terminal:
    """One tmux session on a private tmux server, running one program."""

    def __init__(self, argv: list[str], *, cwd: Path, width: int = 200, height: int = 60) -> None:
        self.socket = f"elicitkit-interop-{uuid.uuid4().hex[:8]}"
        self.raw = cwd / "terminal.raw"
        config = cwd / "tmux.conf"
        # Keep the pane (and its last screen) if the program exits, so a failure shows why.
        config.write_text(
            "set -g remain-on-exit on\nset -g history-limit 10000\n"
            f"set -g default-size {width}x{height}\n"
        )
        self._tmux(
            "-f", str(config), "new-session", "-d", "-s", "main", "-x", str(width),
            "-y", str(height), "-c", str(cwd),
            # Without COLUMNS and LINES (pytest sets them), the program sizes itself to the pane.
            shlex.join(["env", "-u", "COLUMNS", "-u", "LINES", *argv]),
        )  # fmt: skip
        self._tmux("pipe-pane", "-t", "main", "-o", f"cat >> {shlex.quote(str(self.raw))}")

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def type(self, text: str) -> None:
        """Type text, character by character as keystrokes."""
        self._tmux("send-keys", "-t", "main", "-l", text)
        time.sleep(0.1)

    def press(self, *keys: str) -> None:
        """Press keys by tmux name (Tab, Enter, Space, Down, Escape), one at a time."""
        for key in keys:
            self._tmux("send-keys", "-t", "main", key)
            time.sleep(0.1)

    def screen(self) -> str:
        """What the terminal shows now, wrapped lines joined."""
        return self._tmux("capture-pane", "-p", "-J", "-t", "main")

    def printed(self) -> str:
        """Everything the program wrote so far, without escape codes."""
        data = self.raw.read_bytes().decode("utf-8", "replace") if self.raw.exists() else ""
        return _ESCAPES.sub("", data).replace("\r", "")

    def wait_screen(self, pattern: str, timeout: float = 30) -> re.Match[str]:
        """Wait until the screen shows PATTERN (a regex, multiline)."""
        return self._wait(self.screen, re.compile(pattern, re.MULTILINE), timeout, 0)

    def wait_printed(self, pattern: str, after: int, timeout: float = 30) -> re.Match[str]:
        """Wait for the (AFTER+1)-th occurrence of PATTERN in what the program printed."""
        return self._wait(self.printed, re.compile(pattern), timeout, after)

    def count_printed(self, pattern: str) -> int:
        """How many times PATTERN occurs in what the program printed."""
        return len(re.findall(pattern, self.printed()))

    def _wait(
        self, read: Callable[[], str], pattern: re.Pattern[str], timeout: float, after: int
    ) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            text = read()
            matches = list(pattern.finditer(text))
            if len(matches) > after:
                return matches[after]
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"The terminal did not show {pattern.pattern!r} within {timeout} s. "
                    f"Screen:\n{self.screen()}"
                )
            time.sleep(0.2)

    def close(self) -> None:
        """End the tmux server and the program in it."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)
