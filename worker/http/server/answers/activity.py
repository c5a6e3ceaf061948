"""The settings activity log: who changed which fields, when."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from worker.http.server.answers.base import Answer, Timestamp

if TYPE_CHECKING:
    from memory.store import ActivityEntry


class ActivityItem(Answer):
    id: int
    at: Timestamp
    actor: str
    agent_id: str | None
    action: str
    fields: list[str]

    @classmethod
    def of(cls, entry: ActivityEntry) -> Self:
        return cls(
            id=entry.id,
            at=entry.at,
            actor=entry.actor,
            agent_id=entry.agent_id,
            action=entry.action,
            fields=list(entry.fields),
        )


class Activity(Answer):
    entries: list[ActivityItem]
