"""A call end to end: snapshot, recall before the greeting, heard transcript, one save."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime

import asyncpg
import pytest
import structlog.testing

from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.settings import Overrides, SettingsUpdate
from memory.store._facts import MemoryStore
from memory.store._settings import save_settings
from testkit.call_harness import (
    AGENT,
    CALLER,
    GREETING,
    Harness,
    saved_transcript,
    seed,
    snapshot_plan,
    voice_call,
)
from testkit.databases import drop_database_under
from testkit.fake_devices import wait_until
from testkit.fake_models import SECONDS_PER_CHAR
from testkit.model_server import ModelServer
from tests.memory.helpers import stored

REMEMBERED = "Has a dog named Rex."
ASK = "Please call me after five."
ANSWER = "Sure, after five it is."


@pytest.mark.parametrize(("read", "save"), list(itertools.product([False, True], repeat=2)))
async def test_read_save_matrix(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, read: bool, save: bool
) -> None:
    """read decides what the model sees before its first output; save decides the one add."""
    await seed(memory, model_server, REMEMBERED)
    plan = await snapshot_plan(pool, read=read, save=save)
    model_server.answer([], "Agreed on a callback after five.")
    async with voice_call(memory, plan, ANSWER) as call:
        await call.wait_turns(1)
        call.session.generate_reply(user_input=ASK)
        await call.wait_turns(3)
        await call.shutdown()
        report = await call.running.save.wait("test")
    assert (REMEMBERED in call.first_llm_text()) is read  # the greeting's own request
    assert call.agent.tools == []  # voice offers the model no memory tools
    saves = model_server.requests[1:]
    if not save:
        assert saves == [] and report.status == "skipped"
        return
    assert len(saves) == 1 and report.status == "saved"
    assert saved_transcript(saves[0]) == [
        {"role": "assistant", "text": GREETING},
        {"role": "user", "text": ASK},
        {"role": "assistant", "text": ANSWER},
    ]
    calls = (await stored(pool, AGENT, CALLER))["calls"]
    assert [c["summary"] for c in calls] == ["Earlier call.", "Agreed on a callback after five."]
    record = await pool.fetchrow(
        "select started_at, duration_seconds, outcome, run_id from stackbone_platform.memory_calls"
        " where summary = 'Agreed on a callback after five.'"
    )
    assert record is not None
    # the harness closes the session, then runs the callbacks with "room disconnected"
    assert (record["outcome"], record["run_id"]) == ("job_shutdown", "job-1")
    assert record["started_at"] < datetime.now(UTC) and 0 < record["duration_seconds"] < 60


CLOSE_PATHS = ["agent_closes", "room_disconnected", "worker_drain"]


async def _fire(call: Harness, path: str) -> None:
    if path == "agent_closes":
        await call.session.aclose()
    else:
        reason = "room disconnected" if path == "room_disconnected" else "parent process shutdown"
        await asyncio.gather(*(cb(reason) for cb in call.shutdown_callbacks))


@pytest.mark.parametrize("order", list(itertools.permutations(CLOSE_PATHS)))
@pytest.mark.parametrize("model_ok", [True, False])
async def test_close_paths_in_any_order_share_one_save(
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    order: tuple[str, ...],
    model_ok: bool,
) -> None:
    """Every ordering: one extraction request, and the cause that came first in it."""
    plan = await snapshot_plan(pool, read=False, save=True)
    if model_ok:
        model_server.answer([], "A short call.")
    else:
        model_server.fail(500)
    async with voice_call(memory, plan) as call:
        await call.wait_turns(1)
        await asyncio.gather(*(_fire(call, path) for path in order))
        report = await call.running.save.wait("late")
    assert len(model_server.requests) == 1  # exactly one extraction, never retried
    assert report.status == ("saved" if model_ok else "failed")
    calls = (await stored(pool, AGENT, CALLER))["calls"]
    assert len(calls) == (1 if model_ok else 0)
    if model_ok:
        first_shutdown = next(p for p in order if p != "agent_closes")
        expected = "worker_drain" if first_shutdown == "worker_drain" else "job_shutdown"
        record = await pool.fetchrow("select outcome from stackbone_platform.memory_calls")
        assert record is not None and record["outcome"] == expected


async def test_recall_over_budget_greets_at_the_budget_without_memory(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, database_url: str
) -> None:
    """A recall stuck behind a table lock: the greeting starts at the budget, reason recorded."""
    await seed(memory, model_server, REMEMBERED)
    plan = await snapshot_plan(pool, read=True, save=False)
    blocker = await asyncpg.connect(database_url)
    tx = blocker.transaction()
    await tx.start()
    await blocker.execute("lock table stackbone_platform.memory_facts in access exclusive mode")
    try:
        with structlog.testing.capture_logs() as logs:
            async with voice_call(memory, plan, budget=0.3) as call:
                await call.wait_turns(1)
                assert call.io.speaker.first_frame_at is not None
                waited = call.io.speaker.first_frame_at - call.opened_at
                lock_still_held = not blocker.is_closed()
    finally:
        await tx.rollback()
        await blocker.close()
    assert lock_still_held and 0.3 <= waited < 3.0  # at the budget, not when the lock went
    assert REMEMBERED not in call.first_llm_text()
    reasons = [e["reason"] for e in logs if e["event"] == "call.memory_not_recalled"]
    assert reasons == ["recall_over_budget"]


async def test_database_down_at_room_open_call_goes_on_without_memory(
    doomed_pool: asyncpg.Pool,
    model_server: ModelServer,
    memory_config: MemoryConfig,
    pg_admin_url: str,
) -> None:
    """Settings cannot be read: memory is off with a reason, and the caller is still greeted."""
    memory = open_memory(MemoryStore(doomed_pool), memory_config)
    await drop_database_under(doomed_pool, pg_admin_url)
    plan = await snapshot_plan(doomed_pool, read=True, save=True, bind=False)
    assert (plan.active, plan.reason) == (False, "settings_unavailable")
    async with voice_call(memory, plan) as call:
        await call.wait_turns(1)
        await call.shutdown()
        report = await call.running.save.wait("test")
    assert call.running.recorder.transcript == [{"role": "assistant", "content": GREETING}]
    assert (report.status, report.reason) == ("skipped", "settings_unavailable")
    assert model_server.requests == []


async def test_settings_change_mid_call_applies_from_the_next_call(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    plan = await snapshot_plan(pool, read=False, save=True)
    model_server.answer([], "A short call.")
    async with voice_call(memory, plan) as call:
        await call.wait_turns(1)
        update = SettingsUpdate(overrides=Overrides(save=False), identity_key=None)
        await save_settings(pool, AGENT, update, "tester")
        await call.shutdown()
        report = await call.running.save.wait("test")
    assert report.status == "saved" and len(model_server.requests) == 1
    next_plan = await snapshot_plan(pool, read=False, save=True)
    assert next_plan.save is False and next_plan.reason == "memory_off"


async def test_nothing_heard_saves_nothing(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Closed before the greeting made any sound: no extraction request at all."""
    plan = await snapshot_plan(pool, read=False, save=True)
    async with voice_call(memory, plan, llm_word_delay=0.5) as call:
        await call.shutdown()
        report = await call.running.save.wait("test")
    assert (report.status, report.reason) == ("skipped", "nothing_heard")
    assert model_server.requests == []


async def test_hang_up_mid_reply_saves_the_played_prefix(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    plan = await snapshot_plan(pool, read=False, save=True)
    sentence = "Once upon a time there was a lighthouse keeper named Ada."
    story = " ".join([sentence] * 4)
    model_server.answer([], "Story time.")
    async with voice_call(memory, plan, story) as call:
        await call.wait_turns(1)
        call.session.generate_reply(user_input="Tell me a story.")
        await call.wait_turns(2)
        first = len(sentence) * SECONDS_PER_CHAR  # 0.84 s of audio, of the story's 3.4 s
        speaker = call.io.speaker
        await wait_until(lambda: len(speaker.segments) == 1 and speaker.playing() > first + 0.1)
        await call.shutdown()  # the first sentence has finished playing
        await call.running.save.wait("test")
    sent = saved_transcript(model_server.requests[0])
    assert sent[:2] == [
        {"role": "assistant", "text": GREETING},
        {"role": "user", "text": "Tell me a story."},
    ]
    assert len(sent) == 3 and sent[2]["role"] == "assistant"
    assert 0 < len(sent[2]["text"]) < len(story) and story.startswith(sent[2]["text"].strip())
    heard = [{"role": m["role"], "text": m["content"]} for m in call.running.recorder.transcript]
    assert sent == heard
