"""One worker of a multi-process server for URL mode: stateful streamable HTTP.

    [ELICITKIT_STORE=redis://...] python url_worker.py PORT

``install()`` routes URL-mode completions where the records are: through Redis with the
variable, through the default SQLite file of the machine without it. The tool
``connect`` sends the user to a page whose address (given by the test) may be another
worker's ``/callback``; that callback calls ``complete_url`` with the id in ``state``, as an
OAuth redirect would.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from elicitkit import install
from elicitkit.url import ask_url, complete_url, new_elicitation_id

server = install(MCPServer("url-worker"))


@server.tool()
async def connect(callback: str) -> str:
    """Send the user to ``callback?state=<id>``; say what they answered."""
    eid = new_elicitation_id()
    answer = await ask_url("Sign in to Acme", f"{callback}?state={eid}", elicitation_id=eid)
    return f"{answer.action}:{answer.content == eid}"


@server.custom_route("/callback", methods=["GET"])
async def callback(request: Request) -> PlainTextResponse:
    """The OAuth-style redirect target: the user is done on the page with this id."""
    done = await complete_url(request.query_params.get("state", ""))
    return PlainTextResponse("signed in" if done else "unknown")


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
