"""ask(retries=...): an invalid answer is asked again, real SDK client, both SDKs and eras."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

import mcp_types as types
import pytest
from annotated_types import MinLen
from mcp import Client

from elicitkit import InvalidContent, Overrides, ask
from tests.sdks import ERAS, in_memory, new_server

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Address:
    street: str
    city: str
    zip_code: Annotated[str, MinLen(4)]


GOOD = {"street": "1 Main St", "city": "Oslo", "zip_code": "0150"}
BAD = {"street": "1 Main St", "zip_code": "01"}  # city missing, zip too short
PROBLEMS = (
    "Please correct your answer. City: This field is required. Zip code: Must be at least "
    "4 characters long."
)


class Answers:
    """An elicitation callback giving ``results`` in order, recording every request."""

    def __init__(self, *results: dict[str, Any]) -> None:
        self.results = list(results)
        self.seen: list[types.ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.seen.append(params)
        return types.ElicitResult.model_validate(self.results.pop(0))


def accept(content: dict[str, Any] | None) -> dict[str, Any]:
    return {"action": "accept"} if content is None else {"action": "accept", "content": content}


def make_server(sdk: str, effects: list[str], **ask_options: Any) -> Any:
    server = new_server(sdk, "retry")

    @server.tool()
    async def ship() -> str:
        go = await ask(bool, "Ship it?")
        try:
            answer = await ask(Address, "Where to?", **ask_options)
        except InvalidContent as error:
            return f"gave up: {error}"
        effects.append("shipped")  # the side effect: must happen at most once
        return f"{go.content} {answer.action}:{answer.content}"

    return server


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def run(
    sdk: str,
    mode: str,
    version: str,
    callback: Callable[..., Any],
    effects: list[str],
    **options: Any,
) -> str:
    server = in_memory(make_server(sdk, effects, **options))
    async with Client(server, mode=mode, elicitation_callback=callback) as client:
        assert client.protocol_version == version
        return text_of(await client.call_tool("ship", {}))


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_invalid_then_valid_reasks_with_the_errors_and_the_valid_parts(
    sdk: str, mode: str, version: str
) -> None:
    answers = Answers({"action": "accept", "content": {"value": True}}, accept(BAD), accept(GOOD))
    effects: list[str] = []
    text = await run(sdk, mode, version, answers, effects)
    assert text == "True accept:Address(street='1 Main St', city='Oslo', zip_code='0150')"
    assert effects == ["shipped"]  # once, on every era
    assert [params.message for params in answers.seen] == [
        "Ship it?",
        "Where to?",
        f"Where to?\n\n{PROBLEMS}",
    ]
    first, again = answers.seen[1].requested_schema, answers.seen[2].requested_schema
    assert "default" not in first["properties"]["street"]
    # The part that passed comes back as the default; the wrong ones do not.
    assert again["properties"]["street"]["default"] == "1 Main St"
    assert "default" not in again["properties"]["zip_code"]
    assert "default" not in again["properties"]["city"]
    assert {**again["properties"]["street"], "default": None} == {
        **first["properties"]["street"],
        "default": None,
    }


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_a_reask_names_the_fields_by_their_per_call_titles(
    sdk: str, mode: str, version: str
) -> None:
    answers = Answers({"action": "accept", "content": {"value": True}}, accept(BAD), accept(GOOD))
    titles = {"city": "Town", "zip_code": "Postcode"}
    text = await run(sdk, mode, version, answers, [], overrides=Overrides(titles=titles))
    assert text == "True accept:Address(street='1 Main St', city='Oslo', zip_code='0150')"
    assert answers.seen[2].message == (
        "Where to?\n\nPlease correct your answer. Town: This field is required. Postcode: "
        "Must be at least 4 characters long."
    )
    assert answers.seen[2].requested_schema["properties"]["city"]["title"] == "Town"


@pytest.mark.parametrize(("mode", "version"), ERAS)
@pytest.mark.parametrize(
    ("retries", "shown"), [pytest.param(0, 1, id="retries-0"), pytest.param(1, 2, id="retries-1")]
)
async def test_retries_exhausted_raise_invalid_content(
    sdk: str, mode: str, version: str, retries: int, shown: int
) -> None:
    answers = Answers({"action": "accept", "content": {"value": True}}, *[accept(BAD)] * shown)
    effects: list[str] = []
    text = await run(sdk, mode, version, answers, effects, retries=retries)
    assert text == (
        "gave up: The answer to Address has 2 problems: city: This field is required. "
        "zip_code: Must be at least 4 characters long."
    )
    assert effects == []
    assert len(answers.seen) == 1 + shown
    assert answers.results == []


@pytest.mark.parametrize(("mode", "version"), ERAS)
async def test_an_accept_without_content_is_asked_again_then_reported(
    sdk: str, mode: str, version: str
) -> None:
    """A Codex-like client accepts with no content: two re-asks (the default), then the error."""
    answers = Answers({"action": "accept", "content": {"value": True}}, *[accept(None)] * 3)
    effects: list[str] = []
    text = await run(sdk, mode, version, answers, effects)
    assert text == (
        "gave up: The answer to Address has 3 problems: street: This field is required. "
        "city: This field is required. zip_code: This field is required."
    )
    again = (
        "Where to?\n\nPlease correct your answer. Street: This field is required. City: This "
        "field is required. Zip code: This field is required."
    )
    assert [params.message for params in answers.seen[1:]] == ["Where to?", again, again]


async def test_booleans_alone_are_kept_as_defaults_on_2025_06_18() -> None:
    """2025-06-18 has defaults on booleans only: the text that passed is not offered."""
    from elicitkit._compiler.compiled_forms import form_spec  # noqa: PLC0415
    from elicitkit._runtime.retries import kept_values  # noqa: PLC0415
    from elicitkit.errors import FieldError  # noqa: PLC0415

    @dataclasses.dataclass
    class Order:
        note: str
        gift: bool
        count: int

    errors = [FieldError("count", "Expected a whole number, got the text 'x'.")]
    content = {"note": "hi", "gift": True, "count": "x"}
    spec = form_spec(Order)
    assert kept_values(spec, content, errors, "2025-06-18") == [None, True]
    assert kept_values(spec, content, errors, "2025-11-25") == ["hi", True]


@pytest.mark.parametrize(
    ("retries", "message"),
    [
        pytest.param(
            -1,
            "ask() got retries=-1, which is not a whole number from 0 to 20. Pass how many "
            "times to ask again after an invalid answer, e.g. retries=2 (0: never).",
            id="negative",
        ),
        pytest.param(
            True,
            "ask() got retries=True, which is not a whole number from 0 to 20. Pass how many "
            "times to ask again after an invalid answer, e.g. retries=2 (0: never).",
            id="bool",
        ),
        pytest.param(
            21,
            "ask() got retries=21, which is not a whole number from 0 to 20. Pass how many "
            "times to ask again after an invalid answer, e.g. retries=2 (0: never).",
            id="too many",
        ),
        pytest.param(
            2.0,
            "ask() got retries=2.0, which is not a whole number from 0 to 20. Pass how many "
            "times to ask again after an invalid answer, e.g. retries=2 (0: never).",
            id="float",
        ),
    ],
)
async def test_a_bad_retries_value_is_refused(sdk: str, retries: Any, message: str) -> None:
    server = new_server(sdk, "bad")

    @server.tool()
    async def asker() -> str:
        try:
            await ask(bool, "Sure?", retries=retries)
        except ValueError as error:
            return str(error)
        return "asked"

    async with Client(in_memory(server), mode="legacy", elicitation_callback=Answers()) as client:
        assert text_of(await client.call_tool("asker", {})) == message
