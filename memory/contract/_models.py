"""Values the memory core works with: facts, call records and what the API returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from memory.contract._provenance import NO_NOTE, UNKNOWN, OpNote, Source

Role = Literal["system", "user", "assistant", "tool"]
Change = Literal["add", "update", "delete"]
EndedBy = Literal["update", "delete"]


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    content: str
    created_at: datetime
    updated_at: datetime
    source: Source = UNKNOWN  # where its current version came from


@dataclass(frozen=True, slots=True)
class CallRecord:
    id: str
    started_at: datetime
    duration_seconds: float | None
    outcome: str | None
    run_id: str | None
    summary: str
    created_at: datetime
    source: Source = UNKNOWN  # the write's channel, call or session, writer and model


@dataclass(frozen=True, slots=True)
class CallMetadata:
    """What the caller of `add` tells about the conversation; every field optional."""

    started_at: datetime | None = None
    duration_seconds: float | None = None
    outcome: str | None = None
    run_id: str | None = None
    channel: str | None = None  # where the conversation came from (`http`, `crm`); None: unknown
    session_id: str | None = None  # the chat session the write came from
    key: str | None = None  # the name of the API key that wrote
    job_id: str | None = None  # the LiveKit job that wrote
    first_turn: int = 0  # the conversation's position of the content's first message


@dataclass(frozen=True, slots=True)
class Utterance:
    """One line of the transcript handed to the extraction model."""

    role: Role
    text: str


@dataclass(frozen=True, slots=True)
class Recall:
    facts: tuple[Fact, ...]
    calls: tuple[CallRecord, ...]


@dataclass(frozen=True, slots=True)
class AppliedOp:
    """One change as a write applied it: what a `memory.ops` event reports for the op.

    add: `version_id` is the new fact's first version, valid from `valid_from`.
    update: the fact keeps its id; `version_id` is its new version, valid from `valid_from`,
    and `supersedes` the version it closed (valid until that same instant).
    delete: `version_id` is the version it closed, valid from `valid_from` to `valid_to`.
    """

    op: Change
    fact_id: str
    version_id: str
    supersedes: str | None
    valid_from: datetime
    valid_to: datetime | None
    text: str | None = None  # the fact's text as written (add, update); a delete carries none
    note: OpNote = NO_NOTE  # what the model said of the op (kind, confidence, evidence, reason)
    source: Source | None = None  # the write's provenance (add, update: the new version's)


@dataclass(frozen=True, slots=True)
class AddOutcome:
    facts: tuple[Fact, ...]
    call: CallRecord
    revision: int = 0  # the revision this write committed (0 only when built elsewhere)
    applied: tuple[AppliedOp, ...] = ()  # deletes, then updates, then adds; no-ops left out


@dataclass(frozen=True, slots=True)
class PassContext:
    """What a write tells the ops log about the pass it ends (`memory.ops`).

    `with_call` False: a pass before the call's end, which writes no call record.
    `covers`: a turn pass's mark on its call's journal, the heard messages saved so far.
    """

    model: str
    latency_ms: float
    turn: int | None = None
    final: bool = True
    with_call: bool = True
    covers: int | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """What one write did: `call` None when the pass wrote no call record; `log_id` None when
    nothing changed (no ops event)."""

    facts: tuple[Fact, ...]
    call: CallRecord | None
    revision: int
    applied: tuple[AppliedOp, ...]
    log_id: int | None


@dataclass(frozen=True, slots=True)
class FactVersion:
    """One version of a fact; the current one has no `valid_to` and no `ended_by`."""

    fact_id: str
    version_id: str
    content: str
    valid_from: datetime
    valid_to: datetime | None
    ended_by: EndedBy | None
    source: Source = UNKNOWN


@dataclass(frozen=True, slots=True)
class History:
    """Every kept version of a person's facts: per fact in insertion order, oldest first."""

    versions: tuple[FactVersion, ...]


@dataclass(frozen=True, slots=True)
class DeleteOutcome:
    deleted: int
