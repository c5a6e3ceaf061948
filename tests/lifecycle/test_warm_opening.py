"""A job's pool warmed as livekit's prewarm warms it (`Runtime.warm`): the call's opening is one
round trip once the caller is on the line, and a warm connection that died meanwhile is
replaced inside the budget. Round trips are counted by the delaying proxy (`testkit`)."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import asyncpg
import structlog.testing

from infra.database import PoolTimeouts
from memory.api import Memory
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from memory.store._settings import offer_code_bindings
from sip.caller import Caller
from testkit.call_harness import AGENT, job_runtime, opening_call, seed
from testkit.delay_proxy import DelayProxy
from testkit.model_server import ModelServer

REMEMBERED = "Has a dog named Rex."
CODE = CodeDefaults(read=True, save=True, identity_key="phoneNumber")
OFF = CodeDefaults(read=False, save=True, identity_key="phoneNumber")


async def _turns_to_greeting(
    url: str,
    config: MemoryConfig,
    limits: PoolTimeouts,
    code: CodeDefaults,
    caller: Caller | None = None,
) -> tuple[int, str]:
    proxy = DelayProxy(url, rtt_ms=2)
    await proxy.start()
    runtime = job_runtime(proxy.url_for(urlsplit(url).path.lstrip("/")), config, limits)
    try:
        await runtime.warm()
        on_the_line = time.monotonic()
        async with opening_call(runtime, code, budget=5.0, caller=caller) as call:
            await call.wait_turns(1)
            assert call.io.speaker.first_frame_at is not None
            turns = proxy.turns_between(on_the_line, call.io.speaker.first_frame_at)
            said = call.first_llm_text()
    finally:
        await runtime.aclose()
        await proxy.stop()
    return turns, said


async def test_a_warm_pool_opens_a_call_in_one_round_trip_read_on_or_off(
    *,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
    memory_config: MemoryConfig,
    pool_timeouts: PoolTimeouts,
) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await seed(memory, model_server, REMEMBERED)
    on, said_on = await _turns_to_greeting(database_url, memory_config, pool_timeouts, CODE)
    off, said_off = await _turns_to_greeting(database_url, memory_config, pool_timeouts, OFF)
    # behind a transaction-mode pooler asyncpg prepares nothing by name: parse, then execute
    one = 2 if pool_timeouts.pooler == "transaction" else 1
    assert (on, off) == (one, one)
    assert REMEMBERED in said_on and REMEMBERED not in said_off  # save-only never shows facts


async def test_a_withheld_number_recalls_nobody_in_the_one_statement(
    *,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
    memory_config: MemoryConfig,
    pool_timeouts: PoolTimeouts,
) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await seed(memory, model_server, REMEMBERED)
    withheld = Caller(is_sip=True, phone_number=None)
    assert withheld.withheld
    with structlog.testing.capture_logs() as logs:
        _, said = await _turns_to_greeting(
            database_url, memory_config, pool_timeouts, CODE, withheld
        )
    assert REMEMBERED not in said  # nobody to recall: no identity is offered
    assert [e for e in logs if e["event"] == "call.memory_not_recalled"] == []


async def test_a_warm_connection_that_died_is_replaced_inside_the_budget(
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    direct_database_url: str,
    memory_config: MemoryConfig,
) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await seed(memory, model_server, REMEMBERED)
    runtime = job_runtime(direct_database_url, memory_config, PoolTimeouts())
    try:
        await runtime.warm()
        async with runtime.pool.acquire() as conn:
            backend = conn.get_server_pid()
        killer = await asyncpg.connect(direct_database_url)
        try:
            assert await killer.fetchval("select pg_terminate_backend($1, 5000)", backend)
            gone = await killer.fetchval(
                "select count(*) = 0 from pg_stat_activity where pid = $1", backend
            )
        finally:
            await killer.close()
        assert gone  # the warm connection's server process is gone before the call opens
        with structlog.testing.capture_logs() as logs:
            async with opening_call(runtime, CODE, budget=5.0) as call:
                await call.wait_turns(1)
    finally:
        await runtime.aclose()
    assert REMEMBERED in call.first_llm_text()
    assert [e for e in logs if e["event"] == "call.memory_not_recalled"] == []
