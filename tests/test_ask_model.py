"""on_unsupported="ask_model": the listing, answer_form, tickets, at most once; both SDKs.

The official client connects without an elicitation callback (no capability), on 2025-11-25,
2026-07-28 and (tuned) 2025-06-18; a client that declares form mode (only) is shown the form
and never sees answer_form. Every test runs on MCPServer and on FastMCP.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import mcp_types as types
import pydantic
import pytest
from annotated_types import Ge, Le, MinLen
from fastmcp import FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.request_state import RequestStateSecurity

from elicitkit import ElicitResultTyped, Question, ask, ask_all, choose, confirm, install
from elicitkit._client.tuned_client import TunedClient
from elicitkit.integrations import client_target
from elicitkit.integrations._sdk_private import fastmcp_sdk_server
from elicitkit.testing import FakeClock
from elicitkit.url import ask_url
from tests.mrtr import accept, text_of
from tests.sdks import SDKS, tool_error

pytestmark = pytest.mark.anyio


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


@dataclasses.dataclass
class Address:
    street: str
    zip_code: Annotated[str, MinLen(4)]


@dataclasses.dataclass
class Parcel:
    size: Size
    weight: Annotated[int, Ge(1), Le(30)]
    gift: bool = False


@dataclasses.dataclass
class Note:
    text: str = "none"


@dataclasses.dataclass
class World:
    """What the tools did: the side effect and the body's runs."""

    shipped: list[str] = dataclasses.field(default_factory=list[str])
    runs: int = 0
    answers: list[ElicitResultTyped[Any]] = dataclasses.field(
        default_factory=list[ElicitResultTyped[Any]]
    )


def make_server(
    sdk: str,
    world: World,
    *,
    policy: str = "ask_model",
    name: str = "shop",
    security: RequestStateSecurity | None = None,
) -> Any:
    options: dict[str, Any] = {}
    if security is not None:
        options["request_state_security"] = security
    server: Any = MCPServer(name, **options) if sdk == "mcp" else FastMCP(name, **options)

    @server.tool()
    async def ship(item: str) -> str:
        world.runs += 1
        answer = await ask(Address, f"Where should we ship the {item}?")
        world.answers.append(answer)
        if not answer.is_accepted():
            return f"not shipped ({answer.action}, {answer.answered_by})"
        assert answer.content is not None
        world.shipped.append(item)
        return f"shipped {item} to {answer.content.street} ({answer.answered_by})"

    @server.tool()
    async def pack(item: str) -> str:
        world.runs += 1
        address, parcel = await ask_all(Address, Question(Parcel, "How big is it?"))
        a, p = address.unwrap(), parcel.unwrap()
        world.shipped.append(item)
        return f"{item}: {p.size.value} {p.weight}kg to {a.zip_code} ({parcel.answered_by})"

    @server.tool()
    async def strict(item: str) -> str:
        answer = await ask(Address, on_unsupported="raise")
        return f"asked: {answer.action}"

    @server.tool()
    async def post(item: str) -> str:
        world.runs += 1
        address = (await ask(Address, "Where to?")).unwrap()
        parcel = await ask(Parcel, "How big is it?")
        world.shipped.append(item)
        assert parcel.content is not None
        return f"{item}: {parcel.content.weight}kg to {address.zip_code} ({parcel.answered_by})"

    @server.tool()
    async def pick(item: str) -> str:
        colour = await choose("Which colour?", ["red", "blue"])
        return f"{item} in {colour}"

    @server.tool()
    async def wipe(item: str) -> str:
        if await confirm(f"Delete {item}?", on_unsupported="raise"):
            return "deleted"
        return "kept"

    @server.tool()
    async def modelled(item: str) -> str:
        answer = await ask(Address, on_unsupported="ask_model")
        return f"asked: {answer.action}"

    @server.tool()
    async def noted(item: str) -> str:
        answer = await ask(Note, on_unsupported="defaults")
        assert answer.content is not None
        return f"{answer.content.text} ({answer.answered_by})"

    @server.tool()
    async def noted_address(item: str) -> str:
        answer = await ask(Address, on_unsupported="defaults")
        return f"asked: {answer.action}"

    return install(server, on_unsupported=policy)  # type: ignore[call-overload]


ERAS = [
    pytest.param("2025-06-18", id="2025-06-18"),
    pytest.param("2025-11-25", id="2025-11-25"),
    pytest.param("2026-07-28", id="2026-07-28"),
]


@asynccontextmanager
async def no_forms(server: Any, era: str) -> AsyncGenerator[Client]:
    """The official client without an elicitation callback, speaking ``era``."""
    target = client_target(server)
    client: Client
    if era == "2025-06-18":
        client = TunedClient(target, mode="legacy", version="2025-06-18")
    else:
        client = Client(target, mode="legacy" if era == "2025-11-25" else "auto")
    async with client:
        yield client


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return dict(result.structured_content)


async def answer_address(client: Client, ticket: object) -> types.CallToolResult:
    """Pass ``ticket`` to answer_form with an address, as a model would."""
    return await client.call_tool(
        "answer_form", {"ticket": ticket, "answers": {"street": "a", "zip_code": "1234"}}
    )


@pytest.fixture(params=SDKS)
def sdk(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("era", ERAS)
async def test_listing_answer_and_at_most_once(sdk: str, era: str) -> None:
    world = World()
    server = make_server(sdk, world)
    async with no_forms(server, era) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "answer_form" in names
        first = await client.call_tool("ship", {"item": "lamp"})
        listing = structured(first)
        # ship declares an output schema (-> str, wrapped as {"result": string}) that admits
        # the listing with its text under result: a normal result, which the official client
        # checked against that schema before handing it over.
        assert not first.is_error
        assert listing["result"] == text_of(first)
        assert listing["status"] == "input_required"
        assert listing["tool"] == "ship"
        assert listing["answer_tool"] == "answer_form"
        (question,) = listing["questions"]
        assert question["key"] == "address#1"
        assert question["message"] == "Where should we ship the lamp?"
        assert question["fields"] == [
            {"name": "street", "type": "string", "title": "Street", "required": True},
            {
                "name": "zip_code",
                "type": "string",
                "title": "Zip code",
                "minLength": 4,
                "required": True,
            },
        ]
        assert question["requestedSchema"]["required"] == ["street", "zip_code"]
        text = text_of(first)
        assert "Do not guess, invent or fill in answers yourself." in text
        assert "  - zip_code (text, at least 4 characters, required)\n" in text
        assert text.endswith(f"ticket: {listing['ticket']}")
        assert world.shipped == []

        bad = await client.call_tool(
            "answer_form", {"ticket": listing["ticket"], "answers": {"street": "Elm 1"}}
        )
        again = structured(bad)
        assert not bad.is_error
        (asked_again,) = again["questions"]
        assert asked_again["key"] == "address#1~1"
        assert asked_again["corrections"] == [
            {"field": "zip_code", "message": "This field is required."}
        ]
        assert again["ticket"] != listing["ticket"]
        assert world.shipped == []

        good = await client.call_tool(
            "answer_form",
            {"ticket": again["ticket"], "answers": {"street": "Elm 1", "zip_code": "12345"}},
        )
        assert not good.is_error
        assert text_of(good) == "shipped lamp to Elm 1 (model)"
        assert world.answers[-1].answered_by_model()
        runs = world.runs

        # The same ticket again, or the first one of the dialogue: the recorded result, and
        # no second shipment (the body does not even run).
        for ticket in (again["ticket"], listing["ticket"]):
            resent = await client.call_tool(
                "answer_form",
                {"ticket": ticket, "answers": {"street": "Oak 2", "zip_code": "99999"}},
            )
            assert text_of(resent) == "shipped lamp to Elm 1 (model)"
        assert world.shipped == ["lamp"]
        assert world.runs == runs


@pytest.mark.parametrize("era", ERAS)
async def test_a_bad_answer_is_listed_with_its_corrections_once(sdk: str, era: str) -> None:
    server = make_server(sdk, World())
    async with no_forms(server, era) as client:
        first = await client.call_tool("ship", {"item": "lamp"})
        ticket = structured(first)["ticket"]
        bad = await client.call_tool(
            "answer_form", {"ticket": ticket, "answers": {"street": "Elm 1", "zip_code": "12"}}
        )
    (question,) = structured(bad)["questions"]
    # The problems are in corrections, and only there: not in the message as well.
    assert question["message"] == "Where should we ship the lamp?"
    assert question["corrections"] == [
        {"field": "zip_code", "message": "Must be at least 4 characters long."}
    ]
    text = text_of(bad)
    assert text.count("Must be at least 4 characters long.") == 1
    assert "Please correct your answer" not in text
    assert (
        "\n\nQuestion: Where should we ship the lamp?\n"
        "Corrections (the last answer was not accepted):\n"
        "  - zip_code: Must be at least 4 characters long.\n"
        "Fields:\n"
        '  - street (text, default "Elm 1", required)\n'
        "  - zip_code (text, at least 4 characters, required)\n\n"
    ) in text


def sdk_server(server: Any) -> Any:
    """The official SDK's server under ``server``, whose middleware list the runner calls."""
    return server if isinstance(server, MCPServer) else fastmcp_sdk_server(server)


@pytest.mark.parametrize("era", ERAS)
async def test_the_listing_carries_only_its_eras_fields(sdk: str, era: str) -> None:
    server = make_server(sdk, World())
    sent: list[dict[str, Any]] = []

    async def wire(ctx: Any, call_next: Any) -> Any:
        """Outermost: what the runner sends, dumped as the runner dumps it."""
        result = await call_next(ctx)
        if ctx.method == "tools/call":
            if isinstance(result, pydantic.BaseModel):
                sent.append(result.model_dump(by_alias=True, mode="json", exclude_none=True))
            else:
                sent.append(dict(result))
        return result

    sdk_server(server).middleware.insert(0, wire)
    async with no_forms(server, era) as client:
        first = await client.call_tool("ship", {"item": "lamp"})
        ticket = structured(first)["ticket"]
        await client.call_tool("answer_form", {"ticket": ticket, "answers": {"street": "Elm"}})
    listing, corrections = sent
    for result in (listing, corrections):
        assert result["structuredContent"]["status"] == "input_required"
        # resultType is a 2026-07-28 field: the 2025 eras' schemas have none.
        assert ("resultType" in result) is (era == "2026-07-28")


@pytest.mark.parametrize("era", ERAS)
async def test_decline_through_the_model(sdk: str, era: str) -> None:
    world = World()
    server = make_server(sdk, world)
    async with no_forms(server, era) as client:
        ticket = structured(await client.call_tool("ship", {"item": "lamp"}))["ticket"]
        result = await client.call_tool("answer_form", {"ticket": ticket, "action": "decline"})
    assert text_of(result) == "not shipped (decline, model)"
    assert world.shipped == []


@pytest.mark.parametrize("era", ERAS)
async def test_ask_all_goes_to_the_model_under_one_ticket(sdk: str, era: str) -> None:
    world = World()
    server = make_server(sdk, world)
    async with no_forms(server, era) as client:
        listing = structured(await client.call_tool("pack", {"item": "vase"}))
        assert [q["key"] for q in listing["questions"]] == ["address#1", "parcel#1"]
        parcel = listing["questions"][1]
        assert parcel["message"] == "How big is it?"
        assert parcel["fields"][0] == {
            "name": "size",
            "type": "string",
            "title": "Size",
            "choices": [{"value": "s", "label": "s"}, {"value": "l", "label": "l"}],
            "required": True,
        }
        assert parcel["fields"][2]["default"] is False
        done = await client.call_tool(
            "answer_form",
            {
                "ticket": listing["ticket"],
                "answers": {
                    "address#1": {"street": "Elm 1", "zip_code": "1234"},
                    "parcel#1": {"size": "l", "weight": 3},
                },
            },
        )
    assert text_of(done) == "vase: l 3kg to 1234 (model)"
    assert world.shipped == ["vase"]


async def test_tampered_ticket_is_refused_before_anything_runs(sdk: str) -> None:
    world = World()
    server = make_server(sdk, world)
    async with no_forms(server, "2026-07-28") as client:
        ticket = structured(await client.call_tool("ship", {"item": "lamp"}))["ticket"]
        runs = world.runs
        flipped = ticket[:-2] + ("AA" if ticket[-2:] != "AA" else "BB")
        for bad in (flipped, "", "v1.nothing", 42):
            result = await answer_address(client, bad)
            assert result.is_error
            assert text_of(result) == (
                "This server process cannot open the ticket passed to answer_form, so nothing "
                "was run: it was sealed with a key this process does not have (another process "
                "of the server issued it, and the two share no key), or it was altered on the "
                "way. Call the tool again to get a fresh ticket, and pass it exactly as the "
                "tool returned it."
            )
    assert world.runs == runs
    assert world.shipped == []


async def test_expired_ticket_is_refused(sdk: str, elicit_clock: FakeClock) -> None:
    world = World()
    server = make_server(sdk, world, security=RequestStateSecurity.ephemeral(ttl=0.2))
    async with no_forms(server, "2025-11-25") as client:
        ticket = structured(await client.call_tool("ship", {"item": "lamp"}))["ticket"]
        elicit_clock.jump(0.3)
        result = await answer_address(client, ticket)
    assert result.is_error
    assert text_of(result) == (
        "The ticket passed to answer_form has expired (a ticket lasts 0.2 seconds), so nothing "
        "was run. Call the tool 'ship' again to get a fresh ticket, and ask the user again."
    )
    assert world.runs == 1
    assert world.shipped == []


async def test_ticket_of_another_server_is_refused(sdk: str) -> None:
    key = "k" * 32  # one key shared by two servers: only the audience tells them apart
    world = World()
    issuer = make_server(sdk, world, name="issuer", security=RequestStateSecurity(keys=[key]))
    other = make_server(sdk, world, name="other", security=RequestStateSecurity(keys=[key]))
    async with no_forms(issuer, "2026-07-28") as client:
        ticket = structured(await client.call_tool("ship", {"item": "lamp"}))["ticket"]
    async with no_forms(other, "2026-07-28") as client:
        result = await answer_address(client, ticket)
    assert result.is_error
    assert text_of(result) == (
        "The ticket passed to answer_form was issued by another server, not this one "
        "('other'), so nothing was run. Call the tool 'ship' of this server again to get a "
        "ticket of its own."
    )
    assert world.runs == 1


async def test_answer_form_arguments_are_checked(sdk: str) -> None:
    world = World()
    server = make_server(sdk, world)
    async with no_forms(server, "2025-11-25") as client:
        ticket = structured(await client.call_tool("ship", {"item": "lamp"}))["ticket"]
        listed = await client.call_tool("answer_form", {"ticket": ticket, "answers": ["x"]})
        odd = await client.call_tool("answer_form", {"ticket": ticket, "action": "later"})
        runs = world.runs
        # No answers at all: every field is missing, as the form says.
        empty = await client.call_tool("answer_form", {"ticket": ticket})
    assert listed.is_error
    assert text_of(listed) == (
        "answer_form got answers that are not an object, so nothing was run. Pass the user's "
        "answers as an object of the fields by name, or action 'decline'."
    )
    assert odd.is_error
    assert text_of(odd) == (
        "answer_form got action 'later', which is not 'accept', 'decline' or 'cancel', so "
        "nothing was run. Pass 'accept' with the user's answers, or 'decline' or 'cancel'."
    )
    assert runs == 1
    assert structured(empty)["questions"][0]["corrections"] == [
        {"field": "street", "message": "This field is required."},
        {"field": "zip_code", "message": "This field is required."},
    ]


@pytest.mark.parametrize("era", ERAS)
async def test_a_link_through_the_model(sdk: str, era: str) -> None:
    done: set[str] = set()
    seen: list[str] = []
    server: Any = MCPServer("pay") if sdk == "mcp" else FastMCP("pay")

    async def completed(eid: str) -> bool:
        seen.append(eid)
        return eid in done

    @server.tool()
    async def pay(amount: int) -> str:
        answer = await ask_url(
            "Pay on the provider's page.", "https://pay.example/checkout", completed=completed
        )
        return f"paid {amount} ({answer.action}, {answer.answered_by})"

    install(server, on_unsupported="ask_model")
    async with no_forms(server, era) as client:
        first = await client.call_tool("pay", {"amount": 5})
        listing = structured(first)
        assert listing["questions"] == [
            {
                "key": "url#1",
                "message": "Pay on the provider's page.",
                "url": "https://pay.example/checkout",
            }
        ]
        assert "https://pay.example/checkout" in text_of(first)
        # The user says "done" too early: the server asks the page, and hands the link again.
        early = await client.call_tool("answer_form", {"ticket": listing["ticket"]})
        again = structured(early)
        assert again["questions"] == listing["questions"]
        (eid,) = set(seen)
        # Only the URL went through the model: the id is in the sealed ticket alone.
        for result in (first, early):
            assert eid not in text_of(result)
            assert eid not in json.dumps(result.structured_content).replace(again["ticket"], "")
        done.add(eid)
        paid = await client.call_tool("answer_form", {"ticket": again["ticket"]})
    assert text_of(paid) == "paid 5 (accept, model)"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_form_clients_get_the_form_and_never_see_answer_form(sdk: str, era: str) -> None:
    world = World()
    server = make_server(sdk, world)

    async def user(context: Any, params: Any) -> types.ElicitResult:
        return accept(street="Elm 1", zip_code="1234")

    # Declaring form mode only: it can show forms, so the question is a form.
    client = TunedClient(
        client_target(server),
        mode="legacy" if era == "2025-11-25" else era,
        elicitation_callback=user,
        url_mode=False,
    )
    async with client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("ship", {"item": "lamp"})
    assert "answer_form" not in names
    assert "ship" in names
    assert text_of(result) == "shipped lamp to Elm 1 (user)"


@pytest.mark.parametrize("era", ERAS)
async def test_raise_stays_the_default(sdk: str, era: str) -> None:
    server = make_server(sdk, World(), policy="raise")
    async with no_forms(server, era) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "answer_form" not in names
        if era == "2026-07-28":
            with pytest.raises(Exception, match="cannot show forms") as caught:
                await client.call_tool("ship", {"item": "lamp"})
            assert getattr(caught.value, "code", None) == -32021
            return
        result = await client.call_tool("ship", {"item": "lamp"})
    assert text_of(result) == tool_error(
        sdk,
        "ship",
        "This client cannot show forms (it did not declare the elicitation capability), so "
        "the tool could not ask the user for Address.",
    )


async def test_ask_model_needs_the_companion_tool(sdk: str) -> None:
    server = make_server(sdk, World(), policy="raise")
    async with no_forms(server, "2025-11-25") as client:
        result = await client.call_tool("modelled", {"item": "lamp"})
    assert text_of(result) == tool_error(
        sdk,
        "modelled",
        "This client cannot show forms (it did not declare the elicitation capability), and "
        "this server has no answer_form tool for the model to relay the user's answers "
        "through, so the tool could not ask the user for Address. Install elicitkit with "
        "install(server, on_unsupported='ask_model'), which adds it.",
    )


async def test_a_question_may_insist_on_raising(sdk: str) -> None:
    server = make_server(sdk, World())
    async with no_forms(server, "2025-11-25") as client:
        result = await client.call_tool("strict", {"item": "lamp"})
    assert result.is_error
    assert text_of(result) == tool_error(
        sdk,
        "strict",
        "This client cannot show forms (it did not declare the elicitation capability), so "
        "the tool could not ask the user for Address.",
    )


@pytest.mark.parametrize("era", ERAS)
async def test_defaults_policy(sdk: str, era: str) -> None:
    server = make_server(sdk, World())
    async with no_forms(server, era) as client:
        result = await client.call_tool("noted", {"item": "lamp"})
        assert text_of(result) == "none (defaults)"
        if era == "2026-07-28":
            with pytest.raises(Exception, match="no default") as caught:
                await client.call_tool("noted_address", {"item": "lamp"})
            message = str(caught.value)
        else:
            refused = await client.call_tool("noted_address", {"item": "lamp"})
            assert refused.is_error
            message = text_of(refused)
    assert message.endswith(
        "This client cannot show forms (it did not declare the elicitation capability), so the "
        "tool could not ask the user for Address, and on_unsupported='defaults' cannot answer "
        "for the user because 'street', 'zip_code' have no default. Give every required field "
        "a default, or choose another policy."
    )


async def test_model_answers_are_logged_as_such(sdk: str, caplog: pytest.LogCaptureFixture) -> None:
    server = make_server(sdk, World())
    caplog.set_level(logging.DEBUG, logger="elicitkit")
    async with no_forms(server, "2025-11-25") as client:
        ticket = structured(await client.call_tool("ship", {"item": "lamp"}))["ticket"]
        await answer_address(client, ticket)
    records: list[dict[str, Any]] = [
        record.__dict__["elicitkit"] for record in caplog.records if "elicitkit" in record.__dict__
    ]
    assert [(r["mode"], r["key"], r["outcome"]) for r in records] == [
        ("model", "address#1", "accept")
    ]
    caplog.clear()
    async with no_forms(server, "2025-11-25") as client:
        await client.call_tool("noted", {"item": "lamp"})
    records = [
        record.__dict__["elicitkit"] for record in caplog.records if "elicitkit" in record.__dict__
    ]
    assert [(r["mode"], r["key"], r["outcome"]) for r in records] == [
        ("defaults", "note#1", "accept")
    ]


class Receipt(pydantic.BaseModel):
    """A strict output: required fields, nothing else allowed."""

    model_config = pydantic.ConfigDict(extra="forbid")
    number: int


def make_typed_server(sdk: str) -> Any:
    """Tools whose output schemas do (``-> str``) or do not (the others) admit a listing."""
    server: Any = MCPServer("typed") if sdk == "mcp" else FastMCP("typed")

    @server.tool()
    async def label(item: str) -> str:
        return f"{item} to {(await ask(Address)).unwrap().zip_code}"

    @server.tool()
    async def receipt(item: str) -> Receipt:
        return Receipt(number=len((await ask(Address)).unwrap().zip_code))

    @server.tool()
    async def count(item: str) -> int:
        return len((await ask(Address)).unwrap().zip_code)

    install(server, on_unsupported="ask_model")
    return server


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_the_listing_is_a_normal_result_where_the_output_schema_admits_it(
    sdk: str, era: str
) -> None:
    server = make_typed_server(sdk)
    async with no_forms(server, era) as client:
        schema = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        assert schema["label"] is not None
        assert schema["label"]["properties"]["result"]["type"] == "string"
        # The official client validates a successful result against the output schema and
        # raises on a mismatch: this call returning at all is the client's acceptance.
        listed = await client.call_tool("label", {"item": "lamp"})
        assert not listed.is_error
        listing = structured(listed)
        assert listing["result"] == text_of(listed)
        assert listing["status"] == "input_required"
        assert text_of(listed).endswith(f"ticket: {listing['ticket']}")
        done = await client.call_tool(
            "answer_form",
            {"ticket": listing["ticket"], "answers": {"street": "Elm 1", "zip_code": "12345"}},
        )
    assert not done.is_error
    assert text_of(done) == "lamp to 12345"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("tool", ["receipt", "count"])
async def test_the_listing_stays_a_tool_error_where_the_output_schema_refuses_it(
    sdk: str, era: str, tool: str
) -> None:
    server = make_typed_server(sdk)
    async with no_forms(server, era) as client:
        listed = await client.call_tool(tool, {"item": "lamp"})
        assert listed.is_error
        listing = structured(listed)
        assert "result" not in listing
        assert listing["status"] == "input_required"
        assert text_of(listed).endswith(f"ticket: {listing['ticket']}")
        # The corrections come from answer_form, which declares no output schema: normal,
        # whatever the asking tool declares.
        bad = await client.call_tool(
            "answer_form", {"ticket": listing["ticket"], "answers": {"street": "Elm 1"}}
        )
        assert not bad.is_error
        again = structured(bad)
        assert again["questions"][0]["corrections"] == [
            {"field": "zip_code", "message": "This field is required."}
        ]
        done = await client.call_tool(
            "answer_form",
            {"ticket": again["ticket"], "answers": {"street": "Elm 1", "zip_code": "1234"}},
        )
    assert not done.is_error
    assert structured(done) == ({"number": 4} if tool == "receipt" else {"result": 4})


async def test_a_tool_without_output_schema_gets_a_normal_result(sdk: str) -> None:
    server: Any = MCPServer("bare") if sdk == "mcp" else FastMCP("bare")

    if sdk == "mcp":

        @server.tool(structured_output=False)
        async def ship(item: str) -> str:
            return str((await ask(Address)).action)

    else:

        @server.tool(output_schema=None)
        async def ship(item: str) -> str:
            return str((await ask(Address)).action)

    install(server, on_unsupported="ask_model")
    async with no_forms(server, "2026-07-28") as client:
        result = await client.call_tool("ship", {"item": "lamp"})
    assert not result.is_error
    assert structured(result)["status"] == "input_required"
    assert "result" not in structured(result)  # no schema asks for it


@pytest.mark.parametrize("era", ERAS)
async def test_one_liners_follow_the_policy_or_their_own(sdk: str, era: str) -> None:
    server = make_server(sdk, World())
    async with no_forms(server, era) as client:
        listing = structured(await client.call_tool("pick", {"item": "mug"}))
        (question,) = listing["questions"]
        assert question["fields"][0]["choices"] == [
            {"value": "red", "label": "red"},
            {"value": "blue", "label": "blue"},
        ]
        name = question["fields"][0]["name"]
        picked = await client.call_tool(
            "answer_form", {"ticket": listing["ticket"], "answers": {name: "blue"}}
        )
        assert text_of(picked) == "mug in blue"
        # A yes/no guarding a destructive action insists on the user's own form.
        if era == "2026-07-28":
            with pytest.raises(Exception, match="cannot show forms"):
                await client.call_tool("wipe", {"item": "mug"})
            return
        refused = await client.call_tool("wipe", {"item": "mug"})
    assert refused.is_error
    assert "cannot show forms" in text_of(refused)


@pytest.mark.parametrize("era", ERAS)
async def test_several_questions_come_one_ticket_at_a_time(sdk: str, era: str) -> None:
    world = World()
    server = make_server(sdk, world)
    async with no_forms(server, era) as client:
        first = structured(await client.call_tool("post", {"item": "vase"}))
        assert [q["key"] for q in first["questions"]] == ["address#1"]
        address = {"street": "Elm 1", "zip_code": "1234"}
        second = structured(
            await client.call_tool("answer_form", {"ticket": first["ticket"], "answers": address})
        )
        assert [q["key"] for q in second["questions"]] == ["parcel#1"]
        assert world.shipped == []
        done = await client.call_tool(
            "answer_form", {"ticket": second["ticket"], "answers": {"size": "s", "weight": 2}}
        )
        # The first ticket again: the dialogue is complete, its result comes back.
        again = await client.call_tool(
            "answer_form", {"ticket": first["ticket"], "answers": address}
        )
    assert text_of(done) == text_of(again) == "vase: 2kg to 1234 (model)"
    assert world.shipped == ["vase"]
