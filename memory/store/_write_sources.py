"""What an add's one statement records of where it came from (`memory.contract._provenance`):
each op's source and note as the statement's parameters, and, read back, each changed row's.

The sources are decided here from the plan, the call and the pass, before the write: the
statement stores them (facts, closed versions, the call record, the ops log row) and `decode`
hands the same values to the write's outcome, so the live `memory.ops` event equals its logged
row without a column read back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from memory.contract import (
    UNKNOWN_SOURCE,
    AppliedOp,
    CallMetadata,
    Change,
    Fact,
    OpNote,
    PassContext,
    Plan,
    Source,
    op_source,
    source_json,
    write_source,
)
from memory.store._stored_text import read_text, stored_json

CALL, ADDED, UPDATED, DELETED, REVISION = range(5)
"""The statement's row kinds (`memory.store._write_statement`)."""
_CHANGES: dict[int, Change] = {ADDED: "add", UPDATED: "update", DELETED: "delete"}


@dataclass(frozen=True, slots=True)
class Provenance:
    """One write's sources: the write's own (the call record's and the ops row's) and each
    op's, aligned with the plan's deletes, updates and adds."""

    write: Source
    deletes: tuple[Source, ...]
    updates: tuple[Source, ...]
    adds: tuple[Source, ...]


def provenance(agent_id: str, plan: Plan, call: CallMetadata, context: PassContext) -> Provenance:
    write = write_source(
        agent_id,
        channel=call.channel,
        call_id=call.run_id,
        session_id=call.session_id,
        job=call.job_id,
        key=call.key,
        model=context.model,
    )

    def each(change: str, count: int) -> tuple[Source, ...]:
        return tuple(op_source(write, plan.note(change, i), call.first_turn) for i in range(count))

    return Provenance(
        write,
        each("delete", len(plan.deletes)),
        each("update", len(plan.updates)),
        each("add", len(plan.adds)),
    )


def as_json(value: object) -> str:
    return json.dumps(stored_json(value), ensure_ascii=False, separators=(",", ":"))


def delete_note(note: OpNote, source: Source) -> str:
    return as_json(
        {
            "kind": note.kind,
            "confidence": note.confidence,
            "evidence": note.evidence,
            "reason": note.reason,
            "source": source_json(source),
        }
    )


@dataclass(frozen=True, slots=True)
class Noted:
    """Each changed row's note and source, found from the plan (by fact id, adds in order)."""

    notes: dict[str, OpNote]
    sources: dict[str, Source]

    def applied(self, row: asyncpg.Record) -> AppliedOp:
        # columns: kind, seq, id, body, first_at, second_at, version, prior, ...
        kind, _, fact_id, body, first_at, second_at, version, prior = row[:8]
        note, source = self.notes.get(fact_id, OpNote()), self.sources.get(fact_id)
        if kind == DELETED:
            return AppliedOp(
                "delete", fact_id, version, None, first_at, second_at, None, note, source
            )
        text = read_text(body)
        return AppliedOp(
            _CHANGES[kind], fact_id, version, prior, second_at, None, text, note, source
        )

    def fact(self, row: asyncpg.Record) -> Fact:
        source = self.sources.get(row[2], UNKNOWN_SOURCE)
        return Fact(row[2], read_text(row[3]), row[4], row[5], source)


def noted_of(rows: Sequence[asyncpg.Record], plan: Plan | None, kept: Provenance | None) -> Noted:
    if plan is None or kept is None:
        return Noted({}, {})
    notes: dict[str, OpNote] = {}
    sources: dict[str, Source] = {}
    for i, fact_id in enumerate(plan.deletes):
        notes[fact_id], sources[fact_id] = plan.note("delete", i), kept.deletes[i]
    for i, (fact_id, _) in enumerate(plan.updates):
        notes[fact_id], sources[fact_id] = plan.note("update", i), kept.updates[i]
    added = sorted((r for r in rows if r[0] == ADDED), key=lambda r: r[1])
    for i, row in enumerate(added):  # inserted in the plan's order: seq follows it
        notes[row[2]], sources[row[2]] = plan.note("add", i), kept.adds[i]
    return Noted(notes, sources)
