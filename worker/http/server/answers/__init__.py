"""The API's answers, one pydantic model each: the route builds it from the domain's values,
`Answer.wire()` gives the JSON it answers (and the CLI prints), and the OpenAPI document
(`worker.http.routes.openapi`) describes it from the same class. Wire names are camelCase by the
alias generator (`base`); an event's own snake_case keeps its names (`WireAnswer`).

One module per family: `customers` (memory, history, erasure, search), `settings` (settings
and the registered agents), `sessions` (chat sessions, a turn's run detail), `decisions` (held
tools' decisions), `documents` (collections, documents, hits), `health`, `extraction`,
`activity`, `ops`, `overview`, `voice`, and the `errors` (ours, and the chat wires' own
envelopes). Every model is importable from here; the chat wires' own answers (OpenAI's,
Anthropic's) are in `chat_answers`, their streams' pieces in `chat_events`.

A family's module loads with the first of its names used (`_HOMES`): a CLI command builds its
one answer without the others' models (`caller-memory memory recall` loads `customers` alone).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from worker.http.server.answers.activity import Activity, ActivityItem
    from worker.http.server.answers.base import Answer, Number, Stored, Timestamp, WireAnswer
    from worker.http.server.answers.customers import (
        Added,
        AppliedItem,
        CallItem,
        CustomerItem,
        CustomerMemory,
        Customers,
        Erased,
        FactHistory,
        FactItem,
        FactVersionItem,
        SearchItem,
        SearchResults,
    )
    from worker.http.server.answers.decisions import (
        Continued,
        DecisionItem,
        Decisions,
        PendingItem,
        TakenDecision,
    )
    from worker.http.server.answers.documents import (
        CollectionItem,
        Collections,
        DocumentHit,
        DocumentItem,
        DocumentList,
        DocumentSearch,
    )
    from worker.http.server.answers.errors import (
        AnthropicError,
        AnthropicErrorDetail,
        ErrorAnswer,
        ErrorDetail,
    )
    from worker.http.server.answers.export import MemoryExport
    from worker.http.server.answers.extraction import Extraction, Guidance, PlatformDefault
    from worker.http.server.answers.health import Health
    from worker.http.server.answers.ops import OpItem, OpsEventItem, OpsLog, OpsMemory
    from worker.http.server.answers.overview import AgentCounts, Overview
    from worker.http.server.answers.reads import ReadItem, Reads
    from worker.http.server.answers.retention import RetentionSettings
    from worker.http.server.answers.sessions import (
        ChatSession,
        ChatSessionDeleted,
        ChatSessionItem,
        ChatSessions,
        ChatTurnItem,
        RunDetail,
        ToolCallItem,
    )
    from worker.http.server.answers.settings import (
        AgentRemoved,
        Binding,
        MemoryAgent,
        MemoryAgents,
        Origin,
        Origins,
        Overrides,
        Settings,
        SettingValues,
    )
    from worker.http.server.answers.voice import (
        MemoryOutlook,
        OutboundCall,
        Room,
        VoiceAgent,
        VoiceAgents,
    )

_HOMES = {  # each name's family module, imported on the name's first use
    "Activity": "activity",
    "ActivityItem": "activity",
    "Added": "customers",
    "AgentCounts": "overview",
    "AgentRemoved": "settings",
    "Answer": "base",
    "AnthropicError": "errors",
    "AnthropicErrorDetail": "errors",
    "AppliedItem": "customers",
    "Binding": "settings",
    "CallItem": "customers",
    "ChatSession": "sessions",
    "ChatSessionDeleted": "sessions",
    "ChatSessionItem": "sessions",
    "ChatSessions": "sessions",
    "ChatTurnItem": "sessions",
    "CollectionItem": "documents",
    "Collections": "documents",
    "Continued": "decisions",
    "CustomerItem": "customers",
    "CustomerMemory": "customers",
    "Customers": "customers",
    "DecisionItem": "decisions",
    "Decisions": "decisions",
    "DocumentHit": "documents",
    "DocumentItem": "documents",
    "DocumentList": "documents",
    "DocumentSearch": "documents",
    "Erased": "customers",
    "ErrorAnswer": "errors",
    "ErrorDetail": "errors",
    "Extraction": "extraction",
    "FactHistory": "customers",
    "FactItem": "customers",
    "FactVersionItem": "customers",
    "Guidance": "extraction",
    "Health": "health",
    "MemoryAgent": "settings",
    "MemoryAgents": "settings",
    "MemoryExport": "export",
    "MemoryOutlook": "voice",
    "Number": "base",
    "OpItem": "ops",
    "OpsEventItem": "ops",
    "OpsLog": "ops",
    "OpsMemory": "ops",
    "Origin": "settings",
    "Origins": "settings",
    "OutboundCall": "voice",
    "Overrides": "settings",
    "Overview": "overview",
    "PendingItem": "decisions",
    "PlatformDefault": "extraction",
    "ReadItem": "reads",
    "Reads": "reads",
    "RetentionSettings": "retention",
    "Room": "voice",
    "RunDetail": "sessions",
    "SearchItem": "customers",
    "SearchResults": "customers",
    "SettingValues": "settings",
    "Settings": "settings",
    "Stored": "base",
    "TakenDecision": "decisions",
    "Timestamp": "base",
    "ToolCallItem": "sessions",
    "VoiceAgent": "voice",
    "VoiceAgents": "voice",
    "WireAnswer": "base",
}

__all__ = [
    "Activity",
    "ActivityItem",
    "Added",
    "AgentCounts",
    "AgentRemoved",
    "Answer",
    "AnthropicError",
    "AnthropicErrorDetail",
    "AppliedItem",
    "Binding",
    "CallItem",
    "ChatSession",
    "ChatSessionDeleted",
    "ChatSessionItem",
    "ChatSessions",
    "ChatTurnItem",
    "CollectionItem",
    "Collections",
    "Continued",
    "CustomerItem",
    "CustomerMemory",
    "Customers",
    "DecisionItem",
    "Decisions",
    "DocumentHit",
    "DocumentItem",
    "DocumentList",
    "DocumentSearch",
    "Erased",
    "ErrorAnswer",
    "ErrorDetail",
    "Extraction",
    "FactHistory",
    "FactItem",
    "FactVersionItem",
    "Guidance",
    "Health",
    "MemoryAgent",
    "MemoryAgents",
    "MemoryExport",
    "MemoryOutlook",
    "Number",
    "OpItem",
    "OpsEventItem",
    "OpsLog",
    "OpsMemory",
    "Origin",
    "Origins",
    "OutboundCall",
    "Overrides",
    "Overview",
    "PendingItem",
    "PlatformDefault",
    "ReadItem",
    "Reads",
    "RetentionSettings",
    "Room",
    "RunDetail",
    "SearchItem",
    "SearchResults",
    "SettingValues",
    "Settings",
    "Stored",
    "TakenDecision",
    "Timestamp",
    "ToolCallItem",
    "VoiceAgent",
    "VoiceAgents",
    "WireAnswer",
]


def __getattr__(name: str) -> Any:
    """Import a name's family on first use and keep the name here."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value
