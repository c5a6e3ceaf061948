"""What one job process needs to serve a call: configuration, a small pool, memory, catalog.

Each LiveKit job runs in its own process, so each opens its own pool, sized for one call
(see the README for connections per N concurrent calls). The database URL was resolved once by
the worker's main process and reached this process through `DATABASE_URL`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import asyncpg

from memory.api import Memory, open_memory
from memory.database import create_pool, database_url
from memory.errors import MemoryFailure
from memory.store import MemoryStore
from worker.catalog import Catalog, default_catalog
from worker.config import WorkerConfig, load_worker_config

JOB_POOL_MIN = 1
JOB_POOL_MAX = 2


@dataclass(frozen=True, slots=True)
class Runtime:
    config: WorkerConfig
    pool: asyncpg.Pool
    memory: Memory
    catalog: Catalog

    async def aclose(self) -> None:
        await self.pool.close()


async def open_runtime() -> Runtime:
    config = load_worker_config()
    pool = await create_pool(database_url(), min_size=JOB_POOL_MIN, max_size=JOB_POOL_MAX)
    store = MemoryStore(pool)
    # each job is a new process: check the capability now, while the caller is still joining,
    # so recall before the greeting is one query; a failure shows again (as a code) at recall
    with contextlib.suppress(MemoryFailure):
        await store.ensure_capability()
    return Runtime(
        config=config,
        pool=pool,
        memory=open_memory(store, config.memory),
        catalog=default_catalog(),
    )
