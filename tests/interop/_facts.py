"""What the real clients did, as facts: checked against docs/clients.json on every run.

Each interop test reports what it saw with ``observe(fact, value)``. The value must equal
the one documented in ``docs/clients.json`` (so the docs cannot drift from reality), and
every observation is also written to ``observations.json`` in the artifacts folder.
``docs/clients.md`` carries a table generated from ``docs/clients.json``; regenerate it with
``python -m tests.interop._facts``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.interop._tools import ROOT

DOCUMENTED = ROOT / "docs" / "clients.json"
PAGE = ROOT / "docs" / "clients.md"
BEGIN = "<!-- observed facts: generated from docs/clients.json, do not edit by hand -->"
END = "<!-- end of observed facts -->"

Observe = Callable[[str, str, str, Any], None]
"""``observe(client, era, fact, value)``: record a fact and check it against the docs."""


def documented() -> dict[str, Any]:
    """Return docs/clients.json."""
    return json.loads(DOCUMENTED.read_text(encoding="utf-8"))


def table(facts: dict[str, Any]) -> str:
    """Render the facts as one Markdown table per client."""
    lines: list[str] = []
    for client, entry in facts["clients"].items():
        eras = list(entry["eras"])
        lines.append(f"### {entry['name']} {entry['version']}")
        lines.append("")
        lines.append(
            "| | " + " | ".join(f"{era} ({entry['eras'][era]['protocol']})" for era in eras) + " |"
        )
        lines.append("|---|" + "---|" * len(eras))
        for key, text in facts["facts"].items():
            if not any(key in entry["eras"][era] for era in eras):
                continue
            cells = [_cell(entry["eras"][era].get(key, "not tried")) for era in eras]
            lines.append(f"| {text} | " + " | ".join(cells) + " |")
        lines.append("")
        del client
    return "\n".join(lines).rstrip() + "\n"


def _cell(value: object) -> str:
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return f"`{value}`" if isinstance(value, str) and value != "not tried" else str(value)


def generated_section(facts: dict[str, Any]) -> str:
    """Return the generated part of docs/clients.md, markers included."""
    return f"{BEGIN}\n\n{table(facts)}\n{END}"


def rewrite_page() -> None:
    """Replace the generated part of docs/clients.md with a fresh one."""
    text = PAGE.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    PAGE.write_text(head + generated_section(documented()) + tail, encoding="utf-8")


if __name__ == "__main__":
    rewrite_page()
