"""The shapes of the chat wires' answers and of the chat sessions' routes, for the OpenAPI
document: OpenAI's completion, Anthropic's message and error, a held turn's `stackbone` member,
and a session's turns with their run detail. The API's other answers are in `answers`.
"""

from __future__ import annotations

from typing import Literal

from worker.http.server.answers import Answer, Timestamp


class HeldFunction(Answer):
    name: str
    arguments: str


class HeldToolCall(Answer):
    """The call a held turn parked on (OpenAI's `tool_calls` item)."""

    id: str
    type: Literal["function"]
    function: HeldFunction


class PendingMember(Answer):
    id: str
    tool: str
    allowed: list[Literal["approve", "edit", "reject"]]
    status: Literal["pending"]


class StackboneMember(Answer):
    """What a held turn adds to a wire's answer: the pending decision."""

    decision: PendingMember


class ChatMessageAnswer(Answer):
    role: Literal["assistant"]
    content: str | None  # None: a held turn that wrote no text
    refusal: None
    tool_calls: list[HeldToolCall] | None = None


class ChatChoice(Answer):
    index: int
    message: ChatMessageAnswer
    logprobs: None
    finish_reason: Literal["stop", "length", "content_filter", "tool_calls"]


class ChatUsage(Answer):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(Answer):
    """OpenAI's completion object (with `stream: true`, its chunks as server-sent events)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    stackbone: StackboneMember | None = None  # a held turn's pending decision


class AnthropicText(Answer):
    type: Literal["text"]
    text: str


class AnthropicToolUse(Answer):
    """A held call (the turn parked on it)."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, object]


class AnthropicUsage(Answer):
    input_tokens: int
    output_tokens: int


class AnthropicMessage(Answer):
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


class AnthropicErrorDetail(Answer):
    type: str  # Anthropic's error type (invalid_request_error, not_found_error, ...)
    code: str
    message: str
    field: str | None


class AnthropicError(Answer):
    """An error on the Anthropic Messages wire, in Anthropic's envelope."""

    type: Literal["error"]
    error: AnthropicErrorDetail


class ChatSessionItem(Answer):
    sessionId: str
    kind: Literal["session", "conversation"]
    key: str
    userId: str | None
    identities: dict[str, str]  # every identity the session's turns named
    createdAt: Timestamp
    updatedAt: Timestamp
    turns: int


class ChatSessions(Answer):
    agentId: str
    sessions: list[ChatSessionItem]


class ToolCallItem(Answer):
    """One tool call of a turn's run detail (`arguments`: what it ran with)."""

    id: str
    name: str
    arguments: str
    result: str | None  # None: a client's tool (not run here)
    error: str | None
    durationMs: float
    decision: Literal["approve", "edit", "reject"] | None


class RunDetail(Answer):
    toolCalls: list[ToolCallItem]
    promptTokens: int
    completionTokens: int
    durationMs: float


class ChatTurnItem(Answer):
    position: int
    userMessage: str
    reply: str
    promptTokens: int
    completionTokens: int
    durationMs: float
    createdAt: Timestamp
    run: RunDetail


class ChatSession(Answer):
    agentId: str
    session: ChatSessionItem
    turns: list[ChatTurnItem]


class ChatSessionDeleted(Answer):
    agentId: str
    sessionId: str
    deleted: Literal[True]
