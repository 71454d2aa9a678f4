"""admits(): the official client's output-schema check, run before a listing goes out.

Schemas the check cannot use (invalid, an unresolvable ``$ref``, a bad pattern) count as
"does not fit", so the listing stays a tool error there rather than a result the client
would reject.
"""

from __future__ import annotations

from typing import Any

import pytest

from elicitkit._runtime.output_fit import admits

LISTING = {
    "result": "Ask the user ...",
    "status": "input_required",
    "ticket": "v1.x",
    "questions": [{"key": "address#1", "message": "Where to?"}],
}

WRAPPED_STR = {
    "properties": {"result": {"title": "Result", "type": "string"}},
    "required": ["result"],
    "title": "labelOutput",
    "type": "object",
}


@pytest.mark.parametrize(
    ("schema", "fits"),
    [
        pytest.param(WRAPPED_STR, True, id="wrapped-str"),
        pytest.param({"type": "object"}, True, id="any-object"),
        pytest.param({**WRAPPED_STR, "additionalProperties": False}, False, id="closed"),
        pytest.param(
            {"properties": {"result": {"type": "integer"}}, "required": ["result"]},
            False,
            id="wrapped-int",
        ),
        pytest.param(
            {
                "type": "object",
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
            },
            False,
            id="model-with-required-field",
        ),
        pytest.param({"additionalProperties": {"type": "string"}}, False, id="dict-of-str"),
        pytest.param({"type": 42}, False, id="invalid-schema"),
        pytest.param({"$ref": "https://example.com/schema.json"}, False, id="remote-ref"),
        pytest.param({"$ref": "#/$defs/missing"}, False, id="dangling-ref"),
        pytest.param(
            {"properties": {"result": {"type": "string", "pattern": "("}}}, False, id="bad-pattern"
        ),
    ],
)
def test_admits(schema: dict[str, Any], fits: bool) -> None:
    assert admits(schema, LISTING) is fits


def test_a_listed_schema_draft_is_honoured() -> None:
    # Draft 4 reads exclusiveMaximum as a boolean: the validator the schema names is used.
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "properties": {"n": {"type": "number", "maximum": 1, "exclusiveMaximum": True}},
    }
    assert admits(schema, {"n": 0.5})
    assert not admits(schema, {"n": 1})
