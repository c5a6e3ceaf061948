"""An agent's retention (`GET`/`PUT /api/memory/settings/{agentId}/retention`)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field

from memory.settings import Retention
from worker.http.server.answers.base import Answer


def _days(what: str) -> Any:
    return Field(description=f"days {what} are kept; null: until deleted")


class RetentionSettings(Answer):
    """How long the agent keeps each kind of record. Facts are not listed: they are kept until
    the person or the model deletes them."""

    agent_id: str
    calls: int | None = _days("call records")
    sessions: int | None = _days("chat sessions (with their turns and decisions) unused")
    ops: int | None = _days("ops events")
    reads: int | None = _days("read records")
    journals: int | None = _days("journals of calls never saved")

    @classmethod
    def of(cls, agent_id: str, retention: Retention) -> Self:
        return cls(
            agent_id=agent_id,
            calls=retention.calls,
            sessions=retention.sessions,
            ops=retention.ops,
            reads=retention.reads,
            journals=retention.journals,
        )
