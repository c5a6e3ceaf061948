"""The call's journal under livekit's own job runner, with the real AgentSession.

What a call heard is journalled as it is committed, exactly as the save would send it (an
interrupted reply's verified played part only), the save removes it, a journal whose job went
silent is saved by the sweeper, and a journal the database refuses never holds up a reply.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from livekit import rtc
from prometheus_client import REGISTRY

from lifecycle.sweeper import SweepConfig, Sweeper
from memory.api import Memory
from memory.store import journal_entries
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.job_runner import AGENT, FakeCallSide, call_records, dispatch, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer, Reply
from tests.jobrunner.conftest import SAVE_TIMEOUT
from tests.waiting import eventually

S = "stackbone_platform"
NUMBER = "+34600111222"
STORY = "Sure thing. Here is how it went. " + "The keeper lit the lamp at dusk. " * 12


@pytest.fixture
def fast_beat(job_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALL_JOURNAL_HEARTBEAT_SECONDS", "0.2")


def sip_caller(room: MockRoom) -> rtc.RemoteParticipant:
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    return caller


async def entries(pool: asyncpg.Pool) -> list[dict[str, str]]:
    rows = await pool.fetch(f"select role, content from {S}.call_journal_entries order by position")
    return [{"role": r["role"], "text": r["content"]} for r in rows]


async def journalled(pool: asyncpg.Pool, count: int) -> list[dict[str, str]]:
    for _ in range(400):
        found = await entries(pool)
        if len(found) >= count:
            return found
        await asyncio.sleep(0.025)
    raise TimeoutError(f"the journal never held {count} messages")


async def beats(pool: asyncpg.Pool, count: int) -> None:
    """Wait for `count` more journal writes (each moves the heartbeat and writes every message
    handed over before it): beats of the job's own loop, however slow the machine is."""
    beat = "select heartbeat_at from " + S + ".call_journals"
    seen = await pool.fetchval(beat)
    for _ in range(count):

        async def moved(last: object = seen) -> object:
            now = await pool.fetchval(beat)
            return now if now != last else None

        seen = await eventually(moved, "the journal's next beat")


def failures(step: str) -> float:
    value = REGISTRY.get_sample_value("caller_memory_journal_failures_total", {"step": step})
    return value or 0.0


async def test_the_journal_holds_what_the_save_sends_and_the_save_removes_it(
    fast_beat: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """A barged-in reply is journalled as its verified played part, as the save sends it."""
    caller = sip_caller(room)
    side.replies = (STORY.strip(),)
    model_server.answer([], "Story time.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        session, speaker = side.session, side.io.speaker if side.io else None
        assert session is not None and speaker is not None
        side.in_job(session.generate_reply, user_input="Tell me a story.")
        await wait_until(lambda: len(speaker.segments) == 1 and session.agent_state == "speaking")
        await asyncio.sleep(2.0)
        side.in_job(session.interrupt)
        await wait_until(lambda: session.agent_state == "listening", within=10)
        await journalled(pool, 2)
        await beats(pool, 2)  # every message committed by the interruption is written
        heard = await entries(pool)
        header = await pool.fetchrow(f"select * from {S}.call_journals")
        assert header is not None
        assert (header["agent_id"], header["user_id"], header["save_started"]) == (
            AGENT,
            NUMBER,
            False,
        )
        assert header["job_id"].startswith("mock-job-")
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    sent = saved_transcript(model_server.requests[0])
    assert heard == sent  # exactly the messages the save sent, in order
    if len(sent) == 3:  # the played part of the story, when a sentence finished under load
        assert sent[2]["role"] == "assistant" and len(sent[2]["text"]) < len(STORY.strip())
    assert await pool.fetchval(f"select count(*) from {S}.call_journals") == 0
    assert await pool.fetchval(f"select count(*) from {S}.call_journal_entries") == 0
    [record] = await call_records(pool)
    assert record["outcome"] == "caller_hung_up"


async def test_a_silent_jobs_journal_is_saved_by_the_sweeper(
    fast_beat: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    memory: Memory,
) -> None:
    """The journal a real call wrote, as its job would leave it dying mid-call (a copy taken
    while the call ran, its heartbeat stopped): the sweeper saves it once, as the save would."""
    caller = sip_caller(room)
    model_server.answer([], "Normal save.")
    model_server.answer([], "Swept.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        assert side.session is not None
        side.in_job(side.session.generate_reply, user_input="I moved to Porto.")
        heard = await journalled(pool, 3)
        await pool.execute(  # the dead twin: same header and entries, another job, silent
            f"""with twin as (
                insert into {S}.call_journals (job_id, agent_id, user_id, instructions,
                    brief_remember, brief_forget, consolidate, started_at, heartbeat_at)
                select 'AJ_dead', agent_id, user_id, instructions, brief_remember, brief_forget,
                    consolidate, started_at, now() - interval '2 minutes'
                from {S}.call_journals returning id)
            insert into {S}.call_journal_entries (journal_id, position, role, content)
            select twin.id, e.position, e.role, e.content
            from twin, {S}.call_journal_entries e"""
        )
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    config = SweepConfig(60.0, 600.0, 0.1, 120.0)
    assert await Sweeper(pool, memory, {AGENT}.__contains__, config).sweep() == ["saved"]
    assert len(model_server.requests) == 2  # the call's save, then the dead twin's one
    normal, swept = (saved_transcript(r) for r in model_server.requests)
    assert swept == heard == normal
    outcomes = sorted((r["run_id"], r["outcome"]) for r in await call_records(pool))
    assert outcomes[0] == ("AJ_dead", "job_lost")
    assert await pool.fetchval(f"select count(*) from {S}.call_journals") == 0


async def test_a_locked_journal_never_holds_up_a_reply_and_is_counted(
    fast_beat: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
) -> None:
    caller = sip_caller(room)
    model_server.answer([], "A short call.")
    before = failures("append")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        await journalled(pool, 1)
        session, speaker = side.session, side.io.speaker if side.io else None
        assert session is not None and speaker is not None
        blocker = await asyncpg.connect(database_url)
        try:
            locking = blocker.transaction()
            await locking.start()
            await blocker.execute(f"lock table {S}.call_journal_entries in access exclusive mode")
            side.in_job(session.generate_reply, user_input="I moved to Porto.")
            # the reply is spoken while every journal write waits on the lock
            await wait_until(
                lambda: len(speaker.segments) == 2 and session.agent_state == "listening",
                within=10,
            )
            assert failures("append") == before  # still waiting: the reply did not
            await wait_until(lambda: failures("append") > before, within=10)  # lock timeout
            await locking.rollback()
        finally:
            await blocker.close()
        assert len(await journalled(pool, 3)) == 3  # the held batch went with the next beat
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    assert len(saved_transcript(model_server.requests[0])) == 3
    assert await pool.fetchval(f"select count(*) from {S}.call_journals") == 0


async def test_a_call_keeps_no_journal_when_it_is_turned_off(
    fast_beat: None,
    *,
    monkeypatch: pytest.MonkeyPatch,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    monkeypatch.setenv("CALL_JOURNAL", "0")
    caller = sip_caller(room)
    model_server.answer([], "Saved without a journal.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        assert side.session is not None
        side.in_job(side.session.generate_reply, user_input="I moved to Porto.")
        await wait_until(lambda: len(side.io.speaker.segments) >= 2 if side.io else False)
        await asyncio.sleep(0.6)  # three beats: a journal would hold the turns by now
        assert await pool.fetchval(f"select count(*) from {S}.call_journals") == 0
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    assert len(saved_transcript(model_server.requests[0])) >= 2  # the save is unchanged
    [record] = await call_records(pool)
    assert record["outcome"] == "caller_hung_up"


async def test_the_save_marks_the_journal_before_its_model_call(
    fast_beat: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """While the extraction is in flight the journal says so: a sweeper would not call again."""
    caller = sip_caller(room)
    looked = asyncio.Event()  # the request fails once the test read the journal
    model_server.replies.append(Reply(status=500, hold=looked))
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        await journalled(pool, 1)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        try:
            await wait_until(lambda: len(model_server.requests) == 1, within=10)
            started = await pool.fetchval(f"select save_started from {S}.call_journals")
        finally:
            looked.set()
        assert started is True
    # the failed save is recorded, never retried: its journal is dropped, nothing is recorded
    assert await pool.fetchval(f"select count(*) from {S}.call_journals") == 0
    assert await call_records(pool) == [] and len(model_server.requests) == 1


async def test_a_reply_holding_a_nul_is_journalled_and_saved(
    fast_beat: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """What the model said is journalled exactly (escaped in Postgres), and the one save at close
    sends it as heard (the NUL dropped), not refused. (A lone surrogate never reaches the
    caller: livekit's sentence tokenizer refuses it; `tests/lifecycle/test_recovery.py`.)"""
    caller = sip_caller(room)
    said = "Noted\x00 the move to Porto today."
    side.replies = (said,)
    model_server.answer([], "Moved to Porto.")
    refused = failures("append")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        assert side.session is not None
        side.in_job(side.session.generate_reply, user_input="I moved to Porto.")
        await journalled(pool, 3)
        journal_id = await pool.fetchval(f"select id::text from {S}.call_journals")
        kept = await journal_entries(pool, journal_id)
        assert [e.content for e in kept if e.role == "assistant"][-1] == said
        assert failures("append") == refused
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    sent = saved_transcript(model_server.requests[0])
    assert sent[-1] == {"role": "assistant", "text": "Noted the move to Porto today."}
    [record] = await call_records(pool)
    assert record["outcome"] == "caller_hung_up"
    assert await pool.fetchval(f"select count(*) from {S}.call_journals") == 0
