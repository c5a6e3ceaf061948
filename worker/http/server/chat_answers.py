"""The shapes of the chat wires' answers and of the chat sessions' routes, for the OpenAPI
document: OpenAI's completion, Anthropic's message and error, a held turn's `stackbone` member,
and a session's turns with their run detail. The API's other answers are in `answers`.
"""

from __future__ import annotations

from typing import Literal

from worker.http.server.answers.base import Timestamp, WireAnswer


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


class ChatSessionItem(WireAnswer):
    sessionId: str
    kind: Literal["session", "conversation"]
    key: str
    userId: str | None
    identities: dict[str, str]  # every identity the session's turns named
    createdAt: Timestamp
    updatedAt: Timestamp
    turns: int


class ChatSessions(WireAnswer):
    agentId: str
    sessions: list[ChatSessionItem]


class ToolCallItem(WireAnswer):
    """One tool call of a turn's run detail (`arguments`: what it ran with)."""

    id: str
    name: str
    arguments: str
    result: str | None  # None: a client's tool (not run here)
    error: str | None
    durationMs: float
    decision: Literal["approve", "edit", "reject"] | None


class RunDetail(WireAnswer):
    toolCalls: list[ToolCallItem]
    promptTokens: int
    completionTokens: int
    durationMs: float


class ChatTurnItem(WireAnswer):
    position: int
    userMessage: str
    reply: str
    promptTokens: int
    completionTokens: int
    durationMs: float
    createdAt: Timestamp
    run: RunDetail


class ChatSession(WireAnswer):
    agentId: str
    session: ChatSessionItem
    turns: list[ChatTurnItem]


class ChatSessionDeleted(WireAnswer):
    agentId: str
    sessionId: str
    deleted: Literal[True]
