"""ask() inside prompt and resource handlers, on both SDKs and eras, with the at-most-once rule."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from elicitkit import ask
from tests.mrtr import accept, never_called
from tests.sdks import in_memory, new_server

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Topic:
    topic: str


class Library:
    """A prompt and a resource that each ask once, then do their one side effect."""

    def __init__(self, sdk: str) -> None:
        self.server = new_server(sdk, "library")
        self.effects: list[str] = []

        @self.server.prompt()
        async def brainstorm() -> str:
            topic = await ask(Topic, "Brainstorm about what?", key="topic")
            assert topic.content is not None
            self.effects.append(f"prompt {topic.content.topic}")
            return f"Ideas about {topic.content.topic}"

        @self.server.resource("notes://today")
        async def notes() -> str:
            topic = await ask(Topic, "Notes on what?", key="topic")
            assert topic.content is not None
            self.effects.append(f"resource {topic.content.topic}")
            return f"Notes on {topic.content.topic}"


def prompt_text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent)
    return content.text


def resource_text(result: types.ReadResourceResult) -> str:
    content = result.contents[0]
    assert isinstance(content, types.TextResourceContents)
    return content.text


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
async def test_ask_in_a_prompt_and_a_resource_on_every_era(
    sdk: str, mode: Literal["legacy", "auto"]
) -> None:
    library = Library(sdk)
    shown: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params.message)
        return accept(topic="owls")

    async with Client(in_memory(library.server), elicitation_callback=answer, mode=mode) as client:
        prompt = await client.get_prompt("brainstorm")
        resource = await client.read_resource("notes://today")
    assert prompt_text(prompt) == "Ideas about owls"
    assert resource_text(resource) == "Notes on owls"
    assert shown == ["Brainstorm about what?", "Notes on what?"]
    assert library.effects == ["prompt owls", "resource owls"]


async def test_a_replayed_final_round_of_a_prompt_or_resource_runs_once(sdk: str) -> None:
    library = Library(sdk)
    async with Client(in_memory(library.server), elicitation_callback=never_called) as client:
        session = client.session
        first = await session.get_prompt("brainstorm", allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        assert first.input_requests is not None
        assert list(first.input_requests) == ["topic"]
        prompts = [  # the same final round, then another answer
            await session.get_prompt(
                "brainstorm",
                input_responses={"topic": accept(topic=topic)},
                request_state=first.request_state,
                allow_input_required=True,
            )
            for topic in ("owls", "bats")
        ]
        read = await session.read_resource("notes://today", allow_input_required=True)
        assert isinstance(read, types.InputRequiredResult)
        resources = [
            await session.read_resource(
                "notes://today",
                input_responses={"topic": accept(topic=topic)},
                request_state=read.request_state,
                allow_input_required=True,
            )
            for topic in ("owls", "bats")
        ]
    assert [prompt_text(result) for result in prompts] == ["Ideas about owls"] * 2
    assert [resource_text(result) for result in resources] == ["Notes on owls"] * 2
    assert library.effects == ["prompt owls", "resource owls"]


UNSUPPORTED = (
    "This client cannot show forms (it did not declare the elicitation capability), so the "
    "tool could not ask the user for Topic."
)


DECLINED = "The user declined the form."
INTERNAL, MISSING = types.INTERNAL_ERROR, types.MISSING_REQUIRED_CLIENT_CAPABILITY


@pytest.mark.parametrize(
    ("mode", "declines", "code", "message"),
    [
        pytest.param("legacy", True, INTERNAL, DECLINED, id="decline-2025-11-25"),
        pytest.param("auto", True, INTERNAL, DECLINED, id="decline-2026-07-28"),
        pytest.param("legacy", False, INTERNAL, UNSUPPORTED, id="no-forms-2025-11-25"),
        pytest.param("auto", False, MISSING, UNSUPPORTED, id="no-forms-2026-07-28"),  # the spec's
    ],
)
async def test_an_uncaught_error_in_a_prompt_or_resource_keeps_its_text(
    sdk: str, mode: Literal["legacy", "auto"], declines: bool, code: int, message: str
) -> None:
    """Both SDKs pass on only an MCPError's text from these handlers: elicitkit's becomes one.

    (MCPServer used to answer "Error rendering prompt brainstorm" with code 0, and "Internal
    server error" on 2026-07-28.)
    """
    server = new_server(sdk, "strict")

    @server.prompt()
    async def brainstorm() -> str:
        return (await ask(Topic, "Brainstorm about what?")).unwrap().topic

    @server.resource("notes://today")
    async def notes() -> str:
        return (await ask(Topic, "Notes on what?")).unwrap().topic

    async def decline(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    callback = decline if declines else None  # None: no elicitation capability
    async with Client(in_memory(server), elicitation_callback=callback, mode=mode) as client:
        with pytest.raises(MCPError) as prompt:
            await client.get_prompt("brainstorm")
        with pytest.raises(MCPError) as resource:
            await client.read_resource("notes://today")
    assert (prompt.value.code, prompt.value.message) == (code, message)
    assert (resource.value.code, resource.value.message) == (code, message)
