"""Recall before the first agent output, inside the call's pre-greeting deadline.

The greeting is never held past the deadline: a recall that is slower, or that fails, lets the
call go on without memory, and the reason is recorded once as a code. A late recall is abandoned
to the background (`infra.deadline.within`), never awaited on the call path.

A recall made here (an outbound call's, once the callee answered; an inbound call's is recorded
by its opening statement) leaves its read's record from a task of its own, held until it ends:
the greeting never waits for that write.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog

from infra.deadline import Deadline, Late, within
from lifecycle.metrics import count_memory_off
from lifecycle.plan import MemoryPlan
from memory.api import Memory
from memory.contract import Recall
from memory.store import Read

log = structlog.get_logger(__name__)

RECALL_CALLS = 5
_RECORDING: set[asyncio.Task[bool]] = set()
"""Read records being written off the call path, held until they end."""


@dataclass(frozen=True, slots=True)
class RecallOutcome:
    recall: Recall | None
    reason: str | None = None  # why there is no memory: a code, never a value


def over_budget(step: str) -> str:
    """The reason code of a pre-greeting step still running at the deadline."""
    return f"{step}_over_budget"


async def recall_within(
    memory: Memory, agent_id: str, user_id: str, deadline: Deadline, reader: str | None = None
) -> RecallOutcome:
    """`reader`: who the read's record names (the job)."""
    try:
        result = await within(
            deadline, memory.recall(agent_id, user_id, RECALL_CALLS), step="recall"
        )
    except Late as late:
        return missed(over_budget(late.step))
    if result.error is not None:
        return missed(result.error.code)
    if (found := result.data) is not None:
        returned = {"facts": len(found.facts), "calls": len(found.calls)}
        read = Read(agent_id, user_id, reader, "voice", "recall", returned)
        task = asyncio.ensure_future(memory.note_read(read))  # never awaited before the greeting
        _RECORDING.add(task)
        task.add_done_callback(_RECORDING.discard)
    return RecallOutcome(result.data)


def missed(reason: str) -> RecallOutcome:
    """An active plan whose recall did not arrive: counted here, once per call."""
    count_memory_off(reason)
    return without(reason)


async def recall_for(
    plan: MemoryPlan,
    memory: Memory,
    deadline: Deadline,
    early: RecallOutcome | None = None,
    reader: str | None = None,
) -> Recall | None:
    """The caller's memory when the plan reads it; save-only calls never see old facts.

    `early`: the recall already made with the settings (`lifecycle.opening`), else it runs now
    (its read recorded as by `reader`).
    """
    if not plan.read or plan.user_id is None:
        return None
    if early is not None:
        return early.recall
    outcome = await recall_within(memory, plan.agent_id, plan.user_id, deadline, reader)
    return outcome.recall


def without(reason: str) -> RecallOutcome:
    log.warning("call.memory_not_recalled", reason=reason)
    return RecallOutcome(None, reason)
