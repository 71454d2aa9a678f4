"""Text from a server, made safe to print: control characters shown, never interpreted.

A server chooses every string ``elicitkit try`` prints: the form's message, field titles,
descriptions, option labels, defaults, tool names and descriptions, tool results, error
texts. Printed raw, an escape sequence in any of them drives the user's terminal: clear the
screen (``ESC [2J``), write the clipboard (OSC 52: a ``curl ... | sh`` ready to paste), set
the window title (OSC 0), show one link and open another (OSC 8), or hide text (SGR 8).
Bidirectional controls reorder what is shown, so a field titled "Approve" can hide
"(transfer all funds)" after it. `shown` is the one function every print site uses.
"""

from __future__ import annotations

from typing import Final

# Bidirectional controls (Unicode's list, the "Trojan Source" set, CVE-2021-42574): the
# embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, and the marks
# U+200E, U+200F and U+061C, which are weaker but still move neutral characters around.
_BIDI: Final = (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)

_KEPT: Final = frozenset({0x0A})  # newline: multi-line messages and results stay readable
# Tab is shown too: a run of tabs pushes the rest of a line past the right edge, where the
# terminal piles it onto the last column ("Approve<80 tabs>(transfer all funds)").


def _visible(code: int) -> str:
    # \uXXXX for all of them: readable, unambiguous, and valid inside a JSON string, so the
    # same function serves the JSON that ``elicitkit schema`` prints.
    return f"\\u{code:04x}"


_TABLE: Final[dict[int, str]] = {
    code: _visible(code)
    for code in (
        *range(0x20),  # C0, ESC (0x1b) among them
        0x7F,  # DEL
        *range(0x80, 0xA0),  # C1: 0x9b is CSI and 0x9d OSC on terminals that read 8-bit
        *_BIDI,
        *range(0xD800, 0xE000),  # lone surrogates: not text, and print() cannot encode them
    )
    if code not in _KEPT
}


def shown(text: object) -> str:
    r"""Return ``str(text)`` with every control character written out as ``\uXXXX``.

    C0 (newline aside) and C1 controls, DEL, bidirectional controls and lone surrogates
    become visible six-character escapes, so ``"\x1b[2J"`` prints as ``\u001b[2J`` and
    ``"\u202e"`` as ``\u202e``: the user sees what the server sent, and the terminal
    interprets none of it.
    """
    return str(text).translate(_TABLE)
