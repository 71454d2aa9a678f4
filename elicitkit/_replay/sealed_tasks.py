"""Task records sealed at rest: what a record says of the call never sits in a store in clear.

`SealedTaskStore` wraps any `TaskStore` (memory, SQLite, Redis) and seals, with the server's
``requestState`` codec, every part of a `TaskRecord` that carries the call's content: each
outstanding question (its message and form), each answer, the result, the error, the
status message, and what the next leg replays (the call's name and arguments, and the state
with the answers and step results so far). Each is bound to its task, its field and its key,
so a sealed part copied to another task or field does not open there. What a store needs
to do its work stays in clear: the id, the status, the times, the lease and the leg's
runner, the principal, the cancel flag, and the keys of the questions and answers.

A part that does not open (written without the key, copied, or sealed with an old key)
reads as absent, and the record says why in its status message; a store's own plain writes
(the worker-lost error and message a leasing store sets) pass through as they are.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, cast

from elicitkit._replay.once import Codec
from elicitkit._replay.tasks import TaskRecord, TaskStore

_CONTEXT = "elicitkit task 1\n"
_SEALED = "$sealed"  # the one key of a sealed dict part
_SEALED_TEXT = "$sealed:"  # the prefix of a sealed status message
UNREADABLE = (
    "The server cannot read part of this task's record: it was sealed with another key (the "
    "server's key changed), or altered in the store."
)


class SealedTaskStore:
    """A `TaskStore` that seals each record's content before ``inner`` keeps it."""

    def __init__(self, inner: TaskStore, codec: Codec) -> None:
        """Keep records in ``inner``, sealed with ``codec``."""
        self.inner = inner
        self._codec = codec

    async def create(self, record: TaskRecord, *, dialogue: str | None) -> TaskRecord:
        """See `TaskStore.create`."""
        kept = await self.inner.create(self._sealed(record), dialogue=dialogue)
        return self._opened(kept)

    async def get(self, task_id: str) -> TaskRecord | None:
        """See `TaskStore.get`."""
        found = await self.inner.get(task_id)
        return None if found is None else self._opened(found)

    async def change(
        self, task_id: str, edit: Callable[[TaskRecord], bool], *, lease: float | None = None
    ) -> TaskRecord | None:
        """See `TaskStore.change`: ``edit`` sees the record opened, the store keeps it sealed."""

        def sealed_edit(stored: TaskRecord) -> bool:
            plain = self._opened(stored)
            if not edit(plain):
                return False
            sealed = self._sealed(plain)
            for name, value in vars(sealed).items():
                setattr(stored, name, value)
            return True

        found = await self.inner.change(task_id, sealed_edit, lease=lease)
        return None if found is None else self._opened(found)

    async def renew(self, task_id: str, seconds: float) -> TaskRecord | None:
        """See `TaskStore.renew`."""
        found = await self.inner.renew(task_id, seconds)
        return None if found is None else self._opened(found)

    async def wait(self, task_id: str, seconds: float, *, version: int | None = None) -> None:
        """See `TaskStore.wait`."""
        await self.inner.wait(task_id, seconds, version=version)

    def _sealed(self, record: TaskRecord) -> TaskRecord:
        out = copy.copy(record)
        task = record.task_id
        out.questions = {k: self._seal(task, "q", k, v) for k, v in record.questions.items()}
        out.answers = {k: self._seal(task, "a", k, v) for k, v in record.answers.items()}
        out.result = None if record.result is None else self._seal(task, "r", "", record.result)
        out.error = None if record.error is None else self._seal(task, "e", "", record.error)
        if record.message is not None:
            out.message = _SEALED_TEXT + self._token(task, "m", "", record.message)
        # What the next leg replays: the call's arguments, and the answers and step results
        # its state carries.
        out.call = None if record.call is None else self._seal(task, "c", "", record.call)
        if record.state is not None:
            out.state = _SEALED_TEXT + self._token(task, "s", "", record.state)
        return out

    def _opened(self, stored: TaskRecord) -> TaskRecord:
        out = copy.copy(stored)
        task = stored.task_id
        unreadable: list[str] = []
        out.questions = _kept(
            {k: self._open(task, "q", k, v, unreadable) for k, v in stored.questions.items()}
        )
        out.answers = _kept(
            {k: self._open(task, "a", k, v, unreadable) for k, v in stored.answers.items()}
        )
        out.result = (
            None if stored.result is None else self._open(task, "r", "", stored.result, unreadable)
        )
        out.error = (
            None if stored.error is None else self._open(task, "e", "", stored.error, unreadable)
        )
        if stored.message is not None and stored.message.startswith(_SEALED_TEXT):
            opened = self._unseal(task, "m", "", stored.message[len(_SEALED_TEXT) :])
            out.message = UNREADABLE if opened is None else str(opened)
        if stored.call is not None:
            call = self._open(task, "c", "", stored.call, unreadable)
            out.call = call if isinstance(call, dict) else {}
        if stored.state is not None and stored.state.startswith(_SEALED_TEXT):
            state = self._unseal(task, "s", "", stored.state[len(_SEALED_TEXT) :])
            if state is None:
                unreadable.append("s:")
            out.state = None if state is None else str(state)
        if unreadable:
            out.message = UNREADABLE
        return out

    def _seal(self, task: str, field: str, key: str, value: Any) -> dict[str, Any]:
        return {_SEALED: self._token(task, field, key, value)}

    def _token(self, task: str, field: str, key: str, value: Any) -> str:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        return self._codec.seal(f"{_CONTEXT}{task}\n{field}\n{key}\n{text}".encode())

    def _open(self, task: str, field: str, key: str, value: object, unreadable: list[str]) -> Any:
        if not isinstance(value, dict):
            return value
        parts = cast("dict[str, object]", value)
        if set(parts) != {_SEALED}:  # a store's own plain write
            return parts
        opened = self._unseal(task, field, key, parts[_SEALED])
        if opened is None:
            unreadable.append(f"{field}:{key}")
        return opened

    def _unseal(self, task: str, field: str, key: str, token: object) -> Any:
        try:
            plain = self._codec.unseal(str(token)).decode()
        except Exception:  # noqa: BLE001  (any failure of the codec: not a part of ours)
            return None
        context = f"{_CONTEXT}{task}\n{field}\n{key}\n"
        if not plain.startswith(context):
            return None
        return json.loads(plain[len(context) :])


def sealed(inner: TaskStore, codec: Codec) -> TaskStore:
    """``inner``, sealing every record's content with ``codec``."""
    return SealedTaskStore(inner, codec)


def _kept(parts: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in parts.items() if value is not None}
