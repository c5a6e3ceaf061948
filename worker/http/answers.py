"""The shapes of the API's answers, for its OpenAPI document (`worker.http.openapi`).

Requests are validated by the pydantic models the routes already use; answers are built as plain
dicts by the routes, and these models describe them. Every model forbids extra fields, so the
OpenAPI test (which validates real answers against the document) fails when a route answers a
field the document does not name. Field names are the wire names (camelCase).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Timestamp = str  # ISO 8601 with a UTC offset
Origin = Literal["studio", "code", "default"]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(_Answer):
    code: str
    message: str
    field: str | None
    # on the OpenAI-compatible chat wire (`/v1/...`) also OpenAI's own two fields
    type: str | None = None
    param: str | None = None


class ErrorAnswer(_Answer):
    """Every error: the status follows from the code (`worker.http.statuses`)."""

    error: ErrorDetail


class Health(_Answer):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "timeout", "unreachable"]
    # how search over facts ranks here, and why not by meaning (docs/deployment.md)
    search: Literal["semantic", "lexical"] | None = None
    searchReason: str | None = None


class Binding(_Answer):
    identityKey: str
    source: Literal["code", "studio"]
    fixedAt: Timestamp | None


class SettingValues(_Answer):
    read: bool
    save: bool
    instructions: str | None
    remember: list[str]
    forget: list[str]
    timeZone: str | None


class Overrides(_Answer):
    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: list[str] | None = None
    forget: list[str] | None = None
    timeZone: str | None = None


class Origins(_Answer):
    read: Origin
    save: Origin
    instructions: Origin
    remember: Origin
    forget: Origin
    timeZone: Origin


class Settings(_Answer):
    agentId: str
    overrides: Overrides
    value: SettingValues
    origins: Origins
    binding: Binding | None


class MemoryAgent(_Answer):
    agentId: str
    binding: Binding | None
    declaredIn: str  # "AGENTS=module:attr", or "worker <file>" for an attached worker
    source: Literal["module", "worker"]
    firstSeen: Timestamp | None
    lastSeen: Timestamp | None
    tools: list[str]
    collections: list[str]
    loaded: bool  # whether this web process can run its text turns
    conflictWith: str | None  # where replaced, different memory defaults were declared


class AgentRemoved(_Answer):
    agentId: str
    removed: bool


class MemoryAgents(_Answer):
    agents: list[MemoryAgent]


class FactItem(_Answer):
    id: str
    content: str
    createdAt: Timestamp
    updatedAt: Timestamp


class CallItem(_Answer):
    id: str
    startedAt: Timestamp
    durationSeconds: float | None
    outcome: str | None
    runId: str | None
    summary: str
    createdAt: Timestamp


class CustomerMemory(_Answer):
    agentId: str
    userId: str
    facts: list[FactItem]
    calls: list[CallItem]


class FactVersionItem(_Answer):
    factId: str
    versionId: str
    content: str
    validFrom: Timestamp
    validTo: Timestamp | None
    endedBy: str | None


class FactHistory(_Answer):
    agentId: str
    userId: str
    versions: list[FactVersionItem]


class Erased(_Answer):
    agentId: str
    userId: str
    deleted: int


class SearchItem(_Answer):
    contact: str
    id: str | None
    text: str | None
    score: float


class SearchResults(_Answer):
    agentId: str
    userId: str | None
    mode: Literal["lexical", "semantic", "hybrid", "identifier"]
    lexicalOnly: bool
    reason: str | None
    items: list[SearchItem]


class PlatformDefault(_Answer):
    model: str
    reasoningEffort: str


class Guidance(_Answer):
    draft: str | None
    draftSavedAt: Timestamp | None
    published: str | None
    publishedAt: Timestamp | None
    usesBuiltIn: bool
    builtIn: str


class Extraction(_Answer):
    model: str | None
    reasoningEffort: str | None
    platformDefault: PlatformDefault
    reasoningEfforts: list[str]
    guidance: Guidance
    updatedAt: Timestamp | None


class ActivityItem(_Answer):
    id: int
    at: Timestamp
    actor: str
    agentId: str | None
    action: str
    fields: list[str]


class Activity(_Answer):
    entries: list[ActivityItem]


class OpItem(_Answer):
    op: Literal["add", "update", "delete"]
    id: str
    version: str
    supersedes: str | None
    valid_from: Timestamp
    valid_to: Timestamp | None
    text: str | None


class OpsMemory(_Answer):
    revision: int


class OpsEventItem(_Answer):
    """One `memory.ops` event, as listeners and the data channel get it (snake_case: the
    event's own JSON, not a route's camelCase)."""

    id: int
    agent_id: str
    contact: str
    call_id: str | None
    turn: int | None
    final: bool
    ops: list[OpItem]
    memory: OpsMemory
    model: str
    latency_ms: float


class OpsLog(_Answer):
    agentId: str
    events: list[OpsEventItem]
    next: int


class AgentCounts(_Answer):
    agentId: str
    people: int
    facts: int
    callsLastDay: int
    failedSavesLastDay: int
    failuresByReason: dict[str, int]


class Overview(_Answer):
    agents: list[AgentCounts]


class VoiceAgent(_Answer):
    agentId: str
    identityKey: str | None


class VoiceAgents(_Answer):
    agents: list[VoiceAgent]


class MemoryOutlook(_Answer):
    identityKey: str | None
    enabled: bool
    reason: str | None


class Room(_Answer):
    agentId: str
    roomName: str
    url: str
    token: str
    participantIdentity: str
    expiresAt: Timestamp
    dispatchId: str
    memory: MemoryOutlook


class OutboundCall(_Answer):
    agentId: str
    roomName: str
    dispatchId: str
    trunkId: str


class HeldFunction(_Answer):
    name: str
    arguments: str


class HeldToolCall(_Answer):
    """The call a held turn parked on (OpenAI's `tool_calls` item)."""

    id: str
    type: Literal["function"]
    function: HeldFunction


class PendingMember(_Answer):
    id: str
    tool: str
    allowed: list[Literal["approve", "edit", "reject"]]
    status: Literal["pending"]


class StackboneMember(_Answer):
    """What a held turn adds to a wire's answer: the pending decision."""

    decision: PendingMember


class ChatMessageAnswer(_Answer):
    role: Literal["assistant"]
    content: str | None  # None: a held turn that wrote no text
    refusal: None
    tool_calls: list[HeldToolCall] | None = None


class ChatChoice(_Answer):
    index: int
    message: ChatMessageAnswer
    logprobs: None
    finish_reason: Literal["stop", "length", "content_filter", "tool_calls"]


class ChatUsage(_Answer):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(_Answer):
    """OpenAI's completion object (with `stream: true`, its chunks as server-sent events)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    stackbone: StackboneMember | None = None  # a held turn's pending decision


class AnthropicText(_Answer):
    type: Literal["text"]
    text: str


class AnthropicToolUse(_Answer):
    """A held call (the turn parked on it)."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, object]


class AnthropicUsage(_Answer):
    input_tokens: int
    output_tokens: int


class AnthropicMessage(_Answer):
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


class AnthropicErrorDetail(_Answer):
    type: str  # Anthropic's error type (invalid_request_error, not_found_error, ...)
    code: str
    message: str
    field: str | None


class AnthropicError(_Answer):
    """An error on the Anthropic Messages wire, in Anthropic's envelope."""

    type: Literal["error"]
    error: AnthropicErrorDetail


class ChatSessionItem(_Answer):
    sessionId: str
    kind: Literal["session", "conversation"]
    key: str
    userId: str | None
    identities: dict[str, str]  # every identity the session's turns named
    createdAt: Timestamp
    updatedAt: Timestamp
    turns: int


class ChatSessions(_Answer):
    agentId: str
    sessions: list[ChatSessionItem]


class ToolCallItem(_Answer):
    """One tool call of a turn's run detail (`arguments`: what it ran with)."""

    id: str
    name: str
    arguments: str
    result: str | None  # None: a client's tool (not run here)
    error: str | None
    durationMs: float
    decision: Literal["approve", "edit", "reject"] | None


class RunDetail(_Answer):
    toolCalls: list[ToolCallItem]
    promptTokens: int
    completionTokens: int
    durationMs: float


class ChatTurnItem(_Answer):
    position: int
    userMessage: str
    reply: str
    promptTokens: int
    completionTokens: int
    durationMs: float
    createdAt: Timestamp
    run: RunDetail


class ChatSession(_Answer):
    agentId: str
    session: ChatSessionItem
    turns: list[ChatTurnItem]


class ChatSessionDeleted(_Answer):
    agentId: str
    sessionId: str
    deleted: Literal[True]
