"""What one job process needs for memory on its call: configuration, a small pool, memory.

Each LiveKit job runs in its own process, so each opens its own pool, sized for one call
(see docs/deployment.md for connections per N concurrent calls). The database URL was resolved
once by the worker's main process and reached this process through `DATABASE_URL`. The runtime
is built without touching the database. A job process prewarmed by livekit already holds it
connected and checked, its statements prepared (`callmemory.prewarm`); otherwise the pool
connects inside the call's pre-greeting deadline (`lifecycle.opening`). Closing it is bounded.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from dataclasses import dataclass

import asyncpg

from callmemory.config import CallConfig, load_call_config
from infra import tracing
from infra.database import close_pool, database_url, new_pool
from memory.api import Memory, open_memory
from memory.contract import MemoryFailure, Unavailable
from memory.settings import CallSettings, CodeDefaults
from memory.store import MemoryStore, Opened, open_call, translated
from memory.store._opening import SettingsSeen

JOB_POOL_MIN = 1
JOB_POOL_MAX = 2
CLOSE_SECONDS = 2.0  # graceful pool close at the end of a job; then its connections are cut
INDEXING_DRAIN_SECONDS = 5.0  # the save's fact vectors, at most this long before the pool goes


@dataclass(frozen=True, slots=True)
class Runtime:
    config: CallConfig
    pool: asyncpg.Pool
    store: MemoryStore
    memory: Memory

    async def connect(self) -> None:
        """A live connection (the first step before the greeting): the pool's opened now, or
        the warm one checked without a round trip and replaced when it died meanwhile."""
        async with translated(Unavailable, "pool connect"):
            await self.pool
            async with self.pool.acquire():  # asyncpg reconnects a connection found closed
                pass

    async def warm(self) -> None:
        """Connect, then run the opening statement once (`memory.store.open_call`): it checks
        the schema and capability and leaves the statement prepared, so a call's opening is one
        round trip (`callmemory.prewarm`). Raises `MemoryFailure` when either fails."""
        await self.connect()
        opened = await open_call(self.pool, "", CodeDefaults(), {}, 0)
        if opened.capability_error is not None:
            raise Unavailable(f"warm-up: {opened.capability_error}")
        self.store.mark_capable()

    async def prepare_recall(self) -> None:
        """Recall once for nobody: its statement is then prepared on the warm connection."""
        await self.store.recall("", "", 0)

    async def open_call(
        self,
        agent_id: str,
        code: CodeDefaults,
        offered: Mapping[str, str],
        calls: int,
        on_settings: SettingsSeen,
        *,
        reader: str | None = None,
    ) -> Opened:
        """Settings, identity and recall in one statement (`memory.store.open_call`), the
        read's record (by `reader`) written by the same statement."""
        started = time.time_ns()
        opened = await open_call(
            self.pool, agent_id, code, offered, calls, on_settings=on_settings, reader=reader
        )
        if opened.capability_error is None:
            self.store.mark_capable()
        if (found := opened.recall) is not None:  # the statement recalled: recall's span
            tracing.record(
                "memory.recall", agent_id, started, facts=len(found.facts), calls=len(found.calls)
            )
        return opened

    async def call_settings(self, agent_id: str, code: CodeDefaults) -> CallSettings:
        """The call's settings snapshot; the same statement checks the capability, so recall
        before the greeting is one query (a failed check shows, as a code, at recall)."""
        return await self.store.call_settings(agent_id, code)

    async def check_capability(self) -> None:
        # outside a call (`open_runtime`); a call's settings read checks it in the same statement
        # (`call_settings`). A failure shows again, as a code, at recall
        with contextlib.suppress(MemoryFailure):
            await self.store.ensure_capability()

    async def aclose(self) -> None:
        await self.memory.listeners.drain()  # the last events, before the pool goes
        await self.memory.aclose(grace_seconds=INDEXING_DRAIN_SECONDS)
        await close_pool(self.pool, CLOSE_SECONDS)


def new_runtime(config: CallConfig, url: str, *, warm: asyncpg.Pool | None = None) -> Runtime:
    """The job's runtime with its pool to `url` not yet connected (no database work here);
    `warm`: a pool connected and checked while the process was prewarmed (`callmemory.prewarm`).
    """
    if warm is not None:
        store = MemoryStore(warm)
        store.mark_capable()  # checked by the warm-up
        return Runtime(config, warm, store, open_memory(store, config.memory))
    pool = new_pool(
        url,
        min_size=JOB_POOL_MIN,
        max_size=JOB_POOL_MAX,
        timeouts=config.database,
        idle_seconds=0,  # a prewarmed process keeps its connection while it waits for a job
    )
    store = MemoryStore(pool)
    return Runtime(
        config=config,
        pool=pool,
        store=store,
        memory=open_memory(store, config.memory),
    )


async def open_runtime() -> Runtime:
    """A runtime from the environment, connected and checked now, without a deadline."""
    config = load_call_config()
    runtime = new_runtime(config, database_url(config.database_url, config.data_dir))
    await runtime.connect()
    await runtime.check_capability()
    return runtime
