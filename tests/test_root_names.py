"""The root holds what a tool author types daily: at most 25 names.

Names that moved to a public submodule stay importable from the root for now, with a
`DeprecationWarning` naming the new import; they are not listed (``__all__``, ``dir()``).
"""

from __future__ import annotations

import warnings

import pytest

import elicitkit
import elicitkit.replay

MOVED = {"ReplayLimits": "elicitkit.replay", "replaying": "elicitkit.replay"}


def test_the_root_has_at_most_25_names() -> None:
    assert len(elicitkit.__all__) <= 25
    assert all(hasattr(elicitkit, name) for name in elicitkit.__all__)


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_moved_name_still_imports_from_the_root_with_a_warning(name: str) -> None:
    module = MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"^elicitkit.{name} has moved") as caught:
        found = getattr(elicitkit, name)
    assert found is getattr(elicitkit.replay, name)
    expected = (
        f"elicitkit.{name} has moved to {module}: import it as `from {module} import {name}`; "
        "the root will stop providing it in a later release."
    )
    assert [str(warning.message) for warning in caught] == [expected]
    assert caught[0].filename == __file__  # the warning points at the caller's line


def test_from_the_root_import_still_works() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from elicitkit import ReplayLimits, replaying  # noqa: PLC0415

    assert ReplayLimits is elicitkit.replay.ReplayLimits
    assert replaying is elicitkit.replay.replaying
    assert caught
    assert all(warning.category is DeprecationWarning for warning in caught)


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_moved_name_is_not_listed_at_the_root(name: str) -> None:
    assert name not in elicitkit.__all__
    assert name not in dir(elicitkit)
    assert name in elicitkit.replay.__all__


def test_an_unknown_root_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as caught:
        elicitkit.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    assert str(caught.value) == "module 'elicitkit' has no attribute 'no_such_name'"
