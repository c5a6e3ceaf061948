"""The agent's time zone travels from its settings, through the call's snapshot, into the one
extraction request of the save, which dates the conversation by the call's start."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import asyncpg

from memory.api import Memory
from memory.settings import Overrides, SettingsUpdate
from memory.store._settings import save_settings
from testkit.call_harness import AGENT, snapshot_plan, voice_call
from testkit.model_server import ModelServer
from tests.memory.test_extraction_dates import data_of


async def test_the_save_dates_the_call_in_the_snapshot_time_zone(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    zone = SettingsUpdate(overrides=Overrides(time_zone="America/Sao_Paulo"), identity_key=None)
    await save_settings(pool, AGENT, zone, "tester")
    plan = await snapshot_plan(pool, read=False, save=True)
    assert plan.time_zone == "America/Sao_Paulo"
    model_server.answer([], "A short call.")
    async with voice_call(memory, plan) as call:
        await call.wait_turns(1)
        await call.shutdown()
        report = await call.running.save.wait("test")
    assert report.status == "saved" and len(model_server.requests) == 1
    conversation = data_of(model_server.requests[0]["messages"])["conversation"]
    started = await pool.fetchval("select started_at from stackbone_platform.memory_calls")
    assert conversation["time_zone"] == "America/Sao_Paulo"
    assert datetime.fromisoformat(conversation["started_at_utc"]) == started.replace(microsecond=0)
    local = datetime.fromisoformat(conversation["started_at_local"])
    assert local == started.replace(microsecond=0)
    assert local.utcoffset() == started.astimezone(ZoneInfo("America/Sao_Paulo")).utcoffset()


async def test_without_a_time_zone_the_save_sends_none(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    plan = await snapshot_plan(pool, read=False, save=True)
    assert plan.time_zone is None
    model_server.answer([], "A short call.")
    async with voice_call(memory, plan) as call:
        await call.wait_turns(1)
        await call.shutdown()
        await call.running.save.wait("test")
    conversation = data_of(model_server.requests[0]["messages"])["conversation"]
    assert (conversation["time_zone"], conversation["started_at_local"]) == (None, None)
