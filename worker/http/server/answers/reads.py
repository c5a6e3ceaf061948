"""Who read one person's memory (`POST /api/memory/customers/{agentId}/reads`)."""

from __future__ import annotations

from typing import Self

from memory.store import ReadRecord
from worker.http.server.answers.base import Answer, Timestamp


class ReadItem(Answer):
    """One read: when, who (the API key's name, the job, `cli`; null: unknown), the channel,
    the route or tool, and what it returned as counts (never content)."""

    id: int
    at: Timestamp
    reader: str | None
    channel: str
    route: str
    returned: dict[str, int]

    @classmethod
    def of(cls, read: ReadRecord) -> Self:
        return cls(
            id=read.id,
            at=read.at,
            reader=read.reader,
            channel=read.channel,
            route=read.route,
            returned=read.returned,
        )


class Reads(Answer):
    agent_id: str
    user_id: str
    reads: list[ReadItem]

    @classmethod
    def of(cls, agent_id: str, user_id: str, reads: tuple[ReadRecord, ...]) -> Self:
        return cls(agent_id=agent_id, user_id=user_id, reads=[ReadItem.of(r) for r in reads])
