"""The `memory.ops` event: what one pass applied, as the JSON that every destination gets.

One event per write that changed something (an empty pass emits nothing), built here from the
write's outcome and the pass's context, free of I/O. The same JSON reaches in-process
listeners (`memory.ops`), the room's data channel (`lifecycle.live`) and the ops log,
whose rows `from_row` turns back into it (`memory.store._write_statement` writes the ops array with
the same keys and instant format, so a replayed event equals the live one).

The event is data, not a log line: it carries the fact text a listener needs (a CRM). Logs never
hold it; only ids, counts and codes are logged.

    {"id": 42, "agent_id": "front-desk", "contact": "<user id>", "call_id": "<job id>",
     "turn": 3, "final": false,
     "channel": "voice", "session_id": null,
     "ops": [{"op": "update", "id": "<fact id>", "version": "<version id>",
              "supersedes": "<previous version id>", "valid_from": "2026-12-03T07:20:00.000000Z",
              "valid_to": null, "text": "<fact text>", "kind": "contact", "confidence": 0.9,
              "evidence": "<the caller's words>", "reason": null, "source": {...}}],
     "memory": {"revision": 12}, "model": "<extraction model>", "latency_ms": 812.5}

`channel` and `session_id` say where the write came from; each op carries what the model said
of it (`kind`, `confidence`, `evidence`, a delete's `reason`: `memory.contract._provenance`)
and its `source` (an add's or update's is its new version's). Rows of the ops log written
before provenance (migration 0030) read as an unknown source: channel `"unknown"`, no notes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memory.contract import (
    UNKNOWN_CHANNEL,
    UNKNOWN_SOURCE,
    AppliedOp,
    PassContext,
    Written,
    source_json,
)

OpsEvent = dict[str, Any]
TOPIC = "memory.ops"  # the event's name for listeners and its data channel topic
_INSTANT = "%Y-%m-%dT%H:%M:%S.%fZ"


def instant(value: datetime | None) -> str | None:
    """An instant as the event writes it: UTC, microseconds, `Z` (as the SQL renders it)."""
    return None if value is None else value.astimezone(UTC).strftime(_INSTANT)


def op_json(op: AppliedOp) -> dict[str, Any]:
    return {
        "op": op.op,
        "id": op.fact_id,
        "version": op.version_id,
        "supersedes": op.supersedes,
        "valid_from": instant(op.valid_from),
        "valid_to": instant(op.valid_to),
        "text": op.text,
        "kind": op.note.kind,
        "confidence": op.note.confidence,
        "evidence": op.note.evidence,
        "reason": op.note.reason,
        "source": source_json(UNKNOWN_SOURCE if op.source is None else op.source),
    }


_UNKNOWN_NOTES = {
    "kind": None,
    "confidence": None,
    "evidence": None,
    "reason": None,
    "source": source_json(UNKNOWN_SOURCE),
}


def _stored_op(op: dict[str, Any]) -> dict[str, Any]:
    """A logged op; one logged before provenance gets the unknown source and no notes."""
    return op if "source" in op else {**op, **_UNKNOWN_NOTES}


def build_event(
    written: Written, context: PassContext, *, agent_id: str, user_id: str, call_id: str | None
) -> OpsEvent | None:
    """The event for one write; None when it changed nothing (no event, no log row)."""
    if not written.applied or written.log_id is None:
        return None
    first = written.applied[0].source
    write = UNKNOWN_SOURCE if first is None else first
    return _event(
        log_id=written.log_id,
        agent_id=agent_id,
        user_id=user_id,
        call_id=call_id,
        channel=write.channel,
        session_id=write.session_id,
        turn=context.turn,
        final=context.final,
        ops=[op_json(op) for op in written.applied],
        revision=written.revision,
        model=context.model,
        latency_ms=context.latency_ms,
    )


def from_row(row: Any) -> OpsEvent:
    """An ops log row (`memory.store._ops_log`) as the event it stored (`source`: the row's
    source as a dict, None before migration 0030)."""
    write = row.get("source") or {}
    return _event(
        log_id=row["id"],
        agent_id=row["agent_id"],
        user_id=row["user_id"],
        call_id=row["call_id"],
        channel=write.get("channel") or UNKNOWN_CHANNEL,
        session_id=write.get("session_id"),
        turn=row["turn"],
        final=row["final"],
        ops=[_stored_op(op) for op in row["ops"]],
        revision=row["revision"],
        model=row["model"],
        latency_ms=row["latency_ms"],
    )


def _event(
    *,
    log_id: int,
    agent_id: str,
    user_id: str,
    call_id: str | None,
    channel: str,
    session_id: str | None,
    turn: int | None,
    final: bool,
    ops: list[dict[str, Any]],
    revision: int,
    model: str,
    latency_ms: float,
) -> OpsEvent:
    return {
        "id": log_id,
        "agent_id": agent_id,
        "contact": user_id,
        "call_id": call_id,
        "channel": channel,
        "session_id": session_id,
        "turn": turn,
        "final": final,
        "ops": ops,
        "memory": {"revision": revision},
        "model": model,
        "latency_ms": latency_ms,
    }
