"""The export of one person (`POST /api/memory/customers/{agentId}/export`): documented here,
written by `memory.store.export_person` as it streams (this model never builds the answer)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from worker.http.server.answers.base import Answer

Rows = list[dict[str, Any]]


def _rows(what: str) -> Any:
    return Field(description=f"{what}: each row as stored, every column by its name")


class MemoryExport(Answer):
    """Everything held about one person under one agent, read in one snapshot."""

    agent_id: str
    user_id: str
    exported_at: str = Field(description="when the snapshot was read (ISO 8601)")
    revision: int | None = Field(
        description="the person's revision counter (kept after an erasure; null: never written)"
    )
    facts: Rows = _rows("current facts")
    fact_versions: Rows = _rows("closed fact versions (updated or deleted)")
    fact_vectors: Rows = _rows("the facts' embeddings (with semantic search only)")
    calls: Rows = _rows("call records, oldest first")
    ops_events: Rows = _rows("memory.ops events of the ops log")
    journals: Rows = _rows("journals of calls not saved yet")
    journal_entries: Rows = _rows("what those calls heard")
    chat_sessions: Rows = _rows("chat sessions that name the person under any identity")
    chat_turns: Rows = _rows("those sessions' turns, with their run detail")
    decisions: Rows = _rows("held tools' decisions of those sessions or naming the person")
    idempotency_keys: Rows = _rows("idempotency keys of adds over HTTP, with their answers")
    reads: Rows = _rows("who read the person's memory: when, channel, route, counts returned")
