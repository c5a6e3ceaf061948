"""The JSON bodies of memory results: camelCase keys and ISO 8601 timestamps.

One shape for the HTTP API and the `caller-memory memory ...` and `sessions ...` commands, so a
script can move from one to the other without translating fields.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from chat import SessionRow, TurnRow
from memory.contract import (
    AddOutcome,
    AppliedOp,
    CallRecord,
    DeleteOutcome,
    Fact,
    FactVersion,
    History,
    Recall,
)
from memory.search import SearchHit, SearchOutcome

Body = dict[str, Any]


def timestamp(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def fact_body(fact: Fact) -> Body:
    return {
        "id": fact.id,
        "content": fact.content,
        "createdAt": timestamp(fact.created_at),
        "updatedAt": timestamp(fact.updated_at),
    }


def call_body(call: CallRecord) -> Body:
    return {
        "id": call.id,
        "startedAt": timestamp(call.started_at),
        "durationSeconds": call.duration_seconds,
        "outcome": call.outcome,
        "runId": call.run_id,
        "summary": call.summary,
        "createdAt": timestamp(call.created_at),
    }


def version_body(version: FactVersion) -> Body:
    return {
        "factId": version.fact_id,
        "versionId": version.version_id,
        "content": version.content,
        "validFrom": timestamp(version.valid_from),
        "validTo": timestamp(version.valid_to),
        "endedBy": version.ended_by,
    }


def hit_body(hit: SearchHit) -> Body:
    return {"contact": hit.contact, "id": hit.id, "text": hit.text, "score": hit.score}


def applied_body(op: AppliedOp) -> Body:
    return {
        "op": op.op,
        "factId": op.fact_id,
        "versionId": op.version_id,
        "supersedes": op.supersedes,
        "validFrom": timestamp(op.valid_from),
        "validTo": timestamp(op.valid_to),
    }


def recall_body(agent_id: str, user_id: str, memory: Recall) -> Body:
    return {
        "agentId": agent_id,
        "userId": user_id,
        "facts": [fact_body(f) for f in memory.facts],
        "calls": [call_body(c) for c in memory.calls],
    }


def history_body(agent_id: str, user_id: str, kept: History) -> Body:
    return {
        "agentId": agent_id,
        "userId": user_id,
        "versions": [version_body(v) for v in kept.versions],
    }


def delete_body(agent_id: str, user_id: str, outcome: DeleteOutcome) -> Body:
    return {"agentId": agent_id, "userId": user_id, "deleted": outcome.deleted}


def search_body(agent_id: str, user_id: str | None, found: SearchOutcome) -> Body:
    return {
        "agentId": agent_id,
        "userId": user_id,
        "mode": found.mode,
        "lexicalOnly": found.lexical_only,
        "reason": found.reason,
        "items": [hit_body(hit) for hit in found.items],
    }


def add_body(agent_id: str, user_id: str, outcome: AddOutcome) -> Body:
    return {
        "agentId": agent_id,
        "userId": user_id,
        "revision": outcome.revision,
        "facts": [fact_body(f) for f in outcome.facts],
        "call": call_body(outcome.call),
        "applied": [applied_body(op) for op in outcome.applied],
    }


def session_body(row: SessionRow) -> Body:
    """A chat session as the operator routes and `caller-memory sessions` show it."""
    return {
        "sessionId": row.id,
        "kind": row.kind,
        "key": row.key,
        "userId": row.user_id,
        "identities": row.identities,
        "createdAt": timestamp(row.created_at),
        "updatedAt": timestamp(row.updated_at),
        "turns": row.turns,
    }


def turn_body(row: TurnRow) -> Body:
    return {
        "position": row.position,
        "userMessage": row.user_message,
        "reply": row.reply,
        "promptTokens": row.prompt_tokens,
        "completionTokens": row.completion_tokens,
        "durationMs": row.duration_ms,
        "createdAt": timestamp(row.created_at),
        "run": {
            "toolCalls": row.run,
            "promptTokens": row.prompt_tokens,
            "completionTokens": row.completion_tokens,
            "durationMs": row.duration_ms,
        },
    }


def sessions_body(agent_id: str, rows: list[SessionRow]) -> Body:
    return {"agentId": agent_id, "sessions": [session_body(r) for r in rows]}


def one_session_body(agent_id: str, row: SessionRow, turns: list[TurnRow]) -> Body:
    return {
        "agentId": agent_id,
        "session": session_body(row),
        "turns": [turn_body(t) for t in turns],
    }


def session_deleted_body(agent_id: str, session_id: str) -> Body:
    return {"agentId": agent_id, "sessionId": session_id, "deleted": True}
