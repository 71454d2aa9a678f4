"""Replay on MCP 2026-07-28: questions, their keys, and the answers carried across rounds.

On 2026-07-28 a server cannot send a request in the middle of a tool call. The first
unanswered ``ask()`` ends the run (`NeedInput`); the integration returns an
``InputRequiredResult`` holding that one question, and the client retries the whole call
with the answer. The tool then runs again from the top, and every ``ask()`` already answered
returns its answer at once. The client sends back only the latest round's answers, so
earlier ones travel in ``requestState`` (sealed and bound to the call by the SDK).

Nothing here knows an SDK: integrations hand in the raw ``inputResponses`` and the
plaintext ``requestState``, and turn a `NeedInput` into their SDK's result type.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

_STATE_VERSION = 1
_KEY_PREFIX = "elicitkit"


class NeedInput(BaseException):
    """Ends a tool run at its first unanswered question on 2026-07-28.

    A `BaseException`, so that a tool's ``except Exception:`` cannot swallow it on its way
    to the integration, which turns it into an ``InputRequiredResult``.
    """

    def __init__(self, key: str, params: dict[str, Any]) -> None:
        """Carry the question's key and its ``elicitation/create`` params."""
        super().__init__(key)
        self.key = key
        self.params = params


def question_key(ordinal: int, params: Mapping[str, Any]) -> str:
    """The deterministic key of the ``ordinal``-th question of a run.

    The ordinal tells apart two asks of the same form in one run; the digest of the
    rendered question makes sure an answer is never taken for a different question (a
    message or form that changed between rounds is asked again).
    """
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return f"{_KEY_PREFIX}:{ordinal}:{digest}"


@dataclass
class Replay:
    """The answers a run of a tool can see, and the state the next round carries.

    Attributes:
        answers: Raw ``ElicitResult`` objects by question key: those carried in the sealed
            ``requestState``, plus the answer to the question the last round asked.
    """

    answers: dict[str, Mapping[str, Any]] = field(default_factory=dict[str, Mapping[str, Any]])

    @classmethod
    def from_request(cls, input_responses: object, request_state: object) -> Replay:
        """Collect the answers of a retry.

        Args:
            input_responses: The request's raw ``inputResponses`` (``None`` on round one).
            request_state: The plaintext ``requestState``, already verified by the SDK.

        Only the answer to the question the previous round asked is taken from
        ``inputResponses``: the spec says to ignore entries a server does not expect, and an
        answer carried in the sealed state cannot be replaced by a later retry. A state
        elicitkit did not write carries nothing.
        """
        state = _our_state(request_state)
        if state is None:
            return cls()
        carried, pending = state
        answers = dict(carried)
        if pending is not None and isinstance(input_responses, Mapping):
            responses = cast("Mapping[object, object]", input_responses)
            answer = responses.get(pending)
            if isinstance(answer, Mapping):
                answers[pending] = cast("Mapping[str, Any]", answer)
        return cls(answers)

    def answer(self, key: str) -> Mapping[str, Any] | None:
        """Return the raw answer to a question, or ``None`` if it has not been answered."""
        return self.answers.get(key)

    def next_state(self, pending: str) -> str:
        """The ``requestState`` for the next round.

        It holds every answer so far, and the key of the question whose answer the retry
        brings (``pending``).
        """
        state = {"elicitkit": _STATE_VERSION, "answers": self.answers, "pending": pending}
        return json.dumps(state, separators=(",", ":"))


def _our_state(
    request_state: object,
) -> tuple[dict[str, Mapping[str, Any]], str | None] | None:
    if not isinstance(request_state, str):
        return None
    try:
        state = json.loads(request_state)
    except ValueError:
        return None
    if not isinstance(state, dict):
        return None
    fields = cast("dict[str, object]", state)
    carried, pending = fields.get("answers"), fields.get("pending")
    if fields.get("elicitkit") != _STATE_VERSION or not isinstance(carried, dict):
        return None
    answers = {
        key: cast("Mapping[str, Any]", value)
        for key, value in cast("dict[object, object]", carried).items()
        if isinstance(key, str) and isinstance(value, Mapping)
    }
    return answers, pending if isinstance(pending, str) else None
