"""Per-call defaults of a choice given as the option's wire string, as per-call options are."""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any, Literal

import pytest

from elicitkit import FormDefinitionError, Overrides, ask, parse_content, requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.testing import ScriptedUser, accept, connect
from tests.sdks import new_server


class Region(enum.Enum):
    EU = "eu"
    US = "us"


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Deploy:
    region: Region | None = None
    level: Level = Level.LOW
    tier: Literal[1, 2] = 1
    also: list[Region] = dataclasses.field(default_factory=list)


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("name", "by_wire", "by_value"),
    [
        pytest.param("region", "us", Region.US, id="str Enum"),
        pytest.param("level", "2", Level.HIGH, id="int Enum"),
        pytest.param("tier", "2", 2, id="int Literal"),
    ],
)
def test_single_choice_default_by_wire_string(
    protocol: str, name: str, by_wire: str, by_value: object
) -> None:
    form = _form(protocol)
    given = Overrides(defaults={name: by_wire})
    declared = Overrides(defaults={name: by_value})
    # The same question as with the member, and the same answer when the field is left empty.
    assert requested_schema(form, protocol=protocol, overrides=given) == requested_schema(
        form, protocol=protocol, overrides=declared
    )
    assert getattr(parse_content(form, {}, protocol=protocol, overrides=given), name) == by_value


@dataclasses.dataclass
class Single:  # Deploy without the multi-select, which 2025-06-18 has not
    region: Region | None = None
    level: Level = Level.LOW
    tier: Literal[1, 2] = 1


def _form(protocol: str) -> type:
    return Single if protocol == "2025-06-18" else Deploy


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param(["us"], [Region.US], id="list"),
        pytest.param(("eu", Region.US), (Region.EU, Region.US), id="tuple, mixed"),
    ],
)
def test_multi_select_default_by_wire_strings(protocol: str, given: Any, expected: Any) -> None:
    overrides = Overrides(defaults={"also": given})
    schema = requested_schema(Deploy, protocol=protocol, overrides=overrides)
    assert schema["properties"]["also"]["default"] == [item.value for item in expected]
    assert parse_content(Deploy, {}, protocol=protocol, overrides=overrides).also == expected


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
def test_a_wire_string_that_is_no_option_is_refused(protocol: str) -> None:
    form = _form(protocol)
    message = (
        f"Cannot ask {form.__name__} with overrides for field 'region': the default 'ap' does "
        "not fit the field. Give a value of the field's type within its limits (for a choice, "
        "one of its options)."
    )
    with pytest.raises(FormDefinitionError, match=f"^{re.escape(message)}$"):
        requested_schema(form, protocol=protocol, overrides=Overrides(defaults={"region": "ap"}))


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
def test_per_call_options_and_default_by_wire_strings(protocol: str) -> None:
    overrides = Overrides(choices={"region": ["us"]}, defaults={"region": "us"})
    schema = requested_schema(
        _form(protocol),
        protocol=protocol,
        overrides=overrides,
    )
    assert schema["properties"]["region"]["enum"] == ["us"]
    # "eu" is no option of this call, so it names none: the default is refused as text.
    message = (
        f"Cannot ask {_form(protocol).__name__} with overrides for field 'region': the "
        "default 'eu' does not fit the field. Give a value of the field's type within its "
        "limits (for a choice, one of its options)."
    )
    with pytest.raises(FormDefinitionError, match=f"^{re.escape(message)}$"):
        requested_schema(
            _form(protocol),
            protocol=protocol,
            overrides=Overrides(choices={"region": ["us"]}, defaults={"region": "eu"}),
        )


@pytest.mark.anyio
@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
async def test_through_a_real_call(sdk: str, protocol: str) -> None:
    server = new_server(sdk, "defaults")

    @dataclasses.dataclass
    class Where:
        region: Region | None = None
        note: str = ""

    @server.tool()
    async def where(region: str) -> str:
        answer = await ask(Where, "Where?", overrides=Overrides(defaults={"region": region}))
        return repr(answer.unwrap().region)

    user = ScriptedUser(accept(note="hi"))
    async with connect(server, protocol=protocol, user=user) as client:
        result = await client.call_tool("where", {"region": "us"})
    assert result.content[0].text == "<Region.US: 'us'>"  # type: ignore[union-attr]
    if protocol != "2025-06-18":  # 2025-06-18 has defaults on booleans only
        assert user.schemas[0]["properties"]["region"]["default"] == "us"
