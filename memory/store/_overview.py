"""Counts at a glance per agent, and the record of failed saves they include.

`overview` is one statement of four grouped aggregates over the asked agents' rows (people: the
distinct user ids of their facts and calls; facts; calls that started in the last day; failed
saves of the last day by code), each filtered by `agent_id = any(...)`, so the planner sees the
ids and reads a small agent's rows through `memory_facts_scope` and `memory_calls_recent`.
Its cost grows with the asked agents' facts and calls.

`FailedSaves` records a failed memory pass (agent id and error code, never a user id or text)
off the failing path: each record is a held task, drained before the pool closes, and a record
that fails is logged by type and dropped (the pass has already failed; counting it is best
effort, and a database that refused the save often refuses this too).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import asyncpg
import structlog

from memory.contract import Unavailable
from memory.store._db_errors import translated

log = structlog.get_logger(__name__)
_S = "stackbone_platform"
KEPT_DAYS = 7

_OVERVIEW = f"""with
people as (select agent_id, count(*) as n from (
        select agent_id, user_id from {_S}.memory_facts where agent_id = any($1::text[])
        union select agent_id, user_id from {_S}.memory_calls where agent_id = any($1::text[])
    ) p group by agent_id),
facts as (select agent_id, count(*) as n from {_S}.memory_facts
    where agent_id = any($1::text[]) group by agent_id),
calls as (select agent_id, count(*) as n from {_S}.memory_calls
    where agent_id = any($1::text[]) and started_at > now() - interval '1 day' group by agent_id),
failures as (select agent_id, jsonb_object_agg(reason, n) as by_reason from (
        select agent_id, reason, count(*) as n from {_S}.memory_failed_saves
        where agent_id = any($1::text[]) and at > now() - interval '1 day' group by 1, 2
    ) r group by agent_id)
select a.agent_id, coalesce(people.n, 0) as people, coalesce(facts.n, 0) as facts,
    coalesce(calls.n, 0) as calls, coalesce(failures.by_reason, '{{}}')::text as failures
from unnest($1::text[]) with ordinality as a(agent_id, position)
left join people using (agent_id) left join facts using (agent_id)
left join calls using (agent_id) left join failures using (agent_id)
order by a.position"""

_RECORD = f"""with old as (
    delete from {_S}.memory_failed_saves
    where agent_id = $1 and at < now() - make_interval(days => {KEPT_DAYS})
)
insert into {_S}.memory_failed_saves (agent_id, reason) values ($1, $2)"""


@dataclass(frozen=True, slots=True)
class AgentOverview:
    agent_id: str
    people: int
    facts: int
    calls_last_day: int
    failures_by_reason: dict[str, int]

    @property
    def failed_saves_last_day(self) -> int:
        return sum(self.failures_by_reason.values())


async def overview(pool: asyncpg.Pool, agent_ids: list[str]) -> list[AgentOverview]:
    """The counts of each agent in `agent_ids`, in that order (zeros for an agent with none)."""
    async with translated(Unavailable, "overview read"):
        rows = await pool.fetch(_OVERVIEW, agent_ids)
    return [
        AgentOverview(r["agent_id"], r["people"], r["facts"], r["calls"], json.loads(r["failures"]))
        for r in rows
    ]


class FailedSaves:
    """Records failed passes in the background; `drain` before the pool closes."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._tasks: set[asyncio.Task[None]] = set()

    def record(self, agent_id: str, reason: str) -> None:
        task = asyncio.create_task(self._insert(agent_id, reason), name="failed-save-record")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _insert(self, agent_id: str, reason: str) -> None:
        try:
            await self._pool.execute(_RECORD, agent_id, reason)
        except Exception as exc:  # best effort: the pass already failed and said so
            log.warning("memory.failed_save_unrecorded", error_type=type(exc).__name__)

    async def drain(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
