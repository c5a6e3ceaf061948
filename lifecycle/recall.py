"""Recall before the first agent output, inside a time budget.

The greeting is never held past the budget: a recall that is slower, or that fails, lets the
call go on without memory, and the reason is recorded once as a code.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog

from lifecycle.plan import MemoryPlan
from memory.api import Memory
from memory.models import Recall

log = structlog.get_logger(__name__)

DEFAULT_BUDGET_SECONDS = 0.35
RECALL_CALLS = 5


@dataclass(frozen=True, slots=True)
class RecallOutcome:
    recall: Recall | None
    reason: str | None = None  # why there is no memory: a code, never a value


async def recall_within(
    memory: Memory, agent_id: str, user_id: str, budget_seconds: float
) -> RecallOutcome:
    try:
        result = await asyncio.wait_for(
            memory.recall(agent_id, user_id, RECALL_CALLS), budget_seconds
        )
    except TimeoutError:
        return _without("recall_over_budget")
    if result.error is not None:
        return _without(result.error.code)
    return RecallOutcome(result.data)


async def recall_for(plan: MemoryPlan, memory: Memory, budget_seconds: float) -> Recall | None:
    """The caller's memory when the plan reads it; save-only calls never see old facts."""
    if not plan.read or plan.user_id is None:
        return None
    outcome = await recall_within(memory, plan.agent_id, plan.user_id, budget_seconds)
    return outcome.recall


def _without(reason: str) -> RecallOutcome:
    log.warning("call.memory_not_recalled", reason=reason)
    return RecallOutcome(None, reason)
