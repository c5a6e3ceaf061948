"""One text turn: the agent's instructions, the thread, the new messages, and a bounded loop
in which the conversation model may call the turn's tools, each result fed back.

The turn's tools are `chat.toolbox.Tool`s: the memory tools, the agent's own function tools
and `search_docs`, all run by `run_tool_call` with the turn's bound `ToolContext`, so a failing,
slow or misused tool becomes a tool error the model reads and the turn goes on.
At most `max_tool_steps` model requests are offered the tools; the request after them is
offered none, so every turn ends in an answer. With a relay every step is streamed and each text
delta reaches the relay as the model writes it; the tool rounds run here, between steps. The
reply is all the text the model wrote in the turn (a model rarely writes text beside its tool
calls; when it does, a streaming client has already seen it, so both wires say it). Nothing
of the messages, tool arguments or tool results is logged: the turn's log line holds counts,
tool names, tool error codes and tokens.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from chat.model import ConversationModel, Relay, Step
from chat.toolbox import Tool, ToolContext, run_tool_call, toolset

log = structlog.get_logger(__name__)
Message = dict[str, Any]


class ToolObserver(Protocol):
    """Who sees each tool call of a turn as it happens (a wire streaming them)."""

    async def tool_call(self, call_id: str, name: str, arguments: str) -> None: ...

    async def tool_result(
        self, call_id: str, content: str, duration_ms: float, error: str | None
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class TurnInput:
    agent_id: str
    instructions: str
    thread: list[Message]  # earlier turns of a kept session
    new: list[Message]  # what the client sent this time
    context: ToolContext  # the agent and customer the tools act for
    tools: tuple[Tool, ...] = ()  # memory, the agent's own, search_docs
    options: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, ...


@dataclass
class TurnResult:
    reply: str = ""
    added: list[Message] = field(default_factory=list)  # assistant and tool messages
    prompt_tokens: int = 0
    completion_tokens: int = 0
    steps: int = 0
    tool_calls: list[str] = field(default_factory=list)  # tool names only
    tool_errors: list[str] = field(default_factory=list)  # error codes of failed calls
    duration_ms: float = 0.0
    finish_reason: str = "stop"  # the last step's: "stop", or "length" past max tokens


def _assistant_with_calls(step: Step) -> Message:
    return {
        "role": "assistant",
        "content": step.content,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in step.tool_calls
        ],
    }


async def _step(
    model: ConversationModel,
    messages: list[Message],
    offer: list[dict[str, Any]] | None,
    relay: Relay | None,
    options: dict[str, Any],
) -> Step:
    if relay is None:
        return await model.step(messages, offer, **options)
    return await model.stream_step(messages, offer, relay, **options)


async def run_turn(
    model: ConversationModel,
    turn: TurnInput,
    max_tool_steps: int,
    relay: Relay | None = None,
    observer: ToolObserver | None = None,
) -> TurnResult:
    started = time.perf_counter()
    result = TurnResult()
    base = [{"role": "system", "content": turn.instructions}, *turn.thread, *turn.new]
    tools = toolset(turn.tools)
    specs = [tool.spec() for tool in tools.values()]
    while True:
        offer = specs if specs and result.steps < max_tool_steps else None
        step = await _step(model, [*base, *result.added], offer, relay, turn.options)
        result.steps += 1
        result.prompt_tokens += step.prompt_tokens
        result.completion_tokens += step.completion_tokens
        result.reply += step.content or ""
        if offer is None or not step.tool_calls:
            result.finish_reason = step.finish_reason
            result.added.append({"role": "assistant", "content": step.content or ""})
            break
        result.added.append(_assistant_with_calls(step))
        for call in step.tool_calls:
            result.tool_calls.append(call.name if call.name in tools else "unknown")
            if observer is not None:
                await observer.tool_call(call.id, call.name, call.arguments)
            began = time.perf_counter()
            outcome = await run_tool_call(tools, turn.context, call.name, call.arguments)
            if observer is not None:
                took = (time.perf_counter() - began) * 1000
                await observer.tool_result(call.id, outcome.output, took, outcome.error)
            if outcome.error is not None:
                result.tool_errors.append(outcome.error)
            result.added.append(
                {"role": "tool", "tool_call_id": call.id, "content": outcome.output}
            )
    result.duration_ms = (time.perf_counter() - started) * 1000
    log.info(
        "chat.turn",
        agent_id=turn.agent_id,
        steps=result.steps,
        tools=result.tool_calls,
        tool_errors=result.tool_errors,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        duration_ms=round(result.duration_ms, 1),
    )
    return result
