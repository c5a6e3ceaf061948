"""What the one save of a call does: hand the heard transcript to memory.add, once.

In turn mode (`lifecycle.passes`) the save is the final pass instead: it reads what no pass
covered (`lifecycle.pass_schedule.final_part`) and carries the call record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from lifecycle.outcome import Outcome
from lifecycle.pass_schedule import final_part
from lifecycle.plan import MemoryPlan
from lifecycle.save import SaveReport
from memory.api import Memory
from memory.settings import NO_BRIEF, Brief
from transcript.models import Message
from transcript.sendable import sendable

VOICE = "voice"
"""The channel of a call's writes (`memory.contract.Source.channel`)."""


@dataclass(frozen=True, slots=True)
class CallScope:
    """Who and what a call saves for, fixed at room open."""

    agent_id: str
    user_id: str
    instructions: str | None
    started_at: datetime
    run_id: str
    brief: Brief = NO_BRIEF
    time_zone: str | None = None

    @classmethod
    def of(cls, plan: MemoryPlan, started_at: datetime, run_id: str) -> CallScope:
        """The scope of a call whose plan saves (its user id is known)."""
        assert plan.user_id is not None
        return cls(
            plan.agent_id,
            plan.user_id,
            plan.instructions,
            started_at,
            run_id,
            plan.brief,
            plan.time_zone,
        )


async def save_heard(
    memory: Memory,
    scope: CallScope,
    heard: Sequence[Message],
    *,
    ended_at: datetime,
    outcome: Outcome,
    final: FinalPass | None = None,
) -> SaveReport:
    """One add with the heard transcript (`final`: the final turn pass over the rest);
    nothing heard means no save at all."""
    if not any(m["content"].strip() for m in heard):
        return SaveReport("skipped", "nothing_heard")
    call = {
        "started_at": scope.started_at,
        "duration_seconds": max(0.0, (ended_at - scope.started_at).total_seconds()),
        "outcome": outcome.value,
        "run_id": scope.run_id,
        "channel": VOICE,
        "job_id": scope.run_id,
    }
    if final is not None:
        part = sendable(final_part(heard, final.covered))
        passed = await memory.consolidate(
            part,
            scope.agent_id,
            scope.user_id,
            turn=final.turn,
            final=True,
            call={**call, "first_turn": len(heard) - len(part)},  # the part is the call's end
            instructions=scope.instructions,
            brief=scope.brief,
            time_zone=scope.time_zone,
        )
        error = passed.error
    else:
        result = await memory.add(
            sendable(heard),  # a model's NUL or lone surrogate: not refused as client input
            scope.agent_id,
            scope.user_id,
            call,
            scope.instructions,
            brief=scope.brief,
            time_zone=scope.time_zone,
        )
        error = result.error
    if error is not None:
        return SaveReport("failed", error.code)
    return SaveReport("saved")


@dataclass(frozen=True, slots=True)
class FinalPass:
    """Turn mode: how many heard messages the turn passes saved, and how many replies ran."""

    covered: int
    turn: int
