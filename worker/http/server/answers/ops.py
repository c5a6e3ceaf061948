"""The ops log: `memory.ops` events after a cursor."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from worker.http.server.answers.base import Answer, Stored, Timestamp, WireAnswer


class OpItem(WireAnswer):
    op: Literal["add", "update", "delete"]
    id: str
    version: str
    supersedes: str | None
    valid_from: Timestamp
    valid_to: Timestamp | None
    text: str | None


class OpsMemory(Answer):
    revision: int


class OpsEventItem(WireAnswer):
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
    """An agent's events after a cursor; `next`: the cursor to ask with next."""

    agent_id: str
    events: list[Annotated[dict[str, Any], Stored(OpsEventItem)]]  # as the log kept them
    next: int
