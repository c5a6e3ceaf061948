"""What the sweeper does with the journal of a job that is gone, decided from plain values.

A journal is silent once its heartbeat is older than the lost-after bound (`lifecycle.sweeper`
only claims those). Then, in order:

- nobody here can save it (its agent is in no catalog this worker knows, or its identity is not
  a valid user id): it waits for a worker that can, and is dropped once silent for the drop
  bound, with the reason counted;
- its save had started (the job, or a sweeper, marked it before a model call): no model call
  is made again; the call is recorded as `save_interrupted` and the journal dropped;
- otherwise it is saved once, outcome `job_lost`: the whole heard transcript, or in turn mode
  what no saved pass covered (`pass_schedule.final_part`, as the job's final pass would).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from lifecycle.pass_schedule import final_part
from memory.store import JournalEntry
from transcript.models import Message, TurnRole
from transcript.sendable import sendable_text


class Act(StrEnum):
    SAVE = "save"
    INTERRUPTED = "interrupted"
    DROP = "drop"
    WAIT = "wait"


@dataclass(frozen=True, slots=True)
class Decision:
    act: Act
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class LostPart:
    """What the sweeper's one save sends: `turn` None for a whole-call add, else a final pass."""

    messages: list[Message]
    turn: int | None
    first_turn: int = 0  # the messages' place in the call (the part is its end)


def decide(
    *,
    save_started: bool,
    agent_known: bool,
    identity_valid: bool,
    silent_seconds: float,
    drop_after: float,
) -> Decision:
    """What to do with one silent journal."""
    if not agent_known or not identity_valid:
        reason = "agent_unknown" if not agent_known else "identity_invalid"
        return Decision(Act.DROP if silent_seconds >= drop_after else Act.WAIT, reason)
    if save_started:
        return Decision(Act.INTERRUPTED, "save_started")
    return Decision(Act.SAVE)


def what_to_save(
    entries: Sequence[JournalEntry], covered: int, consolidate: str
) -> LostPart | None:
    """The heard messages to save, in position order; None when nothing was heard."""
    ordered = sorted(entries, key=lambda e: e.position)
    heard = [(e.position, _message(e)) for e in ordered]
    if not any(m["content"].strip() for _, m in heard):
        return None
    if consolidate != "turn":
        return LostPart([m for _, m in heard], None)
    rest = [m for position, m in heard if position >= covered]
    part = rest or final_part([m for _, m in heard], len(heard))
    turn = sum(1 for _, m in heard if m["role"] == "assistant")
    first = heard[len(heard) - len(part)][0]  # the part is the call's end: its position
    return LostPart(part, turn, first)


def _message(entry: JournalEntry) -> Message:
    role: TurnRole = "assistant" if entry.role == "assistant" else "user"
    return Message(role=role, content=sendable_text(entry.content))
