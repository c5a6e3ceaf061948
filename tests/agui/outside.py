"""The agents of the AG-UI tests, in a team's own package outside the repository (written into
a temporary folder by each test and put on the path, as `tests/agents/outside.py` does).

`desk` is keyed by `customerId` and has two function tools: `lookup_order`, which reads the
agent and the customer the server bound (`callmemory.tool_context()`), and `issue_refund`,
held for a person's decision (`interrupt_on`).
`other` is a second agent of the same package, with no tools.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = "aguiagents"
AGENTS = f"{PACKAGE}:agents"
AGENT = "desk"
OTHER = "other"

_SOURCE = f'''
from livekit.agents import function_tool

from callmemory import CodeDefaults, define_agent, tool_context


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up one order of the customer.

    Args:
        order_id: the order number
    """
    bound = tool_context()
    return f"order {{order_id}} of {{bound.user_id}} at {{bound.agent_id}}: shipped"


@function_tool
async def issue_refund(order_id: str, amount: int) -> str:
    """Refund part of an order.

    Args:
        order_id: the order number
        amount: how much, in whole units
    """
    bound = tool_context()
    return f"refunded {{amount}} on {{order_id}} for {{bound.user_id}}"


desk = define_agent(
    name="{AGENT}",
    instructions="You help the shop's customers with their orders.",
    memory=CodeDefaults(read=False, save=False, identity_key="customerId"),
    tools=[lookup_order, issue_refund],
    interrupt_on=["issue_refund"],
)
other = define_agent(
    name="{OTHER}",
    instructions="You are another agent.",
    memory=CodeDefaults(read=False, save=False, identity_key="customerId"),
)
agents = [desk, other]
'''


def write_package(root: Path) -> Path:
    package = root / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(_SOURCE)
    return root
