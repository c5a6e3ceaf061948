"""The agent the CopilotKit example talks to: `desk`, a shop's help desk.

Its customers are named by `customerId` (the page's `properties`, which reach the AG-UI route
as `forwardedProps`); memory is read and saved on every turn (`memory_read`, `memory_save`);
`lookup_order` runs at once and `issue_refund` waits for a person's approval (`interrupt_on`),
which the page asks for with `useInterrupt`. Serve it with `AGENTS=examples.copilotkit.shop:agents`.
"""

from livekit.agents import function_tool

from callmemory import CodeDefaults, define_agent, tool_context


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up one order of the customer.

    Args:
        order_id: the order number
    """
    return f"order {order_id} of {tool_context().user_id}: shipped"


@function_tool
async def issue_refund(order_id: str, amount: int) -> str:
    """Refund part of an order.

    Args:
        order_id: the order number
        amount: how much, in whole units
    """
    return f"refunded {amount} on {order_id} for {tool_context().user_id}"


desk = define_agent(
    name="desk",
    instructions="You help the shop's customers with their orders and refunds.",
    memory=CodeDefaults(read=True, save=True, identity_key="customerId"),
    tools=[lookup_order, issue_refund],
    interrupt_on=["issue_refund"],
)
agents = [desk]
