"""A deployment tool whose form offers the regions open to this account, per call.

Run it as a stdio MCP server:

    python examples/per_call_choices.py

`Deploy` is declared once. Each call narrows it with `Overrides`: the regions this account may
use (labelled), a default size that depends on the service, and a title naming the service.
The answer is checked against this call's regions, not against any text.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Annotated, Literal

from annotated_types import Ge, Le
from mcp.server.mcpserver import MCPServer

from elicitkit import InvalidContent, Overrides, ask, install

# What an account may use; a real server would look this up.
ACCOUNT_REGIONS = {
    "acme": {"eu-west-1": "Europe (Ireland)", "eu-north-1": "Europe (Stockholm)"},
    "globex": {"us-east-1": "US East (Virginia)"},
}


@dataclass
class Deploy:
    region: str
    size: Literal["small", "medium", "large"]
    replicas: Annotated[int, Ge(1), Le(10)] = 1
    confirm_cost: bool = False


server = install(MCPServer("per-call-choices"))


@server.tool()
async def deploy(account: str, service: str) -> str:
    """Deploy a service; the user picks a region open to the account, and a size."""
    overrides = Overrides(
        choices={"region": ACCOUNT_REGIONS.get(account, {"eu-west-1": "Europe (Ireland)"})},
        defaults={"size": "large" if service.endswith("-db") else "small"},
        titles={"confirm_cost": f"I accept the monthly cost of {service}"},
    )
    try:
        answer = await ask(Deploy, f"Deploy {service} for {account}", overrides=overrides)
    except InvalidContent as problem:
        return "Not deployed: " + "; ".join(str(error) for error in problem.errors)
    if not answer.is_accepted():
        return "Not deployed."
    plan = answer.unwrap()
    if not plan.confirm_cost:
        return "Not deployed: the cost was not accepted."
    return f"Deploying {service} to {plan.region}: {plan.replicas} x {plan.size}."


if __name__ == "__main__":
    if sys.stdin.isatty():  # started by hand: stdio is for a client, so say how to connect one
        print(
            "This MCP server talks over stdin/stdout. Let a client start it: in an MCP client "
            f"that can show forms, add the command: {sys.executable} {' '.join(sys.argv)}",
            file=sys.stderr,
        )
    server.run("stdio")
