"""The sweeper against real Postgres: journals whose heartbeat stopped, saved exactly once.

A dead job is a journal written the way a job writes it (`memory.store`) whose heartbeat is
then aged past the lost-after bound: nothing else of the job is left to run.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import asyncpg
import pytest
from prometheus_client import REGISTRY

from lifecycle.sweeper import SweepConfig, Sweeper
from memory.api import Memory
from memory.settings import Brief
from memory.store import (
    JournalEntry,
    JournalHeader,
    append_entries,
    journal_entries,
    open_journal,
)
from testkit.call_harness import saved_transcript
from testkit.model_server import ModelServer
from tests.memory.test_extraction_dates import data_of

S = "stackbone_platform"
AGENT, USER = "support", "+34600111222"
CONFIG = SweepConfig(
    lost_after_seconds=60.0, drop_after_seconds=600.0, interval_seconds=0.1, lease_seconds=120.0
)
HEARD = [
    JournalEntry(0, "assistant", "Hello, how can I help?"),
    JournalEntry(1, "user", "I moved to Porto last week."),
    JournalEntry(2, "assistant", "Noted, Porto it is."),
]


def header(job_id: str = "AJ_dead", agent_id: str = AGENT, **kw: object) -> JournalHeader:
    values: dict[str, object] = {
        "job_id": job_id,
        "agent_id": agent_id,
        "user_id": USER,
        "instructions": "Keep addresses.",
        "brief": Brief(remember=("where they live",)),
        "consolidate": "call.ended",
        "started_at": datetime.now(UTC) - timedelta(minutes=5),
    }
    values.update(kw)
    return JournalHeader(**values)  # type: ignore[arg-type]


async def dead_job(
    pool: asyncpg.Pool,
    head: JournalHeader | None = None,
    heard: list[JournalEntry] = HEARD,
    *,
    silent: float = 90.0,
    save_started: bool = False,
    covered: int = 0,
) -> str:
    """A journal as its job left it, silent for `silent` seconds."""
    journal_id = await open_journal(pool, head or header())
    assert await append_entries(pool, journal_id, heard)
    await pool.execute(
        f"update {S}.call_journals set heartbeat_at = now() - make_interval(secs => $2),"
        " save_started = $3, covered = $4 where id = $1::uuid",
        journal_id,
        silent,
        save_started,
        covered,
    )
    return journal_id


def sweeper(pool: asyncpg.Pool, memory: Memory, holder: str = "w1", **kw: object) -> Sweeper:
    config = dataclasses.replace(CONFIG, **kw)  # type: ignore[arg-type]
    return Sweeper(pool, memory, {AGENT}.__contains__, config, holder=holder)


async def journals(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval(f"select count(*) from {S}.call_journals"))


async def calls(pool: asyncpg.Pool) -> list[asyncpg.Record]:
    return list(
        await pool.fetch(
            f"select outcome, run_id, summary, duration_seconds from {S}.memory_calls order by seq"
        )
    )


def swept(action: str, reason: str = "none") -> float:
    value = REGISTRY.get_sample_value(
        "caller_memory_journal_swept_total", {"action": action, "reason": reason}
    )
    return value or 0.0


async def test_a_dead_jobs_journal_is_saved_once_as_job_lost(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool)
    model_server.answer([{"op": "add", "handle": None, "content": "Lives in Porto."}], "Moved.")
    before = swept("saved")
    assert await sweeper(pool, memory).sweep() == ["saved"]
    assert len(model_server.requests) == 1  # exactly one extraction request
    sent = saved_transcript(model_server.requests[0])
    assert sent == [{"role": e.role, "text": e.content} for e in HEARD]
    prompt = "\n".join(m["content"] for m in model_server.requests[0]["messages"])
    assert "Keep addresses." in prompt and "where they live" in prompt  # the plan's facts
    [record] = await calls(pool)
    assert (record["outcome"], record["run_id"], record["summary"]) == (
        "job_lost",
        "AJ_dead",
        "Moved.",
    )
    assert record["duration_seconds"] == pytest.approx(300 - 90, abs=5)  # to the last beat
    assert await journals(pool) == 0  # deleted by the statement that wrote the memory
    assert swept("saved") == before + 1
    assert await sweeper(pool, memory).sweep() == []  # nothing left: never a second request
    assert len(model_server.requests) == 1


async def test_a_journal_still_beating_is_left_alone(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool, silent=30.0)  # inside the bound: the job may be alive
    assert await sweeper(pool, memory).sweep() == []
    assert await journals(pool) == 1 and model_server.requests == []


async def test_two_sweepers_racing_act_once(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    for n in range(4):
        await dead_job(pool, header(job_id=f"AJ_{n}"))
        model_server.answer([], f"Call {n}.")
    first, second = sweeper(pool, memory, "w1"), sweeper(pool, memory, "w2")
    done = await asyncio.gather(first.sweep(), second.sweep(), first.sweep(), second.sweep())
    assert sorted(a for acts in done for a in acts) == ["saved"] * 4
    assert len(model_server.requests) == 4  # one per journal, whoever won it
    assert sorted(r["run_id"] for r in await calls(pool)) == ["AJ_0", "AJ_1", "AJ_2", "AJ_3"]
    assert await journals(pool) == 0


async def test_a_started_save_is_recorded_interrupted_without_a_model_call(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool, save_started=True)
    before = swept("interrupted", "save_started")
    assert await sweeper(pool, memory).sweep() == ["interrupted"]
    assert model_server.requests == []
    [record] = await calls(pool)
    assert (record["outcome"], record["run_id"], record["summary"]) == (
        "save_interrupted",
        "AJ_dead",
        "",
    )
    assert await journals(pool) == 0
    assert swept("interrupted", "save_started") == before + 1


async def test_a_sweeper_dying_mid_save_is_never_followed_by_a_second_request(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    """The first sweeper marked the save and died before its write; its lease ran out."""
    await dead_job(pool)
    model_server.fail(status=500, delay=0)  # never reached: the point is no request at all
    dying = sweeper(pool, memory, "w1", lease_seconds=0.2)
    claimed = await pool.fetch(  # what `sweep` does up to the mark, then nothing more
        f"update {S}.call_journals set lease_holder = 'w1', lease_until = now()"
        " + interval '0.2 seconds', save_started = true returning id"
    )
    assert len(claimed) == 1 and dying.holder == "w1"
    await asyncio.sleep(0.3)
    assert await sweeper(pool, memory, "w2").sweep() == ["interrupted"]
    assert model_server.requests == []


async def test_a_journal_of_an_unknown_agent_waits_then_is_dropped_and_counted(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool, header(agent_id="retired-agent"), silent=120.0)
    before = swept("dropped", "agent_unknown")
    assert await sweeper(pool, memory).sweep() == ["waited"]  # another worker may serve it
    assert await journals(pool) == 1
    await pool.execute(f"update {S}.call_journals set lease_until = null")
    assert await sweeper(pool, memory, drop_after_seconds=100.0).sweep() == ["dropped"]
    assert await journals(pool) == 0 and model_server.requests == []
    assert swept("dropped", "agent_unknown") == before + 1


async def test_an_invalid_identity_is_dropped_after_the_bound(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool, header(user_id=""), silent=700.0)
    assert await sweeper(pool, memory).sweep() == ["dropped"]
    assert model_server.requests == []


async def test_nothing_heard_is_dropped_without_a_request(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool, heard=[])
    assert await sweeper(pool, memory).sweep() == ["dropped"]
    assert model_server.requests == [] and await calls(pool) == []


async def test_a_failed_save_is_recorded_and_dropped_never_retried(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool)
    model_server.fail(status=500)
    assert await sweeper(pool, memory).sweep() == ["failed"]
    assert await journals(pool) == 0 and await calls(pool) == []
    assert await sweeper(pool, memory).sweep() == []
    assert len(model_server.requests) == 1


async def test_turn_mode_saves_only_what_no_pass_covered(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    heard = [*HEARD, JournalEntry(3, "user", "And my dog is called Rex.")]
    await dead_job(pool, header(consolidate="turn"), heard, covered=3)
    model_server.answer([], "Rex.")
    assert await sweeper(pool, memory).sweep() == ["saved"]
    assert saved_transcript(model_server.requests[0]) == [
        {"role": "user", "text": "And my dog is called Rex."}
    ]
    [record] = await calls(pool)
    assert record["outcome"] == "job_lost"


async def test_a_pass_moves_the_mark_and_the_final_write_removes_the_journal(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    """Both in the statement that writes the memory: never saved and still journalled."""
    await dead_job(pool, header(job_id="AJ_live", consolidate="turn"), silent=0.0)
    model_server.answer([], "first pass")
    passed = await memory.consolidate(
        "hello", AGENT, USER, turn=1, final=False, call={"run_id": "AJ_live"}, covers=2
    )
    assert passed.error is None
    assert await pool.fetchval(f"select covered from {S}.call_journals") == 2
    model_server.answer([], "another call")
    model_server.answer([], "the call")
    added = await memory.add("bye", AGENT, USER, {"run_id": "AJ_other"})
    assert added.error is None and await journals(pool) == 1  # another call's save: kept
    added = await memory.add("bye", AGENT, USER, {"run_id": "AJ_live"})
    assert added.error is None and await journals(pool) == 0


async def test_appends_after_the_journal_went_write_nothing(pool: asyncpg.Pool) -> None:
    """A late batch after the save (or an erasure) cannot bring heard text back."""
    journal_id = await open_journal(pool, header())
    await pool.execute(f"delete from {S}.call_journals")
    assert not await append_entries(pool, journal_id, HEARD)
    assert await pool.fetchval(f"select count(*) from {S}.call_journal_entries") == 0


@pytest.mark.parametrize("consolidate", ["call.ended", "turn"])
async def test_the_lost_save_dates_the_call_in_the_agents_time_zone(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer, consolidate: str
) -> None:
    head = header(consolidate=consolidate, time_zone="America/Sao_Paulo")
    await dead_job(pool, head)
    model_server.answer([], "Moved.")
    assert await sweeper(pool, memory).sweep() == ["saved"]
    conversation = data_of(model_server.requests[0]["messages"])["conversation"]
    assert conversation["time_zone"] == "America/Sao_Paulo"
    local = datetime.fromisoformat(conversation["started_at_local"])
    assert (
        local.utcoffset() == head.started_at.astimezone(ZoneInfo("America/Sao_Paulo")).utcoffset()
    )


async def test_a_journal_without_a_time_zone_saves_without_one(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await dead_job(pool)  # as journals written before the column existed
    model_server.answer([], "Moved.")
    assert await sweeper(pool, memory).sweep() == ["saved"]
    conversation = data_of(model_server.requests[0]["messages"])["conversation"]
    assert (conversation["time_zone"], conversation["started_at_local"]) == (None, None)


async def test_a_journal_holding_a_nul_and_a_lone_surrogate_is_kept_and_saved(
    pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    """What the model said is journalled exactly; the swept save sends it as `memory` takes it
    (the NUL dropped, the lone surrogate as U+FFFD), not refused as client input."""
    said = [*HEARD[:2], JournalEntry(2, "assistant", "Noted\x00, Porto \ud800 it is.")]
    journal_id = await dead_job(pool, heard=said)
    assert await journal_entries(pool, journal_id) == said
    model_server.answer([], "Moved.")
    assert await sweeper(pool, memory).sweep() == ["saved"]
    sent = saved_transcript(model_server.requests[0])
    assert sent[2] == {"role": "assistant", "text": "Noted, Porto \ufffd it is."}
    assert [(r["outcome"], r["summary"]) for r in await calls(pool)] == [("job_lost", "Moved.")]
    assert await journals(pool) == 0
