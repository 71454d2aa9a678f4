"""An answer outside a choice's options: the message names the options as the person saw them."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest

from elicitkit import FormField, InvalidContent, Overrides, ask, parse_content
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.testing import ScriptedUser, accept, connect
from tests.forms import one_field_form
from tests.sdks import new_server


class Region(enum.Enum):
    EU = "eu"
    US = "us"
    __labels__ = {"EU": "Europe", "US": "Americas"}


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


def _problem(annotation: Any, answer: object, protocol: str, **options: Any) -> str:
    with pytest.raises(InvalidContent) as caught:
        parse_content(one_field_form(annotation), {"answer": answer}, protocol=protocol, **options)
    [error] = caught.value.errors
    return error.message


SINGLE = [
    pytest.param(
        Region,
        "ap",
        "Must be one of \"Europe\" ('eu'), \"Americas\" ('us'); got 'ap'.",
        id="labels",
    ),
    pytest.param(Literal["eu", "us"], "ap", "Must be one of 'eu', 'us'; got 'ap'.", id="no labels"),
    pytest.param(Level, "3", "Must be one of '1', '2'; got '3'.", id="int values"),
    pytest.param(Literal["eu"], "us", "Must be 'eu'; got 'us'.", id="one option"),
    pytest.param(
        Annotated[Literal["eu"], FormField(labels={"eu": "Europe"})],
        "us",
        "Must be \"Europe\" ('eu'); got 'us'.",
        id="one labelled option",
    ),
    pytest.param(
        Annotated[Literal["eu", "us"], FormField(labels={"eu": "Europe"})],
        "ap",
        "Must be one of \"Europe\" ('eu'), 'us'; got 'ap'.",
        id="a label that is the value itself",
    ),
    pytest.param(
        Annotated[Region, FormField(label_style="enumNames")],
        "ap",
        "Must be one of \"Europe\" ('eu'), \"Americas\" ('us'); got 'ap'.",
        id="labels as enumNames",
    ),
    pytest.param(
        Annotated[Literal["a"], FormField(labels={"a": "x" * 80})],
        "b",
        f"Must be \"{'x' * 57}...\" ('a'); got 'b'.",
        id="a long label, shortened",
    ),
]


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(("annotation", "answer", "message"), SINGLE)
def test_single_choice_names_what_the_person_saw(
    protocol: str, annotation: Any, answer: object, message: str
) -> None:
    assert _problem(annotation, answer, protocol) == message


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("annotation", "answer", "message"),
    [
        pytest.param(
            list[Region],
            ["eu", "ap"],
            "Every option must be one of \"Europe\" ('eu'), \"Americas\" ('us'); got 'ap'.",
            id="labels",
        ),
        pytest.param(
            list[Literal["eu", "us"]],
            ["ap"],
            "Every option must be one of 'eu', 'us'; got 'ap'.",
            id="no labels",
        ),
        pytest.param(
            list[Literal["eu"]], ["us"], "Every option must be 'eu'; got 'us'.", id="one option"
        ),
    ],
)
def test_multi_select_names_what_the_person_saw(
    protocol: str, annotation: Any, answer: object, message: str
) -> None:
    assert _problem(annotation, answer, protocol) == message


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
def test_per_call_labels_are_the_ones_named(protocol: str) -> None:
    relabelled = Overrides(choices={"answer": {Region.EU: "EU only"}})
    assert _problem(Region, "us", protocol, overrides=relabelled) == (
        "Must be \"EU only\" ('eu'); got 'us'."
    )
    text = Overrides(choices={"answer": {"oslo": "Oslo", "bergen": "Bergen"}})
    assert _problem(str, "rome", protocol, overrides=text) == (
        "Must be one of \"Oslo\" ('oslo'), \"Bergen\" ('bergen'); got 'rome'."
    )


@dataclass
class Trip:
    region: Region


@pytest.mark.anyio
@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
async def test_the_re_ask_quotes_the_labels(sdk: str, protocol: str) -> None:
    server = new_server(sdk, "choices")

    @server.tool()
    async def trip() -> str:
        try:
            answer = await ask(Trip, "Where to?", retries=1)
        except InvalidContent as problem:
            return str(problem.errors[0])
        return repr(answer.unwrap())

    user = ScriptedUser(accept(region="ap"), accept(region="mars"))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("trip", {})
    expected = "Must be one of \"Europe\" ('eu'), \"Americas\" ('us'); got"
    assert user.messages[1] == f"Where to?\n\nPlease correct your answer. Region: {expected} 'ap'."
    assert result.content[0].text == f"region: {expected} 'mars'."  # type: ignore[union-attr]
