"""pytest plugin (registered as ``elicitkit``): run a tool's tests on every protocol era.

Fixtures:

* ``elicit_protocol``: each protocol version in turn (2025-06-18, 2025-11-25, 2026-07-28);
  a test that uses it, directly or through ``elicit_connect``, runs once per version.
* ``elicit_connect``: `elicitkit.testing.connect` bound to ``elicit_protocol``; call it
  as ``elicit_connect(server, user=..., profile=...)`` and enter it with ``async with``.
* ``elicit_profile``: each client profile in `elicitkit.testing.PROFILES` in turn.
* ``steps_run_once``: `elicitkit.testing.assert_steps_run_once`; call it as
  ``await steps_run_once(servers, tool, arguments, user=...)``. It fails the test unless
  every durable step of the call runs exactly once across resent rounds, an older state
  and the given servers, and inside the task the call goes on as (``go_async()``), which
  it follows to its end; it counts its own call only, so other calls may run meanwhile.
* ``elicit_clock``: a `elicitkit.testing.FakeClock`, installed for the test: time moves only
  by its ``jump(seconds)`` and ``await advance(seconds)``.

Marker:

* ``@pytest.mark.elicit_protocols("2025-11-25", "2026-07-28")``: run this test (or every
  test of a module, with ``pytestmark``) only on these versions, e.g. to leave 2025-06-18
  out. Parametrizing ``elicit_protocol`` directly does the same; the marker names the
  versions it was given when one is not a version elicitkit speaks.

pytest loads this plugin in every session of every project that has elicitkit installed, so
loading it imports neither the MCP SDK's client nor the testing kit's connection: the
``elicit_connect`` fixture imports them when a test uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import pytest

from elicitkit._client.facts import PROFILES, ClientProfile
from elicitkit.protocol import PROTOCOL_VERSIONS
from elicitkit.testing._clock import FakeClock

if TYPE_CHECKING:
    from mcp import Client

    from elicitkit.testing._steps import StepsRunOnce

    Connect = Callable[..., AbstractAsyncContextManager[Client]]


MARKER = "elicit_protocols"


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker (so ``--strict-markers`` accepts it)."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*versions): run the test's elicit_protocol / elicit_connect only on these "
        "MCP protocol versions",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Narrow ``elicit_protocol`` to the versions of the closest ``elicit_protocols`` marker."""
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None or "elicit_protocol" not in metafunc.fixturenames:
        return
    versions = [str(version) for version in marker.args]
    unknown = [version for version in versions if version not in PROTOCOL_VERSIONS]
    if unknown or not versions:
        given = ", ".join(map(repr, unknown)) if unknown else "no version"
        raise pytest.UsageError(
            f"@pytest.mark.{MARKER} on {metafunc.definition.nodeid} names {given}: give one "
            f"or more of {', '.join(PROTOCOL_VERSIONS)}."
        )
    # As if the test had @pytest.mark.parametrize("elicit_protocol", versions): pytest then
    # gives that mark precedence over the fixture's own params (tryfirst: before pytest
    # reads the test's parametrize marks).
    metafunc.definition.add_marker(
        pytest.mark.parametrize("elicit_protocol", versions, ids=versions)
    )


@pytest.fixture(params=PROTOCOL_VERSIONS, ids=PROTOCOL_VERSIONS)
def elicit_protocol(request: pytest.FixtureRequest) -> str:
    """Each MCP protocol version with elicitation, one test run per version."""
    version: str = request.param
    return version


@pytest.fixture(params=list(PROFILES.values()), ids=list(PROFILES))
def elicit_profile(request: pytest.FixtureRequest) -> ClientProfile:
    """Each client profile of `elicitkit.testing.PROFILES`, one test run per profile."""
    profile: ClientProfile = request.param
    return profile


@pytest.fixture
def elicit_connect(elicit_protocol: str) -> Connect:
    """`elicitkit.testing.connect` on the version of this run of the test."""
    from elicitkit.testing._connect import connect  # noqa: PLC0415  (the SDK client: on use)

    def bound(server: Any, **options: Any) -> AbstractAsyncContextManager[Client]:
        return connect(server, protocol=elicit_protocol, **options)

    return bound


@pytest.fixture
def steps_run_once() -> StepsRunOnce:
    """Prove that every durable step of a call runs once (`assert_steps_run_once`)."""
    from elicitkit.testing._steps import assert_steps_run_once  # noqa: PLC0415  (on use)

    return assert_steps_run_once


@pytest.fixture
def elicit_clock() -> Iterator[FakeClock]:
    """A `elicitkit.testing.FakeClock`, the clock elicitkit reads for the test's duration."""
    with FakeClock() as clock:
        yield clock


__all__ = ["elicit_clock", "elicit_connect", "elicit_profile", "elicit_protocol", "steps_run_once"]
