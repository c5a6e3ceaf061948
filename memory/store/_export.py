"""Everything held about one person under one agent, as one JSON document, streamed.

The document is an object: who it is about (`agentId`, `userId`), when it was read
(`exportedAt`), the person's revision counter (kept on purpose after an erasure, so an add in
flight cannot bring data back) and one list per kind of record (`SECTIONS`). Each list holds
the rows as stored, every column by its name (`to_jsonb` of the row), so a column added later
(a fact's provenance, a call's channel) is exported without a change here. Derived columns
that only repeat a row's text for search (`search_text`) are left out; text is as stored
(`memory.store._stored_text`: a NUL a model wrote travels as its escape).

All of it is read in one read-only repeatable-read transaction (one snapshot: a call saved
meanwhile is either wholly in the document or not at all) through a server-side cursor per
section, `page` rows at a time, so a person with ten thousand calls is never held in memory.
The transaction holds one pooled connection while the document streams.

`SECTIONS` must name every table that can hold a row of the person: a test scans the whole
schema for a person's id and fails on a table that is not here (`tests/memory/test_export.py`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Final

import asyncpg

from infra.database import Executor
from memory.contract import Unavailable
from memory.store._db_errors import translated

_S = "stackbone_platform"
DEFAULT_PAGE_ROWS: Final = 500
"""Rows fetched per round trip of a section's cursor (each a small JSON object)."""

_PERSON = "t.agent_id = $1 and t.user_id = $2"
_SESSIONS = f"""(select s.id from {_S}.chat_sessions s
    where s.agent_id = $1 and s.customers @> array[$2]::text[])"""
_JOURNALS = f"""(select j.id from {_S}.call_journals j
    where j.agent_id = $1 and j.user_id = $2)"""


@dataclass(frozen=True, slots=True)
class Section:
    """One list of the document: its name, the table its rows come from, which rows are the
    person's (`$1` the agent, `$2` the user, the row aliased `t`), their order and the derived
    columns left out."""

    name: str
    table: str
    where: str
    order: str
    drop: tuple[str, ...] = ()

    def query(self) -> str:
        row = "to_jsonb(t)" + "".join(f" - '{column}'" for column in self.drop)
        return (
            f"select ({row})::text from {_S}.{self.table} t"
            f" where {self.where} order by {self.order}"
        )


SECTIONS: Final = (
    Section("facts", "memory_facts", _PERSON, "t.seq", drop=("search_text",)),
    Section("factVersions", "memory_fact_versions", _PERSON, "t.seq"),
    Section("factVectors", "memory_fact_vectors", _PERSON, "t.fact_id"),  # with pgvector only
    Section("calls", "memory_calls", _PERSON, "t.started_at, t.seq"),
    Section("opsEvents", "memory_ops", _PERSON, "t.id"),
    Section("journals", "call_journals", _PERSON, "t.started_at, t.id"),
    Section(
        "journalEntries",
        "call_journal_entries",
        f"t.journal_id in {_JOURNALS}",
        "t.journal_id, t.position",
    ),
    Section(
        "chatSessions",
        "chat_sessions",
        "t.agent_id = $1 and t.customers @> array[$2]::text[]",
        "t.created_at, t.id",
    ),
    Section("chatTurns", "chat_turns", f"t.session_id in {_SESSIONS}", "t.session_id, t.position"),
    Section(
        "decisions",
        "chat_decisions",
        f"(t.session_id in {_SESSIONS} or {_PERSON})",
        "t.created_at, t.id",
    ),
    Section("idempotencyKeys", "memory_idempotency", _PERSON, "t.created_at, t.key"),
    Section("reads", "memory_reads", _PERSON, "t.id"),
)
COUNTER_TABLE: Final = "memory_revisions"
"""The person's revision counter: the document's `revision`, not a list."""

_HEAD = f"""select now() as at,
    (select revision from {_S}.memory_revisions where agent_id = $1 and user_id = $2),
    array(select t from unnest($3::text[]) as t
          where to_regclass('{_S}.' || quote_ident(t)) is not null) as present"""


def _head(agent_id: str, user_id: str, row: asyncpg.Record) -> str:
    head = {
        "agentId": agent_id,
        "userId": user_id,
        "exportedAt": row["at"].isoformat(),
        "revision": row["revision"],
    }
    return json.dumps(head, ensure_ascii=False)[:-1]  # the object stays open for the lists


async def export_person(
    pool: asyncpg.Pool,
    agent_id: str,
    user_id: str,
    *,
    page: int = DEFAULT_PAGE_ROWS,
    step_seconds: float | None = None,
    counted: dict[str, int] | None = None,
) -> AsyncGenerator[str]:
    """The person's document in pieces (the header, then about one piece per `page` rows);
    joined they are one JSON object. `step_seconds` bounds each database step (taking a
    connection, each page; asyncpg's own timeout, so a step given up on is cancelled on the
    server too); None leaves the pool's command timeout. Close the iterator early
    (`contextlib.aclosing`) to give the connection back. `counted`, when given, is filled with
    the rows sent per section as they go (counts for the read's record). Database failures
    raise `Unavailable`."""
    async with (
        translated(Unavailable, "export"),
        pool.acquire(timeout=step_seconds) as conn,
        conn.transaction(isolation="repeatable_read", readonly=True),
    ):
        tables = [section.table for section in SECTIONS]
        head = await conn.fetchrow(_HEAD, agent_id, user_id, tables, timeout=step_seconds)
        assert head is not None
        present = set(head["present"])
        yield _head(agent_id, user_id, head)
        for section in SECTIONS:
            yield f',"{section.name}":['
            if section.table in present:
                rows = _rows(conn, section, (agent_id, user_id), page, step_seconds)
                async for piece, count in rows:
                    if counted is not None:
                        counted[section.name] = counted.get(section.name, 0) + count
                    yield piece
            yield "]"
        yield "}"


async def _rows(
    conn: Executor,
    section: Section,
    person: tuple[str, str],
    page: int,
    step_seconds: float | None,
) -> AsyncIterator[tuple[str, int]]:
    """The section's rows, comma-separated, one piece per page fetched by its cursor (with
    how many rows it holds)."""
    cursor = await conn.cursor(section.query(), *person, timeout=step_seconds)
    separator = ""
    while rows := await cursor.fetch(page, timeout=step_seconds):
        yield separator + ",".join(row[0] for row in rows), len(rows)
        separator = ","
