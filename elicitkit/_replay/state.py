"""Replay on MCP 2026-07-28: questions, their keys, and the answers carried across rounds.

On 2026-07-28 a server cannot send a request in the middle of a tool call. The first
unanswered ``ask()`` ends the run (`NeedInput`); the integration returns an
``InputRequiredResult`` holding the question(s), and the client retries the whole call with
the answers. The tool then runs again from the top, and every ``ask()`` already answered
returns its answer at once. The client sends back only the latest round's answers, so
earlier ones travel in ``requestState`` (sealed and bound to the call by the SDK).

The state (version 2) is one JSON object with short keys; unknown keys are ignored, so a
later version can add fields, and a different ``v`` is not ours::

    {"v": 2,                      # format version
     "d": "<22 chars>",           # the dialogue id: 128 random bits, minted in round one
     "r": 3,                      # rounds asked so far (InputRequiredResults returned)
     "s": 1,                      # the outcome store opened this dialogue in round one, so
                                  #   a store without a trace of it has lost it (optional:
                                  #   states of versions before it mean "unknown")
     "t": 1796000000.25,          # when the last round asked (Unix seconds; optional)
     "a": [[key, digest, "a", [value, ...]], ...],  # answers: accept/decline/cancel,
                                  #   accepted content as the form's wire values in field
                                  #   order (null: absent), validated, nothing else; or
                                  #   "i" (invalid) with its [[field, message], ...] and
                                  #   optionally the values that passed, kept as the
                                  #   re-ask's defaults; or "t" (timed out)
     "u": {key: id, ...},         # URL-mode questions' correlation ids (optional)
     "x": [[key, digest, outcome], ...],  # durable steps done so far (optional): the
                                  #   digest of the function and its arguments, and the
                                  #   outcome, {"r": value} or {"e": {"t": type, "m": text}}
     "p": [[key, digest, deadline], ...]}  # the questions the last round asked, each with
                                  #   the Unix time after which its answer is too late
                                  #   (optional: no deadline)

A digest is 10 base64url characters of the SHA-256 of the rendered question (message and
schema), so an answer is only ever taken for the very question it was given for. When
the JSON passes 1 KiB and zlib makes it shorter, the state is ``"z"`` followed by its
base64url-compressed form.

Nothing here knows an SDK: integrations hand in the raw ``inputResponses`` and the
plaintext ``requestState``, and turn a `NeedInput` into their SDK's result type.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import elicitkit._clock as clock
from elicitkit._replay.limits import ReplayLimits
from elicitkit.errors import StateTooLarge, TooManyRounds

STATE_VERSION = 2
# "invalid": an accepted answer that failed the form's checks; its values are the field
# errors, so every later round raises the very same `InvalidContent` at that ask().
# "timeout": the answer came after the question's deadline.
_ACTIONS = {"accept": "a", "decline": "d", "cancel": "c", "invalid": "i", "timeout": "t"}
_ACTION_NAMES = {code: name for name, code in _ACTIONS.items()}
_COMPRESSED = "z"
# A sealed state is ours, so this only bounds a decompression against our own mistakes.
_MAX_PLAIN_BYTES = 16 * 1024 * 1024


# Plain constructors for the per-round dataclasses' fields: ``dict[str, X]()`` (a generic
# alias) costs ten times ``{}``, and a round makes several of these objects.
def _new_list() -> list[Any]:
    return []


def _new_dict() -> dict[Any, Any]:
    return {}


@dataclass(frozen=True)
class WireQuestion:
    """One question as it goes on the wire.

    Attributes:
        key: Its key in ``inputRequests`` / ``inputResponses``.
        digest: The digest of the rendered question (``_compiler.prepared_form.question_digest``).
        params: The ``elicitation/create`` params.
        timeout: Seconds the user has to answer, or ``None`` for no limit.
    """

    key: str
    digest: str
    params: dict[str, Any]
    timeout: float | None = None


class NeedInput(BaseException):
    """Ends a tool run at its first unanswered question(s) on 2026-07-28.

    A `BaseException`, so that a tool's ``except Exception:`` cannot swallow it on its way
    to the integration, which turns it into an ``InputRequiredResult``.

    Attributes:
        questions: The questions to ask in this round, in order.
        state: The next round's ``requestState`` for exactly these questions.
    """

    def __init__(self, questions: tuple[WireQuestion, ...], state: str) -> None:
        """Carry the round's questions and the state that goes with them."""
        super().__init__(", ".join(question.key for question in questions))
        self.questions = questions
        self.state = state


@dataclass(slots=True)
class Carried:
    """An answer carried in the state.

    Attributes:
        digest: The digest of the question it answers.
        action: ``"accept"``, ``"decline"``, ``"cancel"``, or ``"invalid"`` for an accepted
            answer that failed the form's checks.
        values: The accepted content as wire values in the form's field order (``None``
            where absent); for ``"invalid"``, the ``[field, message]`` of each error;
            empty otherwise.
        kept: For ``"invalid"``: the wire values that passed, in field order (``None``
            where not kept), offered as defaults when the question is asked again.
    """

    digest: str
    action: str
    values: list[Any] = field(default_factory=_new_list)
    kept: list[Any] = field(default_factory=_new_list)


@dataclass
class CarriedStep:
    """A durable step's outcome carried in the state.

    Attributes:
        digest: 10 base64url characters of the SHA-256 of the function's qualified name and
            its arguments' JSON: a later round that calls the key with another function or
            other arguments is refused instead of given this outcome.
        outcome: ``{"r": value}`` (the result as `elicitkit._runtime.step_values` wrote it)
            or ``{"e": {"t": "module:Qualname", "m": text}}`` (what the function raised).
    """

    digest: str
    outcome: dict[str, Any]


@dataclass
class Replay:
    """One round of a dialogue: what it carries in, and what the next round carries.

    Attributes:
        dialogue: The dialogue's id, or ``None`` in round one (minted when first needed).
        known: The state says the outcome store opened the dialogue. Every state this
            version writes says so: the integration opens the dialogue before the state
            leaves the server, and refuses the round if it cannot.
        rounds: How many rounds of questions the dialogue has returned so far.
        answers: Answers by question key: those carried in, plus those taken this round.
        pending: The questions the previous round asked, key to digest.
        deadlines: The Unix time after which each pending question's answer is too late.
        asked_at: When the previous round asked (Unix seconds), if known.
        correlations: The correlation id of each URL-mode question, by key.
        responses: The request's raw ``inputResponses``.
        limits: The caps this dialogue runs under.
        steps: The durable steps done so far, by key: carried in, plus this round's.
    """

    dialogue: str | None = None
    known: bool = False
    rounds: int = 0
    answers: dict[str, Carried] = field(default_factory=_new_dict)
    pending: dict[str, str] = field(default_factory=_new_dict)
    deadlines: dict[str, float] = field(default_factory=_new_dict)
    asked_at: float | None = None
    correlations: dict[str, str] = field(default_factory=_new_dict)
    responses: Mapping[object, object] = field(default_factory=_new_dict)
    limits: ReplayLimits = field(default_factory=ReplayLimits)
    steps: dict[str, CarriedStep] = field(default_factory=_new_dict)
    # The carried answers as they came in: their JSON array, exactly as the state held it,
    # and the `Carried` objects read from it, in order. When this round only adds answers
    # after them, the next state reuses the text instead of serialising every earlier
    # answer again: each round of a long dialogue would otherwise re-encode them all.
    _answers_json: str | None = field(default=None, repr=False, compare=False)
    _answers_read: tuple[tuple[str, Carried], ...] = field(default=(), repr=False, compare=False)

    @classmethod
    def from_request(
        cls, input_responses: object, request_state: object, limits: ReplayLimits | None = None
    ) -> Replay:
        """Read a round's answers.

        Args:
            input_responses: The request's raw ``inputResponses`` (``None`` in round one).
            request_state: The plaintext ``requestState``, already verified by the SDK.
            limits: The caps (default: `ReplayLimits()`).

        A state elicitkit did not write carries nothing, and then no response is taken
        either: only the answer to a question elicitkit asked in the previous round is.
        """
        limits = limits or ReplayLimits()
        state = _decode_state(request_state)
        if state is None:
            return cls(limits=limits)
        responses = (
            cast("Mapping[object, object]", input_responses)
            if state.pending and isinstance(input_responses, Mapping)
            else _new_dict()
        )
        return cls(
            dialogue=state.dialogue,
            known=state.known,
            rounds=state.rounds,
            answers=state.answers,
            pending=state.pending,
            deadlines=state.deadlines,
            asked_at=state.asked_at,
            correlations=state.correlations,
            responses=responses,
            limits=limits,
            steps=state.steps,
            _answers_json=state.answers_json,
            _answers_read=tuple(state.answers.items()) if state.answers_json is not None else (),
        )

    def carried(self, key: str, digest: str) -> Carried | None:
        """Return the carried answer to this very question, if there is one."""
        answer = self.answers.get(key)
        return answer if answer is not None and answer.digest == digest else None

    def response(self, key: str, digest: str) -> Mapping[str, Any] | None:
        """Return the client's raw answer to this question, if the last round asked it."""
        if self.pending.get(key) != digest:
            return None
        answer = self.responses.get(key)
        return cast("Mapping[str, Any]", answer) if isinstance(answer, Mapping) else None

    def keep(self, key: str, answer: Carried) -> None:
        """Carry a checked answer into the next round."""
        self.answers[key] = answer

    def next_state(self, questions: Sequence[WireQuestion]) -> str:
        """Encode the ``requestState`` of the round that asks ``questions``.

        Raises:
            TooManyRounds: The dialogue would exceed ``limits.max_rounds``.
            StateTooLarge: The state would exceed ``limits.max_state_bytes``.
        """
        rounds = self.rounds + 1
        limits = self.limits
        if rounds > limits.max_rounds:
            raise TooManyRounds(
                f"This call would ask round {rounds} of questions, over elicitkit's limit of "
                f"{limits.max_rounds} rounds per call, so it stops here instead of asking "
                "forever. Ask fewer questions per call, batch them with ask_all(), or raise "
                "ReplayLimits(max_rounds=...) in install()."
            )
        if self.dialogue is None:
            self.dialogue = secrets.token_urlsafe(16)
        now = clock.now()
        # The answers go first, so the next round can find their JSON text (`_decode_state`).
        answers = self._answers_text()
        state: dict[str, Any] = {
            "v": STATE_VERSION,
            "d": self.dialogue,
            "r": rounds,
            "s": 1,
            "t": round(now, 3),
            **({"u": self.correlations} if self.correlations else {}),
            **(
                {"x": [[k, s.digest, s.outcome] for k, s in self.steps.items()]}
                if self.steps
                else {}
            ),
            "p": [
                [question.key, question.digest]
                if question.timeout is None
                else [question.key, question.digest, round(now + question.timeout, 3)]
                for question in questions
            ],
        }
        encoded = _encode(_ANSWERS_FIRST + answers + "," + _dumps(state)[1:])
        if len(encoded) > limits.max_state_bytes:
            if self.steps:
                key, size = max(
                    (
                        (k, len(json.dumps(s.outcome, separators=(",", ":"))))
                        for k, s in self.steps.items()
                    ),
                    key=lambda pair: pair[1],
                )
                raise StateTooLarge(
                    f"The answers and step results this call carries between rounds take "
                    f"{len(encoded)} bytes, over elicitkit's limit of {limits.max_state_bytes} "
                    f"bytes of requestState (the largest, step {key!r}, takes {size} bytes), so "
                    "it cannot ask another question. Return less from the step (an id rather "
                    "than the whole record), or raise ReplayLimits(max_state_bytes=...) in "
                    "install()."
                )
            raise StateTooLarge(
                f"The answers this call carries between rounds take {len(encoded)} bytes, "
                f"over elicitkit's limit of {limits.max_state_bytes} bytes of requestState, "
                "so it cannot ask another question. Ask for less in one call, or raise "
                "ReplayLimits(max_state_bytes=...) in install()."
            )
        return encoded

    def _answers_text(self) -> str:
        """The JSON array of the answers to carry: earlier rounds' text, then this round's."""
        answers = self.answers
        read = self._answers_read
        text = self._answers_json
        if text is not None and len(answers) >= len(read):
            carried = iter(answers.items())
            # The same keys and objects, in the same order: nothing read was replaced or
            # removed (`keep` of a key already carried puts a new object in its place).
            for key, answer in read:
                now_key, now_answer = next(carried)
                if now_key != key or now_answer is not answer:
                    break
            else:
                new = [_dumps(_answer_entry(key, answer)) for key, answer in carried]
                if not new:
                    return text
                return text[:-1] + ("," if read else "") + ",".join(new) + "]"
        return _dumps([_answer_entry(key, answer) for key, answer in answers.items()])


def _answer_entry(key: str, answer: Carried) -> list[Any]:
    entry: list[Any] = [key, answer.digest, _ACTIONS[answer.action]]
    if answer.values or answer.kept:
        entry.append(_trimmed(answer.values))
    if answer.kept:
        entry.append(_trimmed(answer.kept))
    return entry


def _trimmed(values: list[Any]) -> list[Any]:
    """Drop trailing absent values: they decode the same and cost bytes every round."""
    end = len(values)
    while end and values[end - 1] is None:
        end -= 1
    return values[:end]


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# How every state this version writes begins: its answers, then the other fields.
_ANSWERS_FIRST = '{"a":'
_DECODER = json.JSONDecoder()


def _encode(plain: str) -> str:
    if len(plain) < _WORTH_COMPRESSING:
        return plain
    # Level 1: every round compresses every carried answer again, and on varied answers it
    # is 2.5x faster than level 6 for 5 % more bytes (8 KB of JSON: 32 µs, 3,735 bytes;
    # level 6: 80 µs, 3,562 bytes).
    packed = _COMPRESSED + base64.urlsafe_b64encode(zlib.compress(plain.encode(), 1)).decode()
    # The SDK embeds the state as a JSON string, where every '"' costs a backslash more.
    return packed if len(packed) < len(plain) + plain.count('"') else plain


# Below this a state goes as it is. Compressing pays in bytes, never in CPU: in a real round
# zlib runs cold, about 25 µs for 0.5 to 2 KB (7 µs in a `timeit` loop), and the bytes it
# saves on a short state cost less to carry (in memory, 3 and 10 asks became about 0.1x of
# hand-written cheaper; over HTTP, 10 asks did not get dearer). Above it, the bytes matter:
# 20 varied answers seal to 3,042 bytes, 4,327 uncompressed (5 answers: 1,393 instead of
# 1,143). Measured in `benchmarks/README.md` (issue 22, second session).
_WORTH_COMPRESSING = 1024


class _Decoded(NamedTuple):
    """A decoded ``requestState``: the fields of `DialogueState` it carries."""

    dialogue: str
    known: bool
    rounds: int
    answers: dict[str, Carried]
    pending: dict[str, str]
    deadlines: dict[str, float]
    asked_at: float | None
    correlations: dict[str, str]
    steps: dict[str, CarriedStep]
    answers_json: str | None


def _decode_state(request_state: object) -> _Decoded | None:
    if not isinstance(request_state, str):
        return None
    plain = request_state
    if plain.startswith(_COMPRESSED):
        try:
            inflater = zlib.decompressobj()
            data = inflater.decompress(base64.urlsafe_b64decode(plain[1:]), _MAX_PLAIN_BYTES)
            plain = data.decode()
        except (binascii.Error, ValueError, zlib.error):
            return None
    try:
        state, answers_json = _parse(plain)
    except ValueError:
        return None
    if not isinstance(state, dict):
        return None
    fields = cast("dict[str, Any]", state)
    dialogue, rounds = fields.get("d"), fields.get("r")
    if fields.get("v") != STATE_VERSION or not isinstance(dialogue, str):
        return None
    if not isinstance(rounds, int):
        return None
    answers: dict[str, Carried] = {}
    entries = _list(fields.get("a"))
    # Every round reads every carried answer: one unpacking per entry, no index lookups.
    for entry in entries:
        size = len(entry)
        if size == 4:
            key, digest, code, values = entry
            kept: Any = []
        elif size == 3:
            key, digest, code = entry
            values, kept = [], []
        elif size == 5:
            key, digest, code, values, kept = entry
        else:
            continue
        action = _ACTION_NAMES.get(code) if isinstance(code, str) else None
        if (
            action is not None
            and isinstance(key, str)
            and isinstance(digest, str)
            and isinstance(values, list)
            and isinstance(kept, list)
        ):
            answers[key] = Carried(
                digest, action, cast("list[object]", values), cast("list[object]", kept)
            )
    pending: dict[str, str] = {}
    deadlines: dict[str, float] = {}
    for entry in _list(fields.get("p")):
        if len(entry) in (2, 3) and isinstance(entry[0], str) and isinstance(entry[1], str):
            pending[entry[0]] = entry[1]
            if len(entry) == 3 and isinstance(entry[2], int | float):
                deadlines[entry[0]] = float(entry[2])
    asked_at = fields.get("t")
    when = float(asked_at) if isinstance(asked_at, int | float) else None
    known = fields.get("s") == 1
    steps: dict[str, CarriedStep] = {}
    for entry in _list(fields.get("x")):
        if len(entry) == 3 and isinstance(entry[0], str) and isinstance(entry[1], str):  # noqa: SIM102
            if isinstance(entry[2], dict):
                steps[entry[0]] = CarriedStep(entry[1], cast("dict[str, Any]", entry[2]))
    if len(answers) != len(entries) or len(entries) != len(_list_or_empty(fields.get("a"))):
        answers_json = None  # not every entry was read as one answer: write them anew
    return _Decoded(
        dialogue=dialogue,
        known=known,
        rounds=rounds,
        answers=answers,
        pending=pending,
        deadlines=deadlines,
        asked_at=when,
        correlations=_correlations(fields.get("u")),
        steps=steps,
        answers_json=answers_json,
    )


def _parse(plain: str) -> tuple[object, str | None]:
    """The state's JSON, and the text of its answers array when the state begins with it.

    Same result as ``json.loads(plain)``: the answers array is parsed in place, then the
    rest of the object; a state written otherwise (an older elicitkit) is parsed whole.

    Raises:
        ValueError: ``plain`` is not JSON.
    """
    if not plain.startswith(_ANSWERS_FIRST + "["):
        return json.loads(plain), None
    answers, end = _DECODER.raw_decode(plain, len(_ANSWERS_FIRST))
    if plain[end : end + 2] != ',"':
        return json.loads(plain), None  # "a" alone, or not as written here: parsed whole
    rest = json.loads("{" + plain[end + 1 :])
    if not isinstance(rest, dict) or "a" in rest:
        return json.loads(plain), None  # a second "a" wins, as in json.loads
    fields = cast("dict[str, Any]", rest)
    fields["a"] = answers
    return fields, plain[len(_ANSWERS_FIRST) : end]


def _list_or_empty(value: object) -> list[object]:
    return cast("list[object]", value) if isinstance(value, list) else []


def _correlations(value: object) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    pairs = cast("dict[object, object]", value).items()
    return {k: v for k, v in pairs if isinstance(k, str) and isinstance(v, str)}


def _list(value: object) -> list[list[Any]]:
    if not isinstance(value, list):
        return []
    entries: list[Any] = value  # pyright: ignore[reportUnknownVariableType]  (JSON: Any)
    return [entry for entry in entries if isinstance(entry, list)]
