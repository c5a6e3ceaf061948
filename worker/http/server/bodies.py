"""The JSON bodies of chat sessions: camelCase keys and ISO 8601 timestamps.

One shape for the HTTP API and the `caller-memory sessions ...` commands, so a script can move
from one to the other without translating fields. Memory's answers are models
(`worker.http.server.answers`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from chat import SessionRow, TurnRow

Body = dict[str, Any]


def timestamp(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


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
