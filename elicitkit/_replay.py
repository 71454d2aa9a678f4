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
        answers: Raw ``ElicitResult`` objects by question key: those carried in
            ``requestState`` plus this round's ``inputResponses``.
    """

    answers: dict[str, Mapping[str, Any]] = field(default_factory=dict[str, Mapping[str, Any]])

    @classmethod
    def from_request(cls, input_responses: object, request_state: object) -> Replay:
        """Collect the answers of a retry.

        Args:
            input_responses: The request's raw ``inputResponses`` (``None`` on round one).
            request_state: The plaintext ``requestState``, already verified by the SDK.

        Only keys elicitkit minted are kept: the spec says to ignore what a server does not
        recognise. A state elicitkit did not write carries no answers.
        """
        answers: dict[str, Mapping[str, Any]] = {}
        if isinstance(request_state, str):
            try:
                state = json.loads(request_state)
            except ValueError:
                state = None
            if isinstance(state, dict):
                fields = cast("dict[str, object]", state)
                carried = fields.get("answers")
                if fields.get("elicitkit") == _STATE_VERSION and isinstance(carried, dict):
                    answers.update(_ours(cast("dict[object, object]", carried)))
        if isinstance(input_responses, Mapping):
            answers.update(_ours(cast("Mapping[object, object]", input_responses)))
        return cls(answers)

    def answer(self, key: str) -> Mapping[str, Any] | None:
        """Return the raw answer to a question, or ``None`` if it has not been answered."""
        return self.answers.get(key)

    def next_state(self) -> str:
        """The ``requestState`` for the next round: every answer so far."""
        return json.dumps(
            {"elicitkit": _STATE_VERSION, "answers": self.answers}, separators=(",", ":")
        )


def _ours(raw: Mapping[object, object]) -> dict[str, Mapping[str, Any]]:
    return {
        key: cast("Mapping[str, Any]", value)
        for key, value in raw.items()
        if isinstance(key, str) and key.startswith(f"{_KEY_PREFIX}:") and isinstance(value, Mapping)
    }
