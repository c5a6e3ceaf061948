"""The shapes of the API's answers, for its OpenAPI document (`worker.http.routes.openapi`).

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


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(Answer):
    code: str
    message: str
    field: str | None
    # on the OpenAI-compatible chat wire (`/v1/...`) also OpenAI's own two fields
    type: str | None = None
    param: str | None = None


class ErrorAnswer(Answer):
    """Every error: the status follows from the code (`worker.http.server.statuses`)."""

    error: ErrorDetail


class Health(Answer):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "timeout", "unreachable"]
    # why memory writes cannot succeed (with `degraded`), and its fix (docs/deployment.md)
    reason: str | None = None
    fix: str | None = None
    # how search over facts ranks here, and why not by meaning, with the fix
    search: Literal["semantic", "lexical"] | None = None
    searchReason: str | None = None
    searchFix: str | None = None


class Binding(Answer):
    identityKey: str
    source: Literal["code", "studio"]
    fixedAt: Timestamp | None


class SettingValues(Answer):
    read: bool
    save: bool
    instructions: str | None
    remember: list[str]
    forget: list[str]
    timeZone: str | None


class Overrides(Answer):
    read: bool | None = None
    save: bool | None = None
    instructions: str | None = None
    remember: list[str] | None = None
    forget: list[str] | None = None
    timeZone: str | None = None


class Origins(Answer):
    read: Origin
    save: Origin
    instructions: Origin
    remember: Origin
    forget: Origin
    timeZone: Origin


class Settings(Answer):
    agentId: str
    overrides: Overrides
    value: SettingValues
    origins: Origins
    binding: Binding | None


class MemoryAgent(Answer):
    agentId: str
    binding: Binding | None
    declaredIn: str  # "AGENTS=module:attr", or "worker <file>" for an attached worker
    source: Literal["module", "worker"]
    firstSeen: Timestamp | None
    lastSeen: Timestamp | None
    tools: list[str]
    heldTools: dict[str, list[Literal["approve", "edit", "reject"]]]  # tool: decisions allowed
    collections: list[str]
    loaded: bool  # whether this web process can run its text turns
    conflictWith: str | None  # where replaced, different memory defaults were declared


class AgentRemoved(Answer):
    agentId: str
    removed: bool


class MemoryAgents(Answer):
    agents: list[MemoryAgent]


class FactItem(Answer):
    id: str
    content: str
    createdAt: Timestamp
    updatedAt: Timestamp


class CallItem(Answer):
    id: str
    startedAt: Timestamp
    durationSeconds: float | None
    outcome: str | None
    runId: str | None
    summary: str
    createdAt: Timestamp


class CustomerMemory(Answer):
    agentId: str
    userId: str
    facts: list[FactItem]
    calls: list[CallItem]


class FactVersionItem(Answer):
    factId: str
    versionId: str
    content: str
    validFrom: Timestamp
    validTo: Timestamp | None
    endedBy: str | None


class FactHistory(Answer):
    agentId: str
    userId: str
    versions: list[FactVersionItem]


class Erased(Answer):
    agentId: str
    userId: str
    deleted: int


class SearchItem(Answer):
    contact: str
    id: str | None
    text: str | None
    score: float


class SearchResults(Answer):
    agentId: str
    userId: str | None
    mode: Literal["lexical", "semantic", "hybrid", "identifier"]
    lexicalOnly: bool
    reason: str | None
    items: list[SearchItem]


class PlatformDefault(Answer):
    model: str
    reasoningEffort: str


class Guidance(Answer):
    draft: str | None
    draftSavedAt: Timestamp | None
    published: str | None
    publishedAt: Timestamp | None
    usesBuiltIn: bool
    builtIn: str


class Extraction(Answer):
    model: str | None
    reasoningEffort: str | None
    platformDefault: PlatformDefault
    reasoningEfforts: list[str]
    guidance: Guidance
    updatedAt: Timestamp | None


class ActivityItem(Answer):
    id: int
    at: Timestamp
    actor: str
    agentId: str | None
    action: str
    fields: list[str]


class Activity(Answer):
    entries: list[ActivityItem]


class OpItem(Answer):
    op: Literal["add", "update", "delete"]
    id: str
    version: str
    supersedes: str | None
    valid_from: Timestamp
    valid_to: Timestamp | None
    text: str | None


class OpsMemory(Answer):
    revision: int


class OpsEventItem(Answer):
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


class OpsLog(Answer):
    agentId: str
    events: list[OpsEventItem]
    next: int


class AgentCounts(Answer):
    agentId: str
    people: int
    facts: int
    callsLastDay: int
    failedSavesLastDay: int
    failuresByReason: dict[str, int]


class Overview(Answer):
    agents: list[AgentCounts]


class VoiceAgent(Answer):
    agentId: str
    identityKey: str | None


class VoiceAgents(Answer):
    agents: list[VoiceAgent]


class MemoryOutlook(Answer):
    identityKey: str | None
    enabled: bool
    reason: str | None


class Room(Answer):
    agentId: str
    roomName: str
    url: str
    token: str
    participantIdentity: str
    expiresAt: Timestamp
    dispatchId: str
    memory: MemoryOutlook


class OutboundCall(Answer):
    agentId: str
    roomName: str
    dispatchId: str
    trunkId: str
