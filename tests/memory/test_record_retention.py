"""Retention per agent: the pass deletes an agent's records older than its days, kind by kind,
in batches, under the long-operation limits; never a fact, never another agent's records."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import asyncpg
import structlog

from infra.long_ops import LongOpLimits
from memory.api import Memory
from memory.settings import NO_BRIEF, parse_retention
from memory.store import (
    JournalEntry,
    JournalHeader,
    Read,
    append_entries,
    expire_records,
    open_journal,
    record_read,
    save_retention,
)
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, update_op
from tests.waiting import eventually
from worker.ops_retention import RetentionConfig, records_pass, retention_running

S = "stackbone_platform"
OLD = 40  # days: past a 30-day retention
COUNT = "select count(*) from {s}.{table} where agent_id = $1"
OLDEST_OP = f"select min(id) from {S}.memory_ops where agent_id = $1"


async def person(memory: Memory, server: ModelServer, agent: str, user: str) -> None:
    """Two adds (a fact updated: a current fact and a closed version), two call records, two
    ops events."""
    server.answer([add_op("Allergic to penicillin.")], "First call.")
    assert (await memory.add("hi", agent, user)).error is None
    server.answer([update_op("f1", "Allergic to penicillin and latex.")], "Second call.")
    assert (await memory.add("hi", agent, user)).error is None


async def session(pool: asyncpg.Pool, agent: str, ident: str, days_old: float) -> None:
    """A chat session with one turn, last used `days_old` days ago."""
    await pool.execute(
        f"""insert into {S}.chat_sessions (id, kind, agent_id, session_key, updated_at)
        values ($1, 'session', $2, $1, now() - make_interval(days => $3))""",
        ident,
        agent,
        days_old,
    )
    await pool.execute(
        f"""insert into {S}.chat_turns (session_id, position, messages, user_message, reply,
            prompt_tokens, completion_tokens, duration_ms)
        values ($1, 0, '[]', 'Hi', 'Hello', 1, 1, 1.0)""",
        ident,
    )


async def journal(pool: asyncpg.Pool, agent: str, user: str, days_old: float) -> None:
    started = datetime.now(UTC) - timedelta(days=days_old)
    header = JournalHeader(
        f"AJ_{agent}_{days_old}", agent, user, None, NO_BRIEF, "call.ended", started
    )
    journal_id = await open_journal(pool, header)
    assert await append_entries(pool, journal_id, [JournalEntry(0, "user", "Hi")])


async def age_oldest(pool: asyncpg.Pool, agent: str) -> None:
    """The agent's first call record and first ops event become `OLD` days old."""
    for table, order in (("memory_calls", "seq"), ("memory_ops", "id")):
        await pool.execute(
            f"""update {S}.{table} set created_at = now() - make_interval(days => $2)
            where {order} = (select min({order}) from {S}.{table} where agent_id = $1)""",
            agent,
            OLD,
        )


async def world(memory: Memory, server: ModelServer, pool: asyncpg.Pool) -> None:
    """support keeps each kind 30 days (journals 1); sales keeps everything; both have the
    same old and new records."""
    for agent in ("support", "sales"):
        await person(memory, server, agent, "u1")
        await age_oldest(pool, agent)
        await session(pool, agent, f"{agent}-old", OLD)
        await session(pool, agent, f"{agent}-new", 1)
        await journal(pool, agent, "u1", 2)
        await journal(pool, agent, "u2", 0)
        for days_old in (OLD, 0):
            await record_read(pool, Read(agent, "u1", "test", "http", "recall", {"facts": 1}))
            await pool.execute(
                f"""update {S}.memory_reads set at = now() - make_interval(days => $1)
                where id = (select max(id) from {S}.memory_reads)""",
                days_old,
            )
    update = parse_retention({"calls": 30, "sessions": 30, "ops": 30, "reads": 30, "journals": 1})
    await save_retention(pool, "support", update, "test")


async def counts(pool: asyncpg.Pool, agent: str) -> dict[str, int]:
    tables = ["memory_facts", "memory_fact_versions", "memory_calls", "memory_ops"]
    tables += ["chat_sessions", "call_journals", "memory_reads"]
    return {t: await pool.fetchval(COUNT.format(s=S, table=t), agent) for t in tables}


async def test_the_pass_removes_what_is_older_than_each_kinds_days_and_never_a_fact(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await world(memory, model_server, pool)
    before = await counts(pool, "sales")
    oldest_op = await pool.fetchval(OLDEST_OP, "support")
    with structlog.testing.capture_logs() as logs:
        removed = await records_pass(pool, RetentionConfig(days=365))
    assert removed == {"calls": 1, "sessions": 1, "ops": 1, "reads": 1, "journals": 1}
    assert await counts(pool, "support") == {
        "memory_facts": 1,  # a fact is never removed by age
        "memory_fact_versions": 1,
        "memory_calls": 1,
        "memory_ops": 1,
        "chat_sessions": 1,
        "call_journals": 1,
        "memory_reads": 1,
    }
    assert await counts(pool, "sales") == before  # another agent keeps its records
    turns = await pool.fetch(f"select session_id from {S}.chat_turns order by 1")
    assert [r["session_id"] for r in turns] == ["sales-new", "sales-old", "support-new"]
    [logged] = [e for e in logs if e["event"] == "retention.expired"]
    assert logged == {
        "event": "retention.expired",
        "log_level": "info",
        "agent_id": "support",
        "calls": 1,
        "sessions": 1,
        "ops": 1,
        "reads": 1,
        "journals": 1,
    }
    marks = await pool.fetch(f"select agent_id, through_id from {S}.memory_ops_expired")
    assert [(r["agent_id"], r["through_id"]) for r in marks] == [("support", oldest_op)]
    assert await records_pass(pool, RetentionConfig(days=365)) == {
        "calls": 0,
        "sessions": 0,
        "ops": 0,
        "reads": 0,
        "journals": 0,
    }


async def test_batches_of_one_take_every_old_record(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    for user in ("u1", "u2", "u3"):
        await person(memory, model_server, "support", user)
    await pool.execute(
        f"update {S}.memory_calls set created_at = now() - make_interval(days => {OLD})"
    )
    assert await expire_records(pool, "support", "calls", 30, batch=1, pause_seconds=0) == 6
    assert await pool.fetchval(COUNT.format(s=S, table="memory_facts"), "support") == 3


async def test_a_batch_waiting_on_a_lock_gives_up_at_the_lock_timeout(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, database_url: str
) -> None:
    """A session whose turn another transaction holds: the cascade waits for the lock, the
    batch gives up after `lock_timeout`, tries again, and the pass fails (logged), not hangs;
    the next pass takes it."""
    await world(memory, model_server, pool)
    other = await asyncpg.connect(database_url)
    limits = LongOpLimits(lock_seconds=0.1, lock_attempts=2)
    try:
        holder = other.transaction()
        await holder.start()
        await other.execute(
            f"select 1 from {S}.chat_turns where session_id = 'support-old' for update"
        )
        with structlog.testing.capture_logs() as logs:
            config = RetentionConfig(days=365, limits=limits)
            assert await asyncio.wait_for(records_pass(pool, config), 30) is None
        assert [e["error_code"] for e in logs if e["event"] == "retention.failed"] == [
            "memory_unavailable"
        ]
        await holder.rollback()
    finally:
        await other.close()
    assert (await records_pass(pool, RetentionConfig(days=365)) or {})["sessions"] == 1


async def test_the_running_task_enforces_retention(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await world(memory, model_server, pool)

    async def old_call_gone() -> bool:
        left: int = await pool.fetchval(COUNT.format(s=S, table="memory_calls"), "support")
        return left == 1

    async with retention_running(pool, RetentionConfig(days=365, interval_seconds=0.05)):
        await eventually(old_call_gone, "support's old call record deleted")
    assert await pool.fetchval(COUNT.format(s=S, table="memory_facts"), "support") == 1
