"""A turn's writes on its claimed session (`chat.turn_record`): a record the database runs after
the turn's deadline (its own clock) keeps the answer as progress instead and frees the session;
progress kept as the turn goes is found by the next claim; a cut turn is recorded and clears it."""

from __future__ import annotations

from datetime import timedelta

import asyncpg
import pytest

from chat import TurnRecord, address_of, open_session
from chat.journal import kept_of
from chat.session_claim import claim_turn
from chat.turn_record import RecordLate, keep_progress, record, record_cut

ADDRESS = address_of("session", "support", "k", "customerId", {"customerId": "crm/1"})
SAID = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
TURN = TurnRecord(SAID, "Hi", "Hello", 1, 1, 1.0, digest="d" * 64, new_count=1)


async def _turns(pool: asyncpg.Pool) -> list[str]:
    _, turns = await open_session(pool, "support", ADDRESS.id)
    return [t.reply for t in turns]


async def test_the_database_clock_is_read_with_the_claim(pool: asyncpg.Pool) -> None:
    held, progress = await claim_turn(pool, ADDRESS, 60)
    assert progress is None
    now = await pool.fetchval("select clock_timestamp()")
    told = held.server_time(held.answered_at)
    assert told is not None and told <= now  # never later than the database's clock


async def test_a_record_in_time_is_kept_and_clears_the_progress(pool: asyncpg.Pool) -> None:
    held, _ = await claim_turn(pool, ADDRESS, 60)
    await keep_progress(pool, held, {"digest": "x"})
    until = held.server_time(held.answered_at + 30)
    await record(pool, held, TURN, until=until)
    assert await _turns(pool) == ["Hello"]
    again, progress = await claim_turn(pool, ADDRESS, 60)  # free, and nothing left over
    assert progress is None and again.token == held.token + 1
    digest = await pool.fetchval("select request_digest from stackbone_platform.chat_turns")
    assert digest == "d" * 64


async def test_a_record_past_its_deadline_keeps_the_answer_as_progress(
    pool: asyncpg.Pool,
) -> None:
    held, _ = await claim_turn(pool, ADDRESS, 60)
    now = held.server_time(held.answered_at)
    assert now is not None
    past = now - timedelta(milliseconds=1)
    with pytest.raises(RecordLate):
        await record(pool, held, TURN, until=past)
    assert await _turns(pool) == []  # the client was told it failed: not kept
    again, progress = await claim_turn(pool, ADDRESS, 60)  # the session is free at once
    assert again.token == held.token + 1
    kept = kept_of(progress)  # the whole answer, for the same request sent again
    assert kept is not None and kept.complete and kept.digest == "d" * 64
    assert (kept.new, kept.result.added) == (SAID[:1], SAID[1:])
    assert (kept.result.reply, kept.user_message, kept.result.finish_reason) == (
        "Hello",
        "Hi",
        "stop",
    )


async def test_a_cut_turn_is_recorded_and_the_claim_kept(pool: asyncpg.Pool) -> None:
    held, _ = await claim_turn(pool, ADDRESS, 60)
    await keep_progress(pool, held, {"digest": "x"})
    await release_by_lease_end(pool)
    later, progress = await claim_turn(pool, ADDRESS, 60)
    assert progress == {"digest": "x"}
    await record_cut(pool, later, TurnRecord(SAID[:1], "Hi", "", 0, 0, 0.0))
    await record(pool, later, TURN)
    assert await _turns(pool) == ["", "Hello"]


async def release_by_lease_end(pool: asyncpg.Pool) -> None:
    """The failed turn's lease ends (as if its process died)."""
    await pool.execute("update stackbone_platform.chat_sessions set busy_until = null")
