"""The activity log of settings changes: who changed which field names, when; never values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from infra.database import Executor
from memory.contract import Unavailable
from memory.store._db_errors import translated

Queryable = asyncpg.Pool | Executor
_S = "stackbone_platform"


@dataclass(frozen=True, slots=True)
class ActivityEntry:
    id: int
    at: datetime
    actor: str
    agent_id: str | None
    action: str
    fields: tuple[str, ...]


async def record_activity(
    conn: Executor, actor: str, agent_id: str | None, action: str, fields: tuple[str, ...]
) -> None:
    await conn.execute(
        f"insert into {_S}.memory_settings_activity (actor, agent_id, action, fields)"
        " values ($1, $2, $3, $4)",
        actor,
        agent_id,
        action,
        list(fields),
    )


async def list_activity(
    db: Queryable, agent_id: str | None, limit: int, agents: list[str] | None = None
) -> tuple[ActivityEntry, ...]:
    """Newest first; `agent_id` None lists every entry, shared extraction changes included.
    `agents`: only entries of these agents (no shared change)."""
    async with translated(Unavailable, "activity read"):
        rows = await db.fetch(
            f"""select id, at, actor, agent_id, action, fields
            from {_S}.memory_settings_activity
            where ($1::text is null or agent_id = $1)
                and ($3::text[] is null or agent_id = any($3::text[]))
            order by id desc limit $2""",
            agent_id,
            limit,
            agents,
        )
    return tuple(
        ActivityEntry(r["id"], r["at"], r["actor"], r["agent_id"], r["action"], tuple(r["fields"]))
        for r in rows
    )
