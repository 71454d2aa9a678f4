"""@form compiles at import time and stores the message; repeated calls are lookups."""

from __future__ import annotations

import dataclasses
from typing import Literal

import elicitkit._compiler.compiled_forms
from elicitkit import form, parse_content, requested_schema
from elicitkit._compiler.compiled_forms import default_message


def test_form_with_message() -> None:
    @form(message="Where should we ship it?")
    @dataclasses.dataclass
    class Shipping:
        city: str

    assert default_message(Shipping) == "Where should we ship it?"
    assert parse_content(Shipping, {"city": "Oslo"}) == Shipping("Oslo")


def test_bare_form_decorator_returns_the_class_unchanged() -> None:
    @dataclasses.dataclass
    class Plain:
        ok: bool

    assert form(Plain) is Plain
    assert default_message(Plain) is None


def test_form_compiles_once_at_decoration() -> None:
    @form
    @dataclasses.dataclass
    class Confirm:
        ok: bool

    # Compiled at decoration: the decoder is already in the cache before any call.
    assert "2026-07-28" in elicitkit._compiler.compiled_forms.compiled_form(Confirm).decoders


def test_repeated_schema_calls_return_the_cached_dict() -> None:
    @dataclasses.dataclass
    class Pick:
        size: Literal["s", "m"]

    first = requested_schema(Pick, protocol="2025-11-25")
    assert requested_schema(Pick, protocol="2025-11-25") is first
    assert requested_schema(Pick, protocol="2026-07-28") is not first
    assert requested_schema(Pick, protocol="2026-07-28") == first


def test_redecorating_replaces_the_message() -> None:
    @dataclasses.dataclass
    class Question:
        answer: str

    requested_schema(Question)
    form(message="First")(Question)
    form(message="Second")(Question)
    assert default_message(Question) == "Second"
