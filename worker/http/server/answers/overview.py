"""Counts at a glance, per agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from worker.http.server.answers.base import Answer

if TYPE_CHECKING:
    from memory.store import AgentOverview


class AgentCounts(Answer):
    agent_id: str
    people: int
    facts: int
    calls_last_day: int
    failed_saves_last_day: int
    failures_by_reason: dict[str, int]

    @classmethod
    def of(cls, counts: AgentOverview) -> Self:
        return cls(
            agent_id=counts.agent_id,
            people=counts.people,
            facts=counts.facts,
            calls_last_day=counts.calls_last_day,
            failed_saves_last_day=counts.failed_saves_last_day,
            failures_by_reason=counts.failures_by_reason,
        )


class Overview(Answer):
    agents: list[AgentCounts]
