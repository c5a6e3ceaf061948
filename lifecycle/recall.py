"""Recall before the first agent output, inside the call's pre-greeting deadline.

The greeting is never held past the deadline: a recall that is slower, or that fails, lets the
call go on without memory, and the reason is recorded once as a code. A late recall is abandoned
to the background (`infra.deadline.within`), never awaited on the call path.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog

from infra.deadline import Deadline, Late, within
from lifecycle.metrics import count_memory_off
from lifecycle.plan import MemoryPlan
from memory.api import Memory
from memory.contract import Recall

log = structlog.get_logger(__name__)

RECALL_CALLS = 5


@dataclass(frozen=True, slots=True)
class RecallOutcome:
    recall: Recall | None
    reason: str | None = None  # why there is no memory: a code, never a value


def over_budget(step: str) -> str:
    """The reason code of a pre-greeting step still running at the deadline."""
    return f"{step}_over_budget"


async def recall_within(
    memory: Memory, agent_id: str, user_id: str, deadline: Deadline
) -> RecallOutcome:
    try:
        result = await within(
            deadline, memory.recall(agent_id, user_id, RECALL_CALLS), step="recall"
        )
    except Late as late:
        return missed(over_budget(late.step))
    if result.error is not None:
        return missed(result.error.code)
    return RecallOutcome(result.data)


def missed(reason: str) -> RecallOutcome:
    """An active plan whose recall did not arrive: counted here, once per call."""
    count_memory_off(reason)
    return without(reason)


async def recall_for(
    plan: MemoryPlan, memory: Memory, deadline: Deadline, early: RecallOutcome | None = None
) -> Recall | None:
    """The caller's memory when the plan reads it; save-only calls never see old facts.

    `early`: the recall already made with the settings (`lifecycle.opening`), else it runs now.
    """
    if not plan.read or plan.user_id is None:
        return None
    if early is not None:
        return early.recall
    outcome = await recall_within(memory, plan.agent_id, plan.user_id, deadline)
    return outcome.recall


def without(reason: str) -> RecallOutcome:
    log.warning("call.memory_not_recalled", reason=reason)
    return RecallOutcome(None, reason)
