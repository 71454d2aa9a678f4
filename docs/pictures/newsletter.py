"""A newsletter tool whose form is a multi-select: the preferences picture of the docs.

    python docs/pictures/newsletter.py      # a stdio MCP server, for a client to start

On 2025-11-25 and 2026-07-28 ``topics`` is one multi-select; on 2025-06-18, which has none,
elicitkit sends one checkbox per topic and folds the ticked boxes back into the set.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Literal

from annotated_types import MinLen
from mcp.server.mcpserver import MCPServer

from elicitkit import FormField, ask, form, install


class Topic(Enum):
    """What the newsletter can cover, labelled as the form shows it."""

    RELEASES = "releases"
    EVENTS = "events"
    TIPS = "tips"
    __labels__ = {  # noqa: RUF012 (read by elicitkit, never changed)
        "RELEASES": "Product releases",
        "EVENTS": "Events near you",
        "TIPS": "Tips",
    }


@form(message="What would you like to hear about?")
@dataclass
class Preferences:
    """The topics (a multi-select: at least one) and how often the newsletter comes."""

    topics: Annotated[set[Topic], MinLen(1)]
    every: Annotated[
        Literal["week", "month"],
        FormField(title="How often", labels={"week": "Once a week", "month": "Once a month"}),
    ] = "week"


server = install(MCPServer("newsletter"))


@server.tool()
async def subscribe() -> str:
    """Ask which topics the newsletter should cover, and how often it comes."""
    answer = await ask(Preferences)
    if not answer.is_accepted():
        return f"Not subscribed: the user chose to {answer.action}."
    chosen = answer.unwrap()
    topics = ", ".join(sorted(topic.value for topic in chosen.topics))
    return f"Subscribed to {topics}, once a {chosen.every}."


if __name__ == "__main__":
    server.run("stdio")
