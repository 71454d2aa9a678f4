"""fastmcp's client accepts every form elicitkit sends, and the answers a person gives.

Since 4.2, fastmcp's client turns the form's schema into a Python type for its handler
(``json_schema_to_type``) and checks an accepted answer against the schema before sending
it. So a form it cannot read, or a valid answer it refuses, fails every fastmcp client. This
runs fastmcp's real client callback on hypothesis-generated forms (tests/
test_roundtrip_hypothesis.py's generator: every field kind, constraint vocabulary, optional
field and model kind) with answers sampled from the rendered schema, on each version and
label style, and expects each answer sent as given. Answers at an exclusive float bound are
left out: the wire shows that bound inclusive, so both fastmcp and elicitkit have their say.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from fastmcp.client.elicitation import create_elicitation_callback
from hypothesis import assume, given
from hypothesis import strategies as st

from elicitkit import requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS
from tests.test_roundtrip_hypothesis import SETTINGS, SHAPES, answers, forms


def sent_by_fastmcp(schema: dict[str, Any], answer: dict[str, Any]) -> Any:
    """What fastmcp's client sends when its handler accepts ``answer`` to ``schema``."""
    seen: list[Any] = []

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        seen.append(response_type)
        return answer

    callback = create_elicitation_callback(handler)
    params = types.ElicitRequestFormParams(message="Fill this in", requested_schema=schema)

    async def run() -> Any:
        return await callback(None, params)  # type: ignore[arg-type]

    result = anyio.run(run)
    assert seen, result  # the handler ran: fastmcp read the form
    assert seen[0] is not None  # and made it a type for the handler
    return result


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPES)
@SETTINGS
@given(data=st.data())
def test_fastmcp_client_sends_every_valid_answer(shape: str, data: st.DataObject) -> None:
    form = data.draw(forms(shape), label="form")
    versions = [v for v in PROTOCOL_VERSIONS if not (form.has_multi and v == "2025-06-18")]
    protocol = data.draw(st.sampled_from(versions), label="protocol")
    legacy = data.draw(st.booleans(), label="legacy_enum_names")
    schema = requested_schema(form.tp, protocol=protocol, legacy_enum_names=legacy)
    answer = data.draw(answers(schema), label="answer")
    assume(
        all(field.plan.accepts(answer[field.key]) for field in form.fields if field.key in answer)
    )
    result = sent_by_fastmcp(schema, answer)
    assert isinstance(result, types.ElicitResult), result
    assert result.action == "accept"
    assert result.content == answer
