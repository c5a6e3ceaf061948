"""The shapes of the chat wires' answers, for the OpenAPI document: OpenAI's completion,
Anthropic's message and error, a held turn's `stackbone` member, in each wire's own names. The
API's other answers, a session's turns with their run detail among them, are in `answers`
(`ChatSession...`, `ToolCallItem` and `RunDetail` are still importable from here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Self

from worker.http.server.answers.base import WireAnswer
from worker.http.server.answers.sessions import (
    ChatSession,
    ChatSessionDeleted,
    ChatSessionItem,
    ChatSessions,
    ChatTurnItem,
    RunDetail,
    ToolCallItem,
)

if TYPE_CHECKING:
    from chat import PendingDecision

__all__ = [
    "AnthropicError",
    "AnthropicErrorDetail",
    "AnthropicMessage",
    "AnthropicText",
    "AnthropicToolUse",
    "AnthropicUsage",
    "ChatChoice",
    "ChatCompletion",
    "ChatMessageAnswer",
    "ChatSession",
    "ChatSessionDeleted",
    "ChatSessionItem",
    "ChatSessions",
    "ChatTurnItem",
    "ChatUsage",
    "HeldFunction",
    "HeldToolCall",
    "PendingMember",
    "RunDetail",
    "StackboneMember",
    "ToolCallItem",
]


class HeldFunction(WireAnswer):
    name: str
    arguments: str


class HeldToolCall(WireAnswer):
    """The call a held turn parked on (OpenAI's `tool_calls` item)."""

    id: str
    type: Literal["function"]
    function: HeldFunction


class PendingMember(WireAnswer):
    id: str
    tool: str
    allowed: list[Literal["approve", "edit", "reject"]]
    status: Literal["pending"]


class StackboneMember(WireAnswer):
    """What a held turn adds to a wire's answer: the pending decision."""

    decision: PendingMember

    @classmethod
    def of(cls, pending: PendingDecision) -> Self:
        allowed = list(pending.allowed)
        member = PendingMember(id=pending.id, tool=pending.tool, allowed=allowed, status="pending")
        return cls(decision=member)


class ChatMessageAnswer(WireAnswer):
    role: Literal["assistant"]
    content: str | None  # None: a held turn that wrote no text
    refusal: None
    tool_calls: list[HeldToolCall] | None = None


class ChatChoice(WireAnswer):
    index: int
    message: ChatMessageAnswer
    logprobs: None
    finish_reason: Literal["stop", "length", "content_filter", "tool_calls"]


class ChatUsage(WireAnswer):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(WireAnswer):
    """OpenAI's completion object (with `stream: true`, its chunks as server-sent events)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    stackbone: StackboneMember | None = None  # a held turn's pending decision


class AnthropicText(WireAnswer):
    type: Literal["text"]
    text: str


class AnthropicToolUse(WireAnswer):
    """A held call (the turn parked on it)."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, object]


class AnthropicUsage(WireAnswer):
    input_tokens: int
    output_tokens: int


class AnthropicMessage(WireAnswer):
    """Anthropic's message object (with `stream: true`, its server-sent events)."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: list[AnthropicText | AnthropicToolUse]
    stop_reason: Literal["end_turn", "max_tokens", "tool_use"]
    stop_sequence: None
    usage: AnthropicUsage
    stackbone: StackboneMember | None = None  # a held turn's pending decision


class AnthropicErrorDetail(WireAnswer):
    type: str  # Anthropic's error type (invalid_request_error, not_found_error, ...)
    code: str
    message: str
    field: str | None


class AnthropicError(WireAnswer):
    """An error on the Anthropic Messages wire, in Anthropic's envelope."""

    type: Literal["error"]
    error: AnthropicErrorDetail
