"""Counts at a glance, per agent."""

from __future__ import annotations

from worker.http.server.answers.base import Answer


class AgentCounts(Answer):
    agentId: str
    people: int
    facts: int
    callsLastDay: int
    failedSavesLastDay: int
    failuresByReason: dict[str, int]


class Overview(Answer):
    agents: list[AgentCounts]
