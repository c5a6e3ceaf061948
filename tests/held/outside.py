"""A team's package with held tools, written outside the repository by each test (as
`tests/agents/outside.py` does): `refunds` has `lookup_order` (runs at once), `issue_refund`
(held: approve, edit, reject) and `cancel_order` (held: approve or reject only). Each tool
appends what it ran with to a file (`RAN`, from the environment) so a test sees whether, and
with which arguments, a held tool ran, in this process or in a spawned web process."""

from __future__ import annotations

from pathlib import Path

PACKAGE = "heldagents"
AGENTS = f"{PACKAGE}:agents"
AGENT = "refunds"
OTHER = "other-shop"

_SOURCE = f'''
import json
import os

from livekit.agents import ToolError, function_tool

from callmemory import CodeDefaults, define_agent, tool_context


def _ran(name, **arguments):
    bound = tool_context()
    line = {{"tool": name, "arguments": arguments, "user": bound.user_id, "agent": bound.agent_id}}
    with open(os.environ["HELD_RAN"], "a") as out:
        out.write(json.dumps(line) + "\\n")


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up one order.

    Args:
        order_id: the order number
    """
    _ran("lookup_order", order_id=order_id)
    return f"order {{order_id}}: delivered"


@function_tool
async def issue_refund(order_id: str, amount: int) -> str:
    """Refund an order.

    Args:
        order_id: the order number
        amount: the amount in cents
    """
    if amount > 100_000:
        raise ToolError("too large")
    _ran("issue_refund", order_id=order_id, amount=amount)
    return f"refunded {{amount}} on {{order_id}}"


@function_tool
async def cancel_order(order_id: str) -> str:
    """Cancel an order.

    Args:
        order_id: the order number
    """
    _ran("cancel_order", order_id=order_id)
    return f"cancelled {{order_id}}"


refunds = define_agent(
    name="{AGENT}",
    instructions="You handle refunds.",
    memory=CodeDefaults(read=True, save=False, identity_key="customerId"),
    tools=[lookup_order, issue_refund, cancel_order],
    interrupt_on={{
        "issue_refund": ["approve", "edit", "reject"],
        "cancel_order": ["approve", "reject"],
    }},
)
other = define_agent(
    name="{OTHER}",
    instructions="Another shop.",
    memory=CodeDefaults(read=True, save=False, identity_key="customerId"),
    tools=[issue_refund],
    interrupt_on=["issue_refund"],
)
agents = [refunds, other]
'''


def write_package(root: Path) -> Path:
    package = root / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(_SOURCE)
    return root
