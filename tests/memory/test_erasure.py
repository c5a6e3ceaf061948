"""The right to be forgotten: after delete_all, no erased text is left anywhere in the schema."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg

from memory.api import Memory
from memory.settings import NO_BRIEF
from memory.store import JournalEntry, JournalHeader, append_entries, open_journal
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, delete_op, stored, update_op

SCHEMA = "stackbone_platform"


async def tables(pool: asyncpg.Pool) -> list[str]:
    rows = await pool.fetch(
        "select format('%I.%I', table_schema, table_name) as name"
        " from information_schema.tables"
        " where table_schema = $1 and table_type = 'BASE TABLE' order by 1",
        SCHEMA,
    )
    return [r["name"] for r in rows]


async def where_found(pool: asyncpg.Pool, markers: list[str]) -> dict[str, int]:
    """Rows of every table in the schema whose text form contains any marker (any column).

    A row's text form holds every column, whatever its type (text, arrays, JSON, tsvector), so
    a table added later (an ops log, a search column) is scanned without changing this test.
    """
    patterns = [f"%{m}%" for m in markers]
    found = {}
    for table in await tables(pool):
        count = await pool.fetchval(
            f"select count(*) from {table} t where t::text ilike any($1::text[])", patterns
        )
        if count:
            found[table] = count
    return found


async def say(
    memory: Memory, server: ModelServer, user: str, *ops: dict[str, object], summary: str
) -> None:
    server.answer(list(ops), summary)
    result = await memory.add("hi", "support", user)
    assert result.error is None, result.error


async def journal(pool: asyncpg.Pool, user: str, heard: str) -> None:
    """A running call's journal (`lifecycle.journal`) that has heard `heard`."""
    header = JournalHeader(
        f"AJ_{user}", "support", user, "Note pets.", NO_BRIEF, "call.ended", datetime.now(UTC)
    )
    journal_id = await open_journal(pool, header)
    assert await append_entries(pool, journal_id, [JournalEntry(0, "user", heard)])


async def test_delete_all_leaves_no_erased_text_in_any_table(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Current facts, closed versions (updated, deleted), summaries and what a running call
    journalled go; a neighbour's stay."""
    gone = [
        "zanzibarquokka",
        "quetzalmarmot",
        "okapiwombat",
        "narwhalsummary",
        "ibexsummary",
        "heardtapir",
    ]
    kept = ["keptaxolotl", "keptsummarylemur", "keptheardlynx"]
    await say(
        memory,
        model_server,
        "u1",
        add_op("Owns a zanzibarquokka."),
        add_op("Met an okapiwombat."),
        summary="A narwhalsummary call.",
    )
    await say(
        memory,
        model_server,
        "u1",
        update_op("f1", "Owns a quetzalmarmot."),
        delete_op("f2"),
        summary="An ibexsummary call.",
    )
    await say(
        memory, model_server, "u2", add_op("Has a keptaxolotl."), summary="A keptsummarylemur call."
    )
    await journal(pool, "u1", "My heardtapir is ill.")
    await journal(pool, "u2", "My keptheardlynx is fine.")
    assert set(await where_found(pool, gone)) == {
        f"{SCHEMA}.memory_facts",
        f"{SCHEMA}.memory_fact_versions",
        f"{SCHEMA}.memory_calls",
        f"{SCHEMA}.memory_ops",  # the ops log holds fact text for its listeners
        f"{SCHEMA}.call_journal_entries",  # what a running call heard
    }
    erased = await memory.delete_all("support", "u1")
    assert erased.data is not None and erased.data.deleted == 1 + 2  # facts + call records
    assert await where_found(pool, gone) == {}
    assert set(await where_found(pool, kept)) == {
        f"{SCHEMA}.memory_facts",
        f"{SCHEMA}.memory_calls",
        f"{SCHEMA}.memory_ops",  # the neighbour's events stay
        f"{SCHEMA}.call_journal_entries",
    }
    assert await pool.fetchval(f"select count(*) from {SCHEMA}.call_journals") == 1
    left = await memory.history("support", "u1")
    assert left.data is not None and left.data.versions == ()
    assert (await stored(pool, "support", "u1"))["revision"] == 3  # kept and bumped


async def test_history_starts_over_after_erasure(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """The bound's counter restarts with the erased history, so new versions are all kept."""
    await say(memory, model_server, "u1", add_op("One."), summary="s")
    await say(memory, model_server, "u1", update_op("f1", "Two."), summary="s")
    await memory.delete_all("support", "u1")
    closed = await pool.fetchval(
        f"select closed_versions from {SCHEMA}.memory_revisions where user_id = 'u1'"
    )
    assert closed == 0
    await say(memory, model_server, "u1", add_op("Three."), summary="s")
    await say(memory, model_server, "u1", update_op("f1", "Four."), summary="s")
    versions = await memory.history("support", "u1")
    assert versions.data is not None
    assert [v.content for v in versions.data.versions] == ["Three.", "Four."]
