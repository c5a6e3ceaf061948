"""The ops log: `memory.ops` events after a cursor."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from worker.http.server.answers.base import Answer, Stored, Timestamp, WireAnswer


class OpWriter(WireAnswer):
    agent: str | None
    job: str | None
    key: str | None


class OpSource(WireAnswer):
    """Where the op came from (the event's snake_case); an event logged before provenance
    reads as channel `unknown`."""

    channel: str
    call_id: str | None
    session_id: str | None
    turns: list[int]
    writer: OpWriter
    model: str | None
    evidence: str | None
    kind: str | None
    confidence: float | None


class OpItem(WireAnswer):
    """One applied op; `kind`, `confidence` and `evidence` as the model said them and kept
    (evidence only when the transcript sent holds it), `reason` for a delete."""

    op: Literal["add", "update", "delete"]
    id: str
    version: str
    supersedes: str | None
    valid_from: Timestamp
    valid_to: Timestamp | None
    text: str | None
    kind: str | None
    confidence: float | None
    evidence: str | None
    reason: str | None
    source: OpSource


class OpsMemory(Answer):
    revision: int


class OpsEventItem(WireAnswer):
    """One `memory.ops` event, as listeners and the data channel get it (snake_case: the
    event's own JSON, not a route's camelCase)."""

    id: int
    agent_id: str
    contact: str
    call_id: str | None
    channel: str  # where the write came from (`unknown` before provenance)
    session_id: str | None
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
