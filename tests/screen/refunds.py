"""The agent the Playground's tests talk to: `refunds`, with `lookup_order` (runs at once) and
`issue_refund` (held: a person approves, edits or rejects it), and the app serving it beside
the console's usual agents; scripted model steps that call them."""

from __future__ import annotations

import json
from typing import Any

from livekit.agents import function_tool

from callmemory import CodeDefaults, define_agent
from testkit.model_server import ModelServer, Reply

AGENT = "refunds"
CUSTOMER = "cust-7"


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up one order.

    Args:
        order_id: the order number
    """
    return f"order {order_id}: delivered"


@function_tool
async def issue_refund(order_id: str, amount: int) -> str:
    """Refund an order.

    Args:
        order_id: the order number
        amount: the amount in cents
    """
    return f"refunded {amount} on {order_id}"


REFUNDS = define_agent(
    name=AGENT,
    instructions="You handle refunds.",
    memory=CodeDefaults(read=False, save=False, identity_key="customerId"),
    tools=[lookup_order, issue_refund],
    interrupt_on={"issue_refund": ["approve", "edit", "reject"]},
)


def calls(model_server: ModelServer, name: str, arguments: dict[str, Any], ident: str) -> None:
    """Queue one model step calling `name`."""
    call = {
        "id": ident,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    model_server.replies.append(Reply(tool_calls=[call], finish_reason="tool_calls"))
