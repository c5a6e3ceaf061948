"""A team's own package, outside this repository: written into a temporary folder by each test
and put on the path (`sys.path` in process, `PYTHONPATH` for a spawned process), never
importable from the repository itself.

`shop` has one function tool, `lookup_order`, which reads the agent and the customer from
`callmemory.tool_context()`, and one collection; its order ids script the tool's failures:
`BOOM` raises (with a message that must reach nobody), `SLOW` outlives the tool's deadline, an
unknown id is the tool's own `ToolError`. `desk_worker.py` is an attached worker's agent file
declaring `front-desk` (a module the web process is not told about).
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = "shopagents"
AGENTS = f"{PACKAGE}:agents"
AGENT = "shop"
COLLECTION = "shop-help"
SECRET = "hunter2-in-the-exception"
TOOL_SECONDS = 0.5

_SOURCE = f'''
import asyncio

from livekit.agents import ToolError, function_tool

from callmemory import CodeDefaults, define_agent, tool_context

ORDERS = {{"A-100": "shipped on Monday"}}


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up one order of the customer.

    Args:
        order_id: the order number
    """
    bound = tool_context()
    if order_id == "BOOM":
        raise RuntimeError("{SECRET}")
    if order_id == "SLOW":
        await asyncio.sleep(30)
    if order_id not in ORDERS:
        raise ToolError("no order with that number")
    return f"order {{order_id}} of {{bound.user_id}} at {{bound.agent_id}}: {{ORDERS[order_id]}}"


shop = define_agent(
    name="{AGENT}",
    instructions="You help the shop's customers with their orders.",
    memory=CodeDefaults(read=True, save=True, identity_key="phoneNumber"),
    tools=[lookup_order],
    collections=["{COLLECTION}"],
    tool_seconds={TOOL_SECONDS},
)
agents = [shop]
'''

_WORKER = """
from callmemory import CallerMemory, CodeDefaults, define_agent

desk = define_agent(
    name="front-desk",
    instructions="You are a front desk.",
    memory=CodeDefaults(read=True, save=True, identity_key="phoneNumber"),
)
memory = CallerMemory.from_env(desk)
"""


def write_package(root: Path) -> Path:
    """The package (and the worker file beside it) under `root`; returns `root`."""
    package = root / PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(_SOURCE)
    (root / "desk_worker.py").write_text(_WORKER)
    return root
