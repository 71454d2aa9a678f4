"""The carried answers' JSON is reused from round to round, and read exactly as before.

Each round of a 2026-07-28 dialogue writes the answers of every earlier round again. The
state puts them first (``{"a":[...],...}``), so the next round keeps their text and only
appends its own; these tests pin that the text it keeps is exactly what it read, and that
anything else (an older layout, a replaced answer, an entry it could not read) is written
anew from the parsed answers.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import pytest

from elicitkit._replay.state import Carried, Replay, WireQuestion, _parse

PROFILE = ["Ada", "Oslo", 36, 1.7, True, "green", "1990-12-10", "ada", None, None]


def plain_of(state: str) -> str:
    """The state's JSON, inflated if it was compressed."""
    if state.startswith("z"):
        return zlib.decompress(base64.urlsafe_b64decode(state[1:])).decode()
    return state


def answers_of(state: str) -> dict[str, tuple[str, str, list[Any], list[Any]]]:
    replay = Replay.from_request(None, state)
    return {
        key: (answer.digest, answer.action, answer.values, answer.kept)
        for key, answer in replay.answers.items()
    }


def question(key: str) -> list[WireQuestion]:
    return [WireQuestion(key, "digest-" + key[-1], {})]


def one_round(state: str, key: str, answer: Carried) -> str:
    """Read ``state`` with this round's ``answer`` taken, and write the next round's."""
    replay = Replay.from_request({}, state)
    replay.keep(key, answer)
    return replay.next_state(question(key + "+"))


def test_each_round_appends_its_answer_to_the_carried_ones() -> None:
    first = Replay()
    state = first.next_state(question("q0"))
    expected: dict[str, tuple[str, str, list[Any], list[Any]]] = {}
    for index in range(30):
        values = [f"name {index}", "Oslo", index, 1.5, index % 2 == 0, "red", None]
        action = ("accept", "decline", "cancel")[index % 3]
        carried = Carried(f"d{index}", action, values if action == "accept" else [])
        state = one_round(state, f"q{index}", carried)
        trimmed = values[:-1] if action == "accept" else []
        expected[f"q{index}"] = (f"d{index}", action, trimmed, [])
        assert answers_of(state) == expected
    # The same answers written from scratch read the same.
    fresh = Replay()
    for key, (digest, action, values, kept) in expected.items():
        fresh.keep(key, Carried(digest, action, values, kept))
    assert answers_of(fresh.next_state(question("q"))) == expected
    assert plain_of(state).startswith('{"a":[["q0","d0","a",["name 0",')


def test_a_state_in_the_older_layout_is_read_and_written_anew() -> None:
    older = json.dumps(
        {
            "v": 2,
            "d": "dialogue-id-0123456789",
            "r": 1,
            "s": 1,
            "a": [["q0", "d0", "a", PROFILE[:8]]],
            "p": [["q1", "d1"]],
        },
        separators=(",", ":"),
    )
    state = one_round(older, "q1", Carried("d1", "decline"))
    assert answers_of(state) == {
        "q0": ("d0", "accept", PROFILE[:8], []),
        "q1": ("d1", "decline", [], []),
    }
    assert Replay.from_request(None, state).dialogue == "dialogue-id-0123456789"


def test_an_answer_replaced_in_this_round_is_written_as_it_is_now() -> None:
    replay = Replay()
    replay.keep("q0", Carried("d0", "accept", ["old"]))
    replay.keep("q1", Carried("d1", "accept", ["kept"]))
    state = replay.next_state(question("q2"))
    state = one_round(state, "q0", Carried("d0", "invalid", [["name", "too short"]], ["x"]))
    assert answers_of(state) == {
        "q0": ("d0", "invalid", [["name", "too short"]], ["x"]),
        "q1": ("d1", "accept", ["kept"], []),
    }
    assert '"old"' not in plain_of(state)


def test_entries_that_are_not_answers_are_dropped_not_carried_on() -> None:
    state = json.dumps(
        {
            "a": [
                ["q0", "d0", "a", ["ok"]],
                ["q1", "d1", "?", ["unknown action"]],
                "not an entry",
                ["q2", "d2", "a", "not a list"],
                ["q0", "d0", "d"],
            ],
            "v": 2,
            "d": "dialogue-id-0123456789",
            "r": 1,
            "p": [["q3", "d3"]],
        },
        separators=(",", ":"),
    )
    written = plain_of(one_round(state, "q3", Carried("d3", "cancel")))
    assert answers_of(written) == {"q0": ("d0", "decline", [], []), "q3": ("d3", "cancel", [], [])}
    for dropped in ("unknown action", "not an entry", "not a list"):
        assert dropped not in written


@pytest.mark.parametrize(
    "text",
    [
        '{"a":[],"v":2}',
        '{"a":[1]}',
        '{"a":[["k","d","a"]],"a":[]}',
        '{"a":[["k","d","a"]] ,"v":2}',
        '{"a":[["k","d","a"]],"v":2,"a":[["j","e","d"]]}',
        '{"a":[["k","d","a"]],}',
        '{"a":[["k","d","a"]],"v":2} trailing',
        '{"a":[["k","d","a"]],"v":2',
        '{"a":[["k","d","a"]',
        '{"a":["]",",\\"v\\":3}"],"v":2}',
        '{"a":[]}',
        '{"a":{"k":1},"v":2}',
        "[1,2]",
    ],
)
def test_the_state_parses_as_json_loads_does(text: str) -> None:
    try:
        expected: object = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            _parse(text)
        return
    parsed, answers_json = _parse(text)
    assert parsed == expected
    if answers_json is not None:
        assert isinstance(expected, dict)
        assert json.loads(answers_json) == expected["a"]
        assert text.startswith('{"a":' + answers_json + ",")


def test_a_state_is_compressed_only_once_its_json_passes_a_kilobyte() -> None:
    # Compressing costs about 25 µs of CPU a round and pays only in bytes, so a short
    # state goes as JSON; a long dialogue's still shrinks, and both read back the same.
    replay = Replay(dialogue="dialogue-id-0123456789", known=True, rounds=1)
    sizes: list[tuple[int, bool]] = []
    for index in range(20):
        replay.keep(f"q{index}", Carried(f"d{index}", "accept", [f"name {index}", *PROFILE]))
        state = replay.next_state(question("q+"))
        sizes.append((len(plain_of(state)), state.startswith("z")))
        assert len(answers_of(state)) == index + 1
    assert all(not packed for plain, packed in sizes if plain < 1024)
    assert all(packed for plain, packed in sizes if plain >= 1024)
    assert sizes[0][1] is False
    assert sizes[-1][1] is True
