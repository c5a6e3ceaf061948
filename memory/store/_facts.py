"""Postgres access for memory: the only module in `memory/` that runs SQL.

Database exceptions become typed memory failures here, once: a missing schema is
`SchemaMissing`, a failed read `Unavailable`, a failed write `PersistFailed`. Fact and summary
texts are read back through `read_text` (a model may have written a NUL or a lone surrogate,
stored escaped by `memory.store._write_statement`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import asyncpg

from memory.contract import (
    UNKNOWN_SOURCE,
    CallMetadata,
    CallRecord,
    CapabilityUnavailable,
    Conflict,
    EndedBy,
    Fact,
    FactVersion,
    History,
    PassContext,
    PersistFailed,
    Plan,
    Recall,
    SchemaMissing,
    Source,
    Unavailable,
    Written,
    source_of,
)
from memory.settings import CallSettings, CodeDefaults
from memory.store import _settings as settings_store
from memory.store import _write_sources as write_sources
from memory.store import _write_statement as write_statement
from memory.store._db_errors import translated
from memory.store._stored_text import ESCAPE, read_json, read_text

CAPABILITY = "memory.basic"
DIRECT_WRITE = PassContext(model="", latency_ms=0.0)  # a write made without a model call
_S = "stackbone_platform"

# Recall returns plain rows of built-in types (facts, then the newest calls, told apart by
# `kind`): asyncpg decodes those without the type introspection that arrays of timestamps or of
# anonymous records need on each new connection (three extra round trips on every job
# process's first recall, right before the greeting).
_RECALL = f"""(select 0 as kind, seq, id::text, content as text, created_at as first_at,
        updated_at as second_at, null::float8 as duration_seconds, null::text as outcome,
        null::text as run_id, source::text
    from {_S}.memory_facts where agent_id = $1 and user_id = $2)
  union all
  (select 1, seq, id::text, summary, started_at, created_at, duration_seconds, outcome, run_id,
        coalesce(source, jsonb_build_object('channel', channel))::text
    from {_S}.memory_calls where agent_id = $1 and user_id = $2
    order by started_at desc, seq desc limit $3)"""

# An add's snapshot reads facts, revision and settings in one statement (so the facts and the
# revision it compares against later are from the same moment), as plain rows like recall: a
# new connection's first add then needs no type introspection (arrays of timestamps would).
_SNAPSHOT = f"""select 0 as kind, seq, id::text, content, created_at, updated_at,
        null::bigint as revision, null::text as model, null::text as reasoning_effort,
        null::text as guidance, source::text
    from {_S}.memory_facts where agent_id = $1 and user_id = $2
  union all
  select 1, null, null, null, null, null,
    (select revision from {_S}.memory_revisions where agent_id = $1 and user_id = $2),
    s.model, s.reasoning_effort, {{guidance}}, null
  from (select) as one left join {_S}.memory_extraction_settings s on true"""
_GUIDED_SNAPSHOT = _SNAPSHOT.format(guidance="s.guidance_published")
_UNGUIDED_SNAPSHOT = _SNAPSHOT.format(guidance="null::text")

# closed versions, then the current ones (valid from their last update); ordered in Python
_HISTORY = f"""select v.fact_seq, v.seq, v.fact_id::text, v.id::text, v.content, v.valid_from,
        v.valid_to, v.ended_by, v.source::text
    from {_S}.memory_fact_versions v where v.agent_id = $1 and v.user_id = $2
  union all
  select f.seq, null, f.id::text, f.version_id::text, f.content, f.updated_at, null, null,
        f.source::text
    from {_S}.memory_facts f where f.agent_id = $1 and f.user_id = $2"""

_CAPABLE = """to_regclass('{s}.memory_fact_versions') is not null as schema_ok,
    to_regclass('{s}.capabilities') is not null
      and exists(select 1 from {s}.capabilities where name = ${n}) as capability_ok"""
_CAPABILITY = "select " + _CAPABLE.format(s=_S, n=1)
# a job's first statement: the capability check and the agent's settings in one round trip
_CHECKED_SETTINGS = settings_store.with_columns(_CAPABLE.format(s=_S, n=2))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What an add reads before calling the model."""

    revision: int
    facts: tuple[Fact, ...]
    model: str | None
    reasoning_effort: str | None
    guidance: str | None = None
    """The published extraction guidance (None: the built-in one runs)."""
    guidance_error: str | None = None
    """Why the guidance could not be read (the built-in one runs), as an error code."""


def _snapshot(rows: list[asyncpg.Record]) -> Snapshot:
    # columns: kind, seq, id, content, created_at, updated_at, revision, model, effort, guidance,
    # source
    head = next(r for r in rows if r[0] == 1)
    facts = sorted((r for r in rows if r[0] == 0), key=lambda r: r[1])
    return Snapshot(
        revision=head[6] or 0,
        facts=tuple(Fact(r[2], read_text(r[3]), r[4], r[5], stored_source(r[10])) for r in facts),
        model=head[7],
        reasoning_effort=head[8],
        guidance=head[9],
    )


def decode_recall(rows: list[asyncpg.Record]) -> Recall:
    # columns: kind, seq, id, text (content | summary), first_at (created | started), second_at
    # (updated | created), duration, outcome, run id, source (JSON text). Ordered here rather
    # than by the server (a sort of ~55 rows in Python is cheaper than the planner's append,
    # window and sort).
    facts = sorted((r for r in rows if r[0] == 0), key=lambda r: r[1])
    calls = sorted((r for r in rows if r[0] == 1), key=lambda r: (r[4], r[1]), reverse=True)
    sources = stored_sources([r[9] for r in facts] + [r[9] for r in calls])
    return Recall(
        tuple(
            Fact(r[2], read_text(r[3]), r[4], r[5], source)
            for r, source in zip(facts, sources, strict=False)
        ),
        tuple(
            CallRecord(r[2], r[4], r[6], r[7], r[8], read_text(r[3]), r[5], source)
            for r, source in zip(calls, sources[len(facts) :], strict=True)
        ),
    )


def stored_source(stored: str | None) -> Source:
    """A stored source's JSON text; null (a row from before migration 0030): unknown."""
    if stored is None:
        return UNKNOWN_SOURCE
    data = json.loads(stored)
    return source_of(read_json(data) if ESCAPE in stored else data)


def stored_sources(texts: list[str | None]) -> list[Source]:
    """Many stored sources, parsed as one JSON array (one decoder call, not one per row)."""
    present = [t for t in texts if t is not None]
    if not present:
        return [UNKNOWN_SOURCE] * len(texts)
    joined = "[" + ",".join(present) + "]"
    parsed = json.loads(joined)
    each = iter(read_json(parsed) if ESCAPE in joined else parsed)
    return [UNKNOWN_SOURCE if t is None else source_of(next(each)) for t in texts]


def _history(rows: list[asyncpg.Record]) -> History:
    # per fact in insertion order; a fact's closed versions in the order they closed, then
    # its current version (no close sequence)
    ordered = sorted(rows, key=lambda r: (r[0], r[1] is None, r[1] or 0))
    return History(
        tuple(
            FactVersion(
                r[2], r[3], read_text(r[4]), r[5], r[6], _ENDED_BY[r[7]], stored_source(r[8])
            )
            for r in ordered
        )
    )


_ENDED_BY: dict[str | None, EndedBy | None] = {"update": "update", "delete": "delete", None: None}


class MemoryStore:
    """Facts, call records and revisions of (agent, user) pairs in one Postgres pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._capable = False

    @property
    def pool(self) -> asyncpg.Pool:
        return self._pool

    async def ensure_capability(self) -> None:
        """Check once per process that the schema is applied and advertises memory.basic."""
        if self._capable:
            return
        async with translated(Unavailable, "capability check"):
            row = await self._pool.fetchrow(_CAPABILITY, CAPABILITY)
        assert row is not None
        if not row["schema_ok"]:
            raise SchemaMissing("the memory schema migration has not been applied")
        if not row["capability_ok"]:
            raise CapabilityUnavailable(f"the database does not advertise {CAPABILITY}")
        self._capable = True

    async def call_settings(self, agent_id: str, code: CodeDefaults) -> CallSettings:
        """The agent's call settings, the capability checked by the same statement.

        A capable answer counts as `ensure_capability`'s; an incapable one is not kept, so
        recall then fails with the code `ensure_capability` raises. Unreadable settings (a
        missing table included) raise as `load_call_settings` does.
        """
        async with translated(Unavailable, "settings read"):
            row = await self._pool.fetchrow(_CHECKED_SETTINGS, agent_id, CAPABILITY)
        assert row is not None
        self._capable = self._capable or bool(row["schema_ok"] and row["capability_ok"])
        return settings_store.call_settings_of(row, code)

    def mark_capable(self) -> None:
        """A statement of its own found the schema and capability (`memory.store._opening`)."""
        self._capable = True

    async def recall(self, agent_id: str, user_id: str, calls: int) -> Recall:
        async with translated(Unavailable, "recall"):
            rows = await self._pool.fetch(_RECALL, agent_id, user_id, calls)
        return decode_recall(rows)

    async def snapshot(self, agent_id: str, user_id: str) -> Snapshot:
        """What an add reads before the model call, published guidance included, in one read.

        Guidance the server refuses to read (a missing column: `SchemaMissing`) must not fail
        the add, while unreadable facts or model selection must: after such a refusal they are
        read again without it, and the snapshot carries the guidance's error code instead.
        """
        try:
            return _snapshot(await self._read_snapshot(_GUIDED_SNAPSHOT, agent_id, user_id))
        except SchemaMissing:
            pass
        # the facts and model selection read alone: the guidance was what the server refused
        snapshot = _snapshot(await self._read_snapshot(_UNGUIDED_SNAPSHOT, agent_id, user_id))
        return replace(snapshot, guidance_error=SchemaMissing.code)

    async def _read_snapshot(self, sql: str, agent_id: str, user_id: str) -> list[asyncpg.Record]:
        async with translated(Unavailable, "memory read"):
            return await self._pool.fetch(sql, agent_id, user_id)

    async def published_guidance(self) -> str | None:
        """The published extraction guidance (None: built-in), read apart from the settings."""
        async with translated(Unavailable, "guidance read"):
            text: str | None = await self._pool.fetchval(
                f"select guidance_published from {_S}.memory_extraction_settings"
            )
        return text

    async def write(
        self,
        agent_id: str,
        user_id: str,
        read: Snapshot,
        plan: Plan,
        call: CallMetadata,
        *,
        context: PassContext = DIRECT_WRITE,
    ) -> Written:
        """Apply a validated plan, the call record (unless `context` says none) and the ops log
        row if the revision is still `read`'s.

        One statement, one round trip (`memory.store._write_statement`): all of it or nothing.
        """
        sources = write_sources.provenance(agent_id, plan, call, context)
        args = write_statement.arguments(
            agent_id, user_id, read.revision, plan, call, context=context, sources=sources
        )
        async with translated(PersistFailed, "memory write"):
            rows = await self._pool.fetch(write_statement.WRITE, *args)
        outcome = write_statement.decode(rows, read.facts, plan, sources)
        if outcome is None:
            raise Conflict("memory changed while the model request was in flight")
        return outcome

    async def history(self, agent_id: str, user_id: str) -> History:
        """Every kept version of one pair's facts, read in one statement."""
        async with translated(Unavailable, "history read"):
            rows = await self._pool.fetch(_HISTORY, agent_id, user_id)
        return _history(rows)

    async def delete_all(self, agent_id: str, user_id: str) -> int:
        """Erase one pair's facts, call records, fact history, ops log rows, call journals
        (with their heard text), the agent's chat sessions that named the person under any
        identity (with their turns), the idempotency keys of adds over HTTP (with their
        answers) and the records of who read it; bump (never drop) its revision.

        The count is facts plus call records, as the contract defines it (history not counted).
        """
        async with (
            translated(Unavailable, "erasure"),
            self._pool.acquire() as conn,
            conn.transaction(),
        ):
            # the revision row is locked first, so an add committing meanwhile is either
            # fully before this erasure (and erased) or conflicts afterwards
            await conn.execute(
                f"""insert into {_S}.memory_revisions as r (agent_id, user_id, revision)
                values ($1, $2, 1) on conflict (agent_id, user_id)
                do update set revision = r.revision + 1, closed_versions = 0""",
                agent_id,
                user_id,
            )
            count = await conn.fetchval(
                f"""with f as (delete from {_S}.memory_facts
                        where agent_id = $1 and user_id = $2 returning 1),
                     c as (delete from {_S}.memory_calls
                        where agent_id = $1 and user_id = $2 returning 1),
                     v as (delete from {_S}.memory_fact_versions
                        where agent_id = $1 and user_id = $2),
                     o as (delete from {_S}.memory_ops
                        where agent_id = $1 and user_id = $2),
                     j as (delete from {_S}.call_journals
                        where agent_id = $1 and user_id = $2),
                     s as (delete from {_S}.chat_sessions
                        where agent_id = $1 and customers @> array[$2]::text[]),
                     i as (delete from {_S}.memory_idempotency
                        where agent_id = $1 and user_id = $2),
                     r as (delete from {_S}.memory_reads
                        where agent_id = $1 and user_id = $2)
                select (select count(*) from f) + (select count(*) from c)""",
                agent_id,
                user_id,
            )
        return int(count)
