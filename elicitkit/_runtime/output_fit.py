"""Whether a tool's declared output schema admits a result elicitkit makes for the model.

A client checks the ``structuredContent`` of every successful result against the output
schema the tool declares (the official client raises on a mismatch), so a listing may go
out as a normal result only where it passes that check. This answers by running the check
the official client runs (``jsonschema``, the validator the schema's dialect names, ``$ref``
resolved within the schema only), never by reading the schema's shape. It runs only when a
question goes to the model, never on a normal call; ``jsonschema`` is imported then.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def admits(schema: Mapping[str, Any], instance: Mapping[str, Any]) -> bool:
    """Whether ``instance`` is valid against the output schema ``schema``.

    ``False`` also for a schema the check cannot use (invalid, an unresolvable ``$ref``, a
    bad pattern): a client would reject a normal result there too, so the caller keeps
    the result it makes when the schema does not admit one.
    """
    # Imported here, as modules: only a question handed to the model needs them, and
    # jsonschema ships no type information (both are the official SDK's dependencies).
    validators: Any = importlib.import_module("jsonschema.validators")
    referencing: Any = importlib.import_module("referencing")

    document = dict(schema)
    try:
        validator_class: Any = validators.validator_for(document)
        validator_class.check_schema(document)
        # An empty registry, as the official client's: no $ref is fetched from anywhere.
        validator: Any = validator_class(document, registry=referencing.Registry())
        return bool(validator.is_valid(dict(instance)))
    except Exception:  # noqa: BLE001  (any failure to check counts as "does not fit")
        return False
