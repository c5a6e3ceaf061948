"""What one text turn did: its reply, what it added to the thread, its tokens and its run detail
(each tool call with its arguments, result, error, duration and a person's decision), and why
it ended (an answer, a call parked on a person's decision, or calls the client answers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chat.held import DecisionKind, PendingDecision

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model asked for: its id, the tool's name, the arguments as JSON text."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolRun:
    """One tool call of a turn as the run detail keeps it (arguments: what it ran with)."""

    id: str
    name: str
    arguments: str
    result: str | None  # None: not run (a client's tool)
    error: str | None
    duration_ms: float
    decision: DecisionKind | None = None


@dataclass(frozen=True, slots=True)
class Parked:
    """The call a turn stopped on and the calls of its step still to run after it."""

    call: ToolCall
    allowed: tuple[DecisionKind, ...]
    rest: tuple[ToolCall, ...] = ()


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
    finish_reason: str = "stop"  # "stop", "length" past max tokens, "tool_calls" (held, client)
    held: PendingDecision | None = None  # the decision the turn parked on (set by the store)
    client_calls: list[ToolCall] = field(default_factory=list)  # the client answers these
    run: list[ToolRun] = field(default_factory=list)
    parked: Parked | None = None  # the call the turn stopped on (`held` once stored)
