"""The SQL of call journals: what a running call has heard, kept until its save.

A journal is one header row (the call's scope, what its save needs, its job, a heartbeat,
whether the save started, a sweeper's lease) and one row per heard message. The job writes it
(`lifecycle.journal`); the normal save deletes it in the statement that writes the memory
(`memory.store._write_statement`); a sweeper in a worker's main process claims the journals
whose heartbeat stopped, under a lease, and saves or drops each (`lifecycle.sweeper`).

Every function takes a pool and raises the database's own exceptions: the callers count and
log failures by type, off the call path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from memory.settings import Brief
from memory.store._stored_text import read_text, stored_text

_S = "stackbone_platform"
_J = f"{_S}.call_journals"
_E = f"{_S}.call_journal_entries"


@dataclass(frozen=True, slots=True)
class JournalHeader:
    """What a call's save needs, written when its journal opens."""

    job_id: str
    agent_id: str
    user_id: str
    instructions: str | None
    brief: Brief
    consolidate: str
    started_at: datetime
    time_zone: str | None = None  # the agent's IANA zone at room open, dating the save


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One heard message at its position in the call's heard transcript."""

    position: int
    role: str
    content: str


@dataclass(frozen=True, slots=True)
class ClaimedJournal:
    """A journal whose heartbeat stopped, claimed by one sweeper until its lease ends."""

    id: str
    header: JournalHeader
    covered: int
    heartbeat_at: datetime
    silent_seconds: float
    save_started: bool


@dataclass(frozen=True, slots=True)
class HeardTurns:
    """How many messages of each side a job's journal holds (counts only, never text)."""

    caller: int
    agent: int


_OPEN = f"""insert into {_J} (job_id, agent_id, user_id, instructions, brief_remember,
        brief_forget, consolidate, started_at, time_zone)
    values ($1, $2, $3, $4, $5::text[], $6::text[], $7, $8, $9)
    on conflict (job_id, agent_id, user_id) do update set heartbeat_at = now()
    returning id::text"""

# entries and the heartbeat in one statement; nothing is written once the header is gone
# (saved, swept or erased), so an erased call cannot come back through a late batch
_APPEND = f"""with beat as (
    update {_J} set heartbeat_at = now() where id = $1::uuid returning id
), added as (
    insert into {_E} (journal_id, position, role, content)
    select b.id, e.position, e.role, e.content
    from beat b, unnest($2::integer[], $3::text[], $4::text[]) as e(position, role, content)
    on conflict (journal_id, position) do nothing
    returning 1
)
select (select count(*) from beat) as alive, (select count(*) from added) as added"""

_MARK_STARTED = f"""update {_J} set save_started = true, heartbeat_at = now()
    where id = $1::uuid and not save_started returning 1"""

_CLAIM = f"""update {_J} j set lease_holder = $1, lease_until = now() + make_interval(secs => $3)
    where j.id in (select id from {_J}
        where heartbeat_at < now() - make_interval(secs => $2)
          and (lease_until is null or lease_until < now())
        order by heartbeat_at limit $4
        for update skip locked)
    returning j.id::text, j.job_id, j.agent_id, j.user_id, j.instructions, j.brief_remember,
        j.brief_forget, j.consolidate, j.started_at, j.time_zone, j.covered, j.heartbeat_at,
        extract(epoch from now() - j.heartbeat_at)::float8 as silent, j.save_started"""

# the sweeper's own "save started": only under its lease, only while the job stays silent
_SWEEP_STARTED = f"""update {_J} set save_started = true
    where id = $1::uuid and lease_holder = $2 and lease_until > now() and not save_started
      and heartbeat_at < now() - make_interval(secs => $3)
    returning 1"""

# a save that started and never ended: its call record, without a model call, and the journal
# dropped, in one statement; nothing is written when the journal is gone (erased meanwhile)
_INTERRUPTED = f"""with dropped as (
    delete from {_J} where id = $1::uuid and lease_holder = $2
    returning agent_id, user_id, started_at, heartbeat_at, job_id
), call as (
    insert into {_S}.memory_calls (agent_id, user_id, started_at, duration_seconds, outcome,
        run_id, summary, created_at)
    select agent_id, user_id, started_at,
        greatest(0, extract(epoch from heartbeat_at - started_at))::float8, $3, job_id, '', now()
    from dropped
    returning 1
)
select count(*) from call"""


async def open_journal(pool: asyncpg.Pool, header: JournalHeader) -> str:
    """Write the header (again, harmlessly, for the same job); the journal's id."""
    value = await pool.fetchval(
        _OPEN,
        header.job_id,
        header.agent_id,
        header.user_id,
        header.instructions,
        list(header.brief.remember),
        list(header.brief.forget),
        header.consolidate,
        header.started_at,
        header.time_zone,
    )
    return str(value)


async def append_entries(
    pool: asyncpg.Pool, journal_id: str, entries: Sequence[JournalEntry]
) -> bool:
    """Append heard messages and beat, in one statement; False when the journal is gone."""
    row = await pool.fetchrow(
        _APPEND,
        journal_id,
        [e.position for e in entries],
        [e.role for e in entries],
        [stored_text(e.content) for e in entries],  # a model's NUL or lone surrogate kept
    )
    return bool(row is not None and row["alive"])


async def mark_save_started(pool: asyncpg.Pool, journal_id: str) -> bool:
    """Say the save starts (before its model call); False when the journal is gone or another
    (a sweeper) started it."""
    return await pool.fetchval(_MARK_STARTED, journal_id) is not None


async def drop_journal(pool: asyncpg.Pool, journal_id: str) -> bool:
    """Delete the journal and its entries; False when it was already gone."""
    value = await pool.fetchval(f"delete from {_J} where id = $1::uuid returning 1", journal_id)
    return bool(value == 1)


async def claim_silent(
    pool: asyncpg.Pool, holder: str, *, silent_for: float, lease_seconds: float, limit: int
) -> list[ClaimedJournal]:
    """Lease up to `limit` journals silent for `silent_for` seconds to `holder`; a journal
    leased to another sweeper, or locked by one claiming it now, is skipped."""
    rows = await pool.fetch(_CLAIM, holder, silent_for, lease_seconds, limit)
    return [_claimed(r) for r in rows]


async def start_swept_save(
    pool: asyncpg.Pool, journal_id: str, holder: str, *, silent_for: float
) -> bool:
    """Mark the save started for the lease's holder (before its model call); False when the
    lease was lost, the save already started, or the job beat again."""
    return await pool.fetchval(_SWEEP_STARTED, journal_id, holder, silent_for) is not None


async def journal_entries(pool: asyncpg.Pool, journal_id: str) -> list[JournalEntry]:
    rows = await pool.fetch(
        f"select position, role, content from {_E} where journal_id = $1::uuid order by 1",
        journal_id,
    )
    return [JournalEntry(r[0], r[1], read_text(r[2])) for r in rows]


async def record_interrupted(
    pool: asyncpg.Pool, journal_id: str, holder: str, outcome: str
) -> bool:
    """Write the call record with `outcome` and no summary, and drop the journal (one
    statement); False when the journal was gone."""
    return bool(await pool.fetchval(_INTERRUPTED, journal_id, holder, outcome))


async def drop_claimed(pool: asyncpg.Pool, journal_id: str, holder: str) -> bool:
    """Drop a journal this holder leased; False when it was gone or leased anew."""
    value = await pool.fetchval(
        f"delete from {_J} where id = $1::uuid and lease_holder = $2 returning 1",
        journal_id,
        holder,
    )
    return bool(value == 1)


_HEARD = f"""select count(distinct j.id) as journals,
        count(e.position) filter (where e.role = 'user') as caller,
        count(e.position) filter (where e.role = 'assistant') as agent
    from {_J} j left join {_E} e on e.journal_id = j.id
    where j.job_id = $1"""


async def heard_turns(pool: asyncpg.Pool, job_id: str) -> HeardTurns | None:
    """What the journal of job `job_id` holds, counted by side; None when it has none (it was
    saved or dropped, or never written)."""
    row = await pool.fetchrow(_HEARD, job_id)
    if row is None or not row["journals"]:
        return None
    return HeardTurns(caller=row["caller"], agent=row["agent"])


def _claimed(row: asyncpg.Record) -> ClaimedJournal:
    header = JournalHeader(
        job_id=row["job_id"],
        agent_id=row["agent_id"],
        user_id=row["user_id"],
        instructions=row["instructions"],
        brief=Brief(tuple(row["brief_remember"]), tuple(row["brief_forget"])),
        consolidate=row["consolidate"],
        started_at=row["started_at"],
        time_zone=row["time_zone"],
    )
    return ClaimedJournal(
        id=row["id"],
        header=header,
        covered=row["covered"],
        heartbeat_at=row["heartbeat_at"],
        silent_seconds=row["silent"],
        save_started=row["save_started"],
    )
