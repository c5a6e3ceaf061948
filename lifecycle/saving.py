"""What the one save of a call does: hand the heard transcript to memory.add, once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from lifecycle.outcome import Outcome
from lifecycle.save import SaveReport
from memory.api import Memory
from memory.brief import NO_BRIEF, Brief
from transcript.models import Message


@dataclass(frozen=True, slots=True)
class CallScope:
    """Who and what a call saves for, fixed at room open."""

    agent_id: str
    user_id: str
    instructions: str | None
    started_at: datetime
    run_id: str
    brief: Brief = NO_BRIEF


async def save_heard(
    memory: Memory,
    scope: CallScope,
    heard: Sequence[Message],
    *,
    ended_at: datetime,
    outcome: Outcome,
) -> SaveReport:
    """One add with the heard transcript; nothing heard means no save at all."""
    if not any(m["content"].strip() for m in heard):
        return SaveReport("skipped", "nothing_heard")
    call = {
        "started_at": scope.started_at,
        "duration_seconds": max(0.0, (ended_at - scope.started_at).total_seconds()),
        "outcome": outcome.value,
        "run_id": scope.run_id,
    }
    result = await memory.add(
        list(heard), scope.agent_id, scope.user_id, call, scope.instructions, brief=scope.brief
    )
    if result.error is not None:
        return SaveReport("failed", result.error.code)
    return SaveReport("saved")
