"""The tools of a text turn and the one runner of their calls.

A `Tool` is a name, its description and JSON schema as the model sees them, and `run`: given the
turn's `ToolContext` (the agent and the customer, bound by the server when the turn starts,
never read from the model's arguments) and the model's raw arguments, it returns the text the
model reads. The memory tools, the agent's own livekit function tools
(`callmemory.function_tools`) and `search_docs` are all `Tool`s.

`run_tool_call` runs one call and always returns a `ToolOutcome`, never raises for the tool's
sake: an unknown name, arguments the tool refuses (`InvalidArguments`), a tool's own refusal
(`ToolRefused`, whose message is for the model), an exception (the model reads only that the
tool failed; the log holds the tool's name and the exception's class, never its message or
traceback) and a call past its deadline (it runs as its own task and is abandoned, never
awaited: `infra.deadline`) each become a tool error the model sees, and the turn goes on.
During a call `bound_context()` returns its `ToolContext`, so a tool can act for the turn's
customer without taking it as an argument.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import structlog

from infra.deadline import Deadline, Late, within

log = structlog.get_logger(__name__)

DEFAULT_TOOL_SECONDS: Final = 10.0
"""How long one call of an agent's tool may run before the model is told it timed out."""
ToolErrorCode = Literal[
    "unknown_tool", "invalid_arguments", "tool_refused", "tool_failed", "tool_timeout", "rejected"
]


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Who a tool acts for: fixed by the server when the turn starts."""

    agent_id: str
    user_id: str | None  # None: the turn has no known customer
    channel: Literal["text", "voice"] = "text"


_CONTEXT: contextvars.ContextVar[ToolContext] = contextvars.ContextVar("tool_context")


class NoToolContext(LookupError):
    """`bound_context()` outside a tool call that has one."""


def bound_context() -> ToolContext:
    """The agent and customer of the tool call running now."""
    try:
        return _CONTEXT.get()
    except LookupError:
        raise NoToolContext("no tool call is running with a bound agent and customer") from None


def bind_context(context: ToolContext) -> None:
    """Bind the agent and customer for the tool calls of the current task and the tasks it
    starts from now on (a voice call binds them before its session starts)."""
    _CONTEXT.set(context)


class InvalidArguments(ValueError):
    """The model's arguments break the tool's schema; the message says which rule."""


class ToolRefused(Exception):
    """A tool's own refusal whose message is meant for the model (livekit's `ToolError`)."""


Run = Callable[[ToolContext, str], Awaitable[str]]
Check = Callable[[str], object]
"""Checks raw arguments by the tool's own rules without running it (`InvalidArguments`)."""
ToolKind = Literal["memory", "agent", "documents", "client"]
"""`client`: a tool the client offered (AG-UI `tools`): the turn never runs it, it ends with
the call for the client to answer (`chat.run_turn`)."""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    run: Run
    deadline_seconds: float = DEFAULT_TOOL_SECONDS
    kind: ToolKind = "agent"
    check: Check | None = None  # checks edited arguments of a held call

    def spec(self) -> dict[str, Any]:
        """The tool in Chat Completions' `tools` shape."""
        function = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        return {"type": "function", "function": function}


def client_tool(name: str, description: str, parameters: dict[str, Any]) -> Tool:
    """A tool the client offered (AG-UI `tools`): offered to the model, never run here."""

    async def on_the_client(_: ToolContext, __: str) -> str:
        raise ToolRefused("this tool runs on the client")

    return Tool(name, description, parameters, on_the_client, kind="client")


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """One call's result: the text fed back to the model, and its error code if it failed."""

    name: str
    output: str
    error: ToolErrorCode | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _error(name: str, code: ToolErrorCode, message: str) -> ToolOutcome:
    return ToolOutcome(name, json.dumps({"error": code, "message": message}), code)


def toolset(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Tools by name; a second tool of one name is refused (a definition error upstream)."""
    found: dict[str, Tool] = {}
    for tool in tools:
        if tool.name in found:
            raise ValueError(f"tools: {tool.name} is offered twice")
        found[tool.name] = tool
    return found


async def run_tool_call(
    tools: Mapping[str, Tool], context: ToolContext, name: str, raw_arguments: str
) -> ToolOutcome:
    """Run one call of the model's; every failure becomes a tool error the model reads."""
    tool = tools.get(name)
    if tool is None:
        return ToolOutcome(name, json.dumps({"error": "unknown_tool"}), "unknown_tool")
    token = _CONTEXT.set(context)
    try:
        work = tool.run(context, raw_arguments)
        output = await within(Deadline.after(tool.deadline_seconds), work, step="chat.tool")
    except Late:
        log.warning("chat.tool_timeout", tool=tool.name, seconds=tool.deadline_seconds)
        return _error(
            name, "tool_timeout", f"the tool did not answer within {tool.deadline_seconds:g} s"
        )
    except InvalidArguments as problem:
        return _error(name, "invalid_arguments", str(problem))
    except ToolRefused as refused:
        return _error(name, "tool_refused", str(refused))
    except Exception as exc:  # the tool's own failure: the model and the log see its class only
        log.warning("chat.tool_failed", tool=tool.name, error_type=type(exc).__name__)
        return _error(name, "tool_failed", "the tool failed; answer without its result")
    finally:
        _CONTEXT.reset(token)
    return ToolOutcome(name, output)
