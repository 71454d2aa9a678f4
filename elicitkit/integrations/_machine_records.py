"""Where a server keeps its records and its sealing key on this machine when nothing is set.

With no ``store=`` and no ``$ELICITKIT_STORE``, a server records its dialogues in an SQLite
file named after it in the user's state folder, and seals with a key kept beside that file:

* Linux and others: ``$XDG_STATE_HOME/elicitkit`` (default ``~/.local/state/elicitkit``);
* macOS: ``~/Library/Application Support/elicitkit``; Windows: ``%LOCALAPPDATA%/elicitkit``.

The file is ``<name>-<hash>.sqlite3`` (``name``: the server's name, reduced to letters,
digits and dashes; ``hash``: eight hex digits of the full name, so names that reduce alike
stay apart), the key ``<the same>.key``. Every process of the server run by this user on
this machine (workers, a server started per call, one restarted) finds the same two files.

The key file holds 64 hex digits (32 random bytes), readable by its owner only (0600, in a
folder of 0700). Anyone who can read it (that user, root, a backup) can open the
``requestState`` and tickets the server seals, and forge them. To rotate it, stop the
server's processes, delete the file, start them again: a new one is made, and the states
and tickets sealed with the old key are refused (their users start the call afresh).
``$MCP_REQUEST_STATE_KEY`` or a policy passed to the server always win over the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import sys
from pathlib import Path

KEY_BYTES = 32


def state_folder() -> Path:
    """The folder of this user's elicitkit records on this machine (not created)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "elicitkit"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "elicitkit"
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    # The XDG spec says a relative path is invalid and is to be ignored.
    folder = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return folder / "elicitkit"


def default_database(server_name: str | None) -> Path:
    """The record file of the server named ``server_name`` (``None``: an unnamed one)."""
    name = server_name or "server"
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "server"
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return state_folder() / f"{slug}-{digest}.sqlite3"


def unwritable(folder: Path) -> str | None:
    """Why ``folder`` cannot hold records (made, owner-only, if missing), or ``None``."""
    try:
        _ensure_private_folder(folder)
    except OSError as error:
        return str(error)
    if not os.access(folder, os.W_OK):
        return f"{folder} is not writable"
    return None


def key_beside(database: Path) -> str:
    """The sealing key kept beside ``database``, made now if this is the first process.

    Made atomically: the key is written whole to a file of this process, then linked to its
    name, which fails if another process linked its own first; every process then reads
    the one that won. A file that is readable by others than its owner is refused.

    Raises:
        TypeError: The key file cannot be made or read, is readable by others, or does not
            hold a key; the message names the file and the fix.
    """
    path = database.with_suffix(".key")
    try:
        _ensure_private_folder(path.parent)
        if not path.exists():
            _write_once(path, secrets.token_hex(KEY_BYTES))
        if sys.platform != "win32" and path.stat().st_mode & 0o077:
            raise TypeError(
                f"Cannot seal requestState with the key file {path}: others than its owner "
                f"may read it (mode {path.stat().st_mode & 0o777:o}), and whoever reads it can "
                f"forge this server's states and tickets. Run chmod 600 {path}, or delete it "
                "to make a new key."
            )
        key = path.read_text().strip()
    except OSError as error:
        raise TypeError(
            f"Cannot keep this server's sealing key in {path}: {error}. Make the folder "
            "writable, point ELICITKIT_STORE at another sqlite:/// path, or set "
            "MCP_REQUEST_STATE_KEY."
        ) from None
    if not re.fullmatch(r"[0-9a-f]{64,}", key):
        raise TypeError(
            f"Cannot seal requestState with the key file {path}: it does not hold the key "
            "elicitkit wrote (64 or more hex digits). Delete it, and elicitkit makes a new one."
        )
    return key


def _ensure_private_folder(folder: Path) -> None:
    existed = folder.exists()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not existed and sys.platform != "win32":
        folder.chmod(0o700)  # mkdir's mode is masked by the umask


def _write_once(path: Path, key: str) -> None:
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as file:
            file.write(key + "\n")
            file.flush()
            os.fsync(file.fileno())
        # Another process may have linked its key first: theirs is then the key.
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
