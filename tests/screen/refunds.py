"""The agent the Playground's tests talk to: `refunds`, with `lookup_order` (runs at once) and
`issue_refund` (held: a person approves, edits or rejects it), and the app serving it beside
the console's usual agents; scripted model steps that call them."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient
from livekit.agents import function_tool

from callmemory import CodeDefaults, define_agent
from testkit.model_server import ModelServer, Reply

Client = TestClient[web.Request, web.Application]
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


async def openai_turn(
    client: Client, text: str, key: str, headers: dict[str, str]
) -> dict[str, Any]:
    """One turn of `refunds` on the OpenAI wire in the session `key`, as `CUSTOMER`."""
    response = await client.post(
        "/v1/chat/completions",
        json={"model": AGENT, "messages": [{"role": "user", "content": text}]},
        headers={
            **headers,
            "x-stackbone-session": key,
            "x-stackbone-identities": json.dumps({"customerId": CUSTOMER}),
        },
    )
    assert response.status == 200, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def park_refund(
    client: Client, model_server: ModelServer, key: str, headers: dict[str, str]
) -> str:
    """A session `key` with one turn that ran `lookup_order`, then a turn parked on
    `issue_refund`: the pending decision's id."""
    calls(model_server, "lookup_order", {"order_id": "A-1"}, "call_lookup")
    model_server.answer_text("Order A-1 was delivered.")
    await openai_turn(client, "Where is order A-1?", key, headers)
    calls(model_server, "issue_refund", {"order_id": "A-1", "amount": 500}, "call_refund")
    held = await openai_turn(client, "Refund it, please.", key, headers)
    decision: str = held["stackbone"]["decision"]["id"]
    return decision
