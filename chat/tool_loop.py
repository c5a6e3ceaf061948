"""One text turn: the agent's instructions, the thread, the new messages, and a bounded loop
in which the conversation model may call the turn's tools, each result fed back.

The turn's tools are `chat.toolbox.Tool`s: the memory tools, the agent's own function tools
and `search_docs`, all run by `run_tool_call` with the turn's bound `ToolContext`, so a failing,
slow or misused tool becomes a tool error the model reads and the turn goes on.
At most `max_tool_steps` model requests are offered the tools; the request after them is
offered none, so every turn ends in an answer, unless it stops for someone else:
- a call of a held tool (`interrupt_on`, `chat.held`) parks the turn: the step's earlier calls
  ran, the held one waits with the step's later calls (`result.parked`), and the caller stores
  it (`chat.decisions`); `run_turn(..., resume=...)` goes on from there once a person decided,
  and a later held call of the same turn parks it again. A turn that cannot wait (no session)
  raises `HeldNeedsSession` before any call of that step runs.
- a call of a client's tool (`Tool.kind == "client"`) is not run: the turn ends after its
  step's other calls ran, with the calls in `result.client_calls` (`finish_reason`
  `tool_calls`), for the client to answer on its next turn.
With a relay every step is streamed and each text delta reaches the relay as the model writes
it; an observer hears each call once the model wrote it and each result with its duration.
Each call is kept in `result.run` (arguments, result, error, duration, decision), and a journal
(`chat.journal`) hears the turn so far after each call that acts, so its session keeps it; a
turn given the kept progress of a failed one (`carry`) goes on from it. Nothing of
the messages, tool arguments or tool results is logged: the turn's log line holds counts,
tool names, tool error codes and tokens.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from chat.held import Decision, DecisionKind, HeldNeedsSession, held_kinds, ordered, rejection
from chat.journal import Journal, journalled
from chat.model import ConversationModel, Relay, Step
from chat.toolbox import Tool, ToolContext, ToolOutcome, run_tool_call, toolset
from chat.turn_result import Message, Parked, ToolCall, ToolRun, TurnResult

__all__ = ["Resume", "ToolObserver", "TurnInput", "TurnResult", "run_turn"]
log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class TurnInput:
    agent_id: str
    instructions: str
    thread: list[Message]  # earlier turns of a kept session
    new: list[Message]  # what the client sent this time
    context: ToolContext  # the agent and customer the tools act for
    tools: tuple[Tool, ...] = ()  # memory, the agent's own, search_docs, the client's
    options: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, ...
    interrupt_on: Mapping[str, frozenset[DecisionKind]] = field(default_factory=dict)
    can_park: bool = False  # a session can wait for a decision; without one a held call fails


@dataclass(frozen=True, slots=True)
class Resume:
    """Go on with a parked turn: its progress and the decision on its parked call (`edited`:
    the checked arguments of an edit)."""

    progress: TurnResult
    decision: Decision
    edited: str | None = None


class ToolObserver(Protocol):
    async def tool_call(self, call_id: str, name: str, arguments: str) -> None: ...

    async def tool_result(
        self, call_id: str, content: str, duration_ms: float, error: str | None
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class _Loop:
    """What every step of one turn shares."""

    model: ConversationModel
    turn: TurnInput
    tools: dict[str, Tool]
    relay: Relay | None
    observer: ToolObserver | None
    journal: Journal | None = None


def _assistant_with_calls(step: Step) -> Message:
    return {
        "role": "assistant",
        "content": step.content,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in step.tool_calls
        ],
    }


def _edited(added: list[Message], call_id: str, arguments: str) -> list[Message]:
    """The thread additions with one call's arguments replaced (an edit runs what the person
    wrote, and the thread says so)."""

    def call(c: Message) -> Message:
        if c.get("id") != call_id:
            return c
        return c | {"function": c["function"] | {"arguments": arguments}}

    return [
        m | {"tool_calls": [call(c) for c in m["tool_calls"]]} if "tool_calls" in m else m
        for m in added
    ]


async def _step(loop: _Loop, messages: list[Message], offer: list[dict[str, Any]] | None) -> Step:
    options = loop.turn.options
    if loop.relay is None:
        return await loop.model.step(messages, offer, **options)
    return await loop.model.stream_step(messages, offer, loop.relay, **options)


def _held(loop: _Loop, call: ToolCall) -> frozenset[DecisionKind] | None:
    return held_kinds(loop.turn.interrupt_on, loop.tools.get(call.name))


async def _keep(
    loop: _Loop,
    result: TurnResult,
    call: ToolCall,
    outcome: ToolOutcome,
    *,
    started: float,
    arguments: str,
    decision: DecisionKind | None = None,
) -> None:
    """One call's result: fed back to the model, kept in the run detail, told the observer."""
    duration = (time.perf_counter() - started) * 1000
    if outcome.error is not None:
        result.tool_errors.append(outcome.error)
    result.added.append({"role": "tool", "tool_call_id": call.id, "content": outcome.output})
    result.run.append(
        ToolRun(call.id, call.name, arguments, outcome.output, outcome.error, duration, decision)
    )
    if loop.observer is not None:
        await loop.observer.tool_result(call.id, outcome.output, duration, outcome.error)


async def _run(
    loop: _Loop, result: TurnResult, call: ToolCall, decided: Resume | None = None
) -> None:
    """Run one call (a decided one as the person decided) and keep its result."""
    started = time.perf_counter()
    arguments = call.arguments
    kind = None if decided is None else decided.decision.kind
    result.tool_calls.append(call.name if call.name in loop.tools else "unknown")
    if decided is not None and kind == "reject":
        outcome = ToolOutcome(call.name, rejection(decided.decision.message), "rejected")
    else:
        if decided is not None and decided.edited is not None:
            arguments = decided.edited
        outcome = await run_tool_call(loop.tools, loop.turn.context, call.name, arguments)
    await _keep(loop, result, call, outcome, started=started, arguments=arguments, decision=kind)
    if loop.journal is not None and kind != "reject" and journalled(loop.tools.get(call.name)):
        await loop.journal.kept(result)


async def _calls(loop: _Loop, result: TurnResult, calls: Sequence[ToolCall]) -> bool:
    """Run a step's calls in order; True when a held call parked the turn."""
    for index, call in enumerate(calls):
        tool = loop.tools.get(call.name)
        if tool is not None and tool.kind == "client":
            result.client_calls.append(call)
            result.run.append(ToolRun(call.id, call.name, call.arguments, None, None, 0.0))
            continue
        allowed = _held(loop, call)
        if allowed is not None:
            result.parked = Parked(call, ordered(allowed), tuple(calls[index + 1 :]))
            result.finish_reason = "tool_calls"
            return True
        await _run(loop, result, call)
    return False


async def _announce(loop: _Loop, step: Step) -> None:
    if not loop.turn.can_park:
        for call in step.tool_calls:
            if _held(loop, call) is not None:
                raise HeldNeedsSession(call.name)
    if loop.observer is not None:
        for call in step.tool_calls:
            await loop.observer.tool_call(call.id, call.name, call.arguments)


async def _resumed(loop: _Loop, resume: Resume) -> TurnResult:
    """The parked turn with its decided call done and the rest of its step run."""
    progress = resume.progress
    parked = progress.parked
    assert parked is not None
    result = TurnResult(**{**vars(progress), "parked": None, "held": None})
    if resume.edited is not None:
        result.added = _edited(result.added, parked.call.id, resume.edited)
    await _run(loop, result, parked.call, resume)
    await _calls(loop, result, parked.rest)
    return result


async def run_turn(
    model: ConversationModel,
    turn: TurnInput,
    max_tool_steps: int,
    relay: Relay | None = None,
    observer: ToolObserver | None = None,
    *,
    resume: Resume | None = None,
    journal: Journal | None = None,
    carry: TurnResult | None = None,
) -> TurnResult:
    """Run the turn (or go on with a parked one, `resume`, or with the kept progress of one
    that failed, `carry`); `journal` hears each call that acts once it ran."""
    started = time.perf_counter()
    loop = _Loop(model, turn, toolset(turn.tools), relay, observer, journal)
    result = TurnResult() if carry is None else dataclasses.replace(carry)
    if resume is not None:
        result = await _resumed(loop, resume)
    base = [{"role": "system", "content": turn.instructions}, *turn.thread, *turn.new]
    specs = [tool.spec() for tool in loop.tools.values()]
    while result.parked is None and not result.client_calls:
        offer = specs if specs and result.steps < max_tool_steps else None
        step = await _step(loop, [*base, *result.added], offer)
        result.steps += 1
        result.prompt_tokens += step.prompt_tokens
        result.completion_tokens += step.completion_tokens
        result.reply += step.content or ""
        if offer is None or not step.tool_calls:
            result.finish_reason = step.finish_reason
            result.added.append({"role": "assistant", "content": step.content or ""})
            break
        result.added.append(_assistant_with_calls(step))
        await _announce(loop, step)
        await _calls(loop, result, step.tool_calls)
    if result.client_calls and result.parked is None:
        result.finish_reason = "tool_calls"
    result.duration_ms += (time.perf_counter() - started) * 1000
    _log(turn, result)
    return result


def _log(turn: TurnInput, result: TurnResult) -> None:
    log.info(
        "chat.turn",
        agent_id=turn.agent_id,
        steps=result.steps,
        tools=result.tool_calls,
        tool_errors=result.tool_errors,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        duration_ms=round(result.duration_ms, 1),
        parked=result.parked is not None,
        client_calls=len(result.client_calls),
    )
