"""Reads of one person's memory: append one record per read, list a person's, newest first.

A record says who read (the API key's name, the job, `cli`), when, on which channel, through
which route or tool, and what was returned as counts (`returned`: `{"facts": 3, "calls": 5}`),
never content. Appending is one insert; a read whose record cannot be written still answers
(`Memory.note_read` logs the failure by code). Erased with the person (`delete_all`), exported
with them, and deleted past the agent's retention (`memory.store._retention`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from memory.contract import PersistFailed, Unavailable
from memory.store._activity import Queryable
from memory.store._db_errors import translated

_S = "stackbone_platform"
DEFAULT_READS: Final = 50
MAX_READS: Final = 500

_APPEND = f"""insert into {_S}.memory_reads (agent_id, user_id, reader, channel, route, returned)
    values ($1, $2, $3, $4, $5, $6::text::jsonb)"""
_LIST = f"""select id, at, reader, channel, route, returned::text from {_S}.memory_reads
    where agent_id = $1 and user_id = $2 order by id desc limit $3"""


@dataclass(frozen=True, slots=True)
class Read:
    """One read of one person's memory: who, which channel, which route or tool, the counts."""

    agent_id: str
    user_id: str
    reader: str | None
    channel: str
    route: str
    returned: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """A stored read, as listed."""

    id: int
    at: datetime
    reader: str | None
    channel: str
    route: str
    returned: dict[str, int]


async def record_read(db: Queryable, read: Read) -> None:
    """Append the read's record (one insert)."""
    returned = json.dumps(dict(read.returned))
    async with translated(PersistFailed, "read record"):
        await db.execute(
            _APPEND, read.agent_id, read.user_id, read.reader, read.channel, read.route, returned
        )


async def reads_of(
    db: Queryable, agent_id: str, user_id: str, limit: int = DEFAULT_READS
) -> tuple[ReadRecord, ...]:
    """The person's newest `limit` reads, newest first."""
    async with translated(Unavailable, "reads read"):
        rows = await db.fetch(_LIST, agent_id, user_id, limit)
    return tuple(
        ReadRecord(r["id"], r["at"], r["reader"], r["channel"], r["route"], json.loads(r[5]))
        for r in rows
    )
