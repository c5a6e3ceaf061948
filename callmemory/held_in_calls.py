"""Held tools in a live LiveKit session: never run, refused to the model in words.

A held tool (`interrupt_on`) waits for a person's decision, and only a text turn on a session
can wait (`chat.held`). A voice call (or livekit's text mode) has no session to park on, and the
caller is on the line: so there a held tool is a *stand-in* with the same name, description and
parameters as the model knows them, whose call runs nothing and answers the model a
`ToolError` it can put to the caller. `call_tools` builds an agent's tools for a call that way
(`AgentDefinition.voice_tools`); `guard_held` swaps any held tool still on a livekit `Agent`
before its session starts (`CallerMemory.attach`), so an agent built from the definition's
plain `tools` cannot run one either. Each refused call is logged as `call.held_tool_refused`
(agent id and tool name, never the arguments) and counted
(`caller_memory_call_held_tools_refused_total`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, TypeGuard

import structlog
from livekit.agents import Agent, llm
from livekit.agents.llm.utils import build_legacy_openai_schema

from lifecycle.metrics import HELD_REFUSED

log = structlog.get_logger(__name__)

REFUSAL = (
    "{tool} needs a person's decision, which cannot be given during this conversation: it did"
    " not run. Tell the caller it was not done and that a person has to approve it."
)
Tool = llm.Tool | llm.Toolset


def stand_in(tool: llm.FunctionTool[..., Any], agent_id: str) -> llm.RawFunctionTool[..., Any]:
    """A tool the model sees as `tool`, whose call is refused."""
    schema = build_legacy_openai_schema(tool)["function"]
    name = str(schema["name"])

    async def refuse(raw_arguments: dict[str, object]) -> str:
        log.warning("call.held_tool_refused", agent_id=agent_id, tool=name)
        HELD_REFUSED.inc()
        raise llm.ToolError(REFUSAL.format(tool=name))

    spec = {k: schema[k] for k in ("name", "description", "parameters") if k in schema}
    return llm.function_tool(refuse, raw_schema=spec)


def _held(tool: Tool, held: Collection[str]) -> TypeGuard[llm.FunctionTool[..., Any]]:
    # a stand-in is a raw function tool: a second guard leaves it as it is
    return isinstance(tool, llm.FunctionTool) and tool.id in held


def call_tools(tools: Iterable[Tool], held: Collection[str], agent_id: str) -> list[Tool]:
    """`tools` for a live call: each held function tool replaced by its stand-in."""
    return [stand_in(tool, agent_id) if _held(tool, held) else tool for tool in tools]


async def guard_held(agent: Agent, held: Collection[str], agent_id: str) -> int:
    """Swap the held tools still on `agent` for stand-ins (before its session starts); how
    many were swapped."""
    found = [t for t in agent.tools if _held(t, held)]
    if found:
        await agent.update_tools(call_tools(agent.tools, held, agent_id))
        log.info("call.held_tools_guarded", agent_id=agent_id, tools=len(found))
    return len(found)
