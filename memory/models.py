"""Values the memory core works with: facts, call records and what the API returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    content: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class CallRecord:
    id: str
    started_at: datetime
    duration_seconds: float | None
    outcome: str | None
    run_id: str | None
    summary: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CallMetadata:
    """What the caller of `add` tells about the conversation; every field optional."""

    started_at: datetime | None = None
    duration_seconds: float | None = None
    outcome: str | None = None
    run_id: str | None = None


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
class AddOutcome:
    facts: tuple[Fact, ...]
    call: CallRecord


@dataclass(frozen=True, slots=True)
class DeleteOutcome:
    deleted: int
