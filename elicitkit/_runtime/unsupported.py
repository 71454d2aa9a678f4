"""What ``ask()`` does when the client cannot show forms: the ``on_unsupported`` policy.

* ``"raise"`` (the default): `ElicitationUnsupported`, as before the policy existed. An
  answer typed by the model is not one the user saw in a form, so nothing else happens
  unless the author says so.
* ``"ask_model"``: the tool call ends with a listing for the model and a sealed ticket; the
  model asks the user and calls ``answer_form`` with the answers, which runs the tool again
  through the replay, so the same form checks them (`elicitkit._runtime.model_listing`).
* ``"defaults"``: the form's defaults, when every required field has one; else raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

OnUnsupported = Literal["raise", "ask_model", "defaults"]
"""What to do when the client cannot show forms (see `elicitkit.ask`)."""

POLICIES: tuple[OnUnsupported, ...] = ("raise", "ask_model", "defaults")


def check_policy(value: object, where: str) -> OnUnsupported:
    """Return ``value`` as a policy.

    Raises:
        ValueError: ``value`` is not one of the policies.
    """
    for policy in POLICIES:
        if value == policy:
            return policy
    raise ValueError(
        f"{where} got on_unsupported={value!r}, which is not a policy elicitkit knows. "
        "Pass 'raise', 'ask_model' or 'defaults'."
    )


def default_content(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The content of a form answered with its defaults, and the required fields without one.

    Read from the rendered ``requestedSchema``: the defaults the user would have seen.
    """
    properties = cast("Mapping[str, Mapping[str, Any]]", schema.get("properties") or {})
    required = cast("list[str]", schema.get("required") or [])
    content = {name: prop["default"] for name, prop in properties.items() if "default" in prop}
    return content, [name for name in required if name not in content]
