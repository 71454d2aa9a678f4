"""Check emitted schemas against the official MCP JSON Schema of their protocol version.

Two checks in one validator: the official ``schema.json`` of the version, made strict by
adding ``additionalProperties: false`` to every object type that lists its properties. The
JSON Schema is generated from the normative TypeScript, where an interface allows exactly its
listed keys, so the strict form accepts exactly what the TypeScript types allow: an emitted
field must match one variant of ``PrimitiveSchemaDefinition`` with no key outside it.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

SPEC_DIR = Path(__file__).parent / "spec"

# Keys elicitkit never emits at the top of a requestedSchema, even where a version allows them.
FORBIDDEN_TOP_LEVEL = {"title", "$schema", "$defs", "definitions", "additionalProperties"}


def _strict(node: Any) -> Any:
    if isinstance(node, dict):
        out = {key: _strict(value) for key, value in node.items()}
        if isinstance(out.get("properties"), dict) and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_strict(item) for item in node]
    return node


@functools.cache
def official_schema(protocol: str) -> dict[str, Any]:
    return json.loads((SPEC_DIR / protocol / "schema.json").read_text())


@functools.cache
def _validator(protocol: str, *, strict: bool) -> jsonschema.protocols.Validator:
    root = copy.deepcopy(official_schema(protocol))
    if strict:
        root = _strict(root)
    if protocol == "2025-06-18":
        # 2025-06-18 defines the params inline in ElicitRequest.
        root["$ref"] = "#/definitions/ElicitRequest/properties/params"
    else:
        root["$ref"] = "#/$defs/ElicitRequestFormParams"
    cls = jsonschema.validators.validator_for(root)
    cls.check_schema(root)
    return cls(root)


def form_params(schema: dict[str, Any], protocol: str) -> dict[str, Any]:
    """Wrap a requestedSchema in the elicitation/create params of its version."""
    params: dict[str, Any] = {"message": "Please fill in the form.", "requestedSchema": schema}
    if protocol != "2025-06-18":
        params["mode"] = "form"
    return params


def spec_errors(schema: dict[str, Any], protocol: str, *, strict: bool = True) -> list[str]:
    """Every way ``schema`` breaks the official grammar of ``protocol`` (empty when valid)."""
    validator = _validator(protocol, strict=strict)
    errors = [error.message for error in validator.iter_errors(form_params(schema, protocol))]
    errors += [f"forbidden top-level key {key!r}" for key in FORBIDDEN_TOP_LEVEL & set(schema)]
    if not schema.get("properties"):
        errors.append("empty properties")
    return errors


def assert_spec_valid(schema: dict[str, Any], protocol: str) -> None:
    """Fail with every problem if ``schema`` is not a valid requestedSchema for ``protocol``."""
    errors = spec_errors(schema, protocol)
    assert not errors, f"not valid for {protocol}: {errors}\n{json.dumps(schema, indent=2)}"
