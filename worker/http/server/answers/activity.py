"""The settings activity log: who changed which fields, when."""

from __future__ import annotations

from worker.http.server.answers.base import Answer, Timestamp


class ActivityItem(Answer):
    id: int
    at: Timestamp
    actor: str
    agentId: str | None
    action: str
    fields: list[str]


class Activity(Answer):
    entries: list[ActivityItem]
