"""The retention task: one held task, off the request path, in every web process and in every
worker's main process (on its sweeper's pool, `worker.sweeping`).

Every `interval_seconds` it deletes the `memory.ops` events older than the window, in batches
(`memory.store.expire_ops`), the idempotency keys of adds over HTTP older than 24 hours
(`memory.store.expire_keys`), and each agent's records older than its own retention
(`records_pass`: call records, chat sessions, ops events, call journals; never a fact). Any
number of processes may run it at once, with no lock or leader: a batch skips the rows another
one holds, and deleting what is already gone is a no-op.
A failed pass is logged by type and tried again at the next interval; the task's own end (a
bug) is retrieved and logged (`worker.periodic`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import asyncpg
import structlog

from infra.long_ops import LongOpLimits
from memory.contract import MemoryFailure
from memory.store import (
    KEY_LIFE_SECONDS,
    bounded_agents,
    expire_keys,
    expire_ops,
    expire_records,
)
from worker.periodic import running_every

log = structlog.get_logger(__name__)

DAY_SECONDS = 86400.0
DEFAULT_INTERVAL_SECONDS = 600.0


@dataclass(frozen=True, slots=True)
class RetentionConfig:
    """`days`: events older than this are deleted (`MEMORY_OPS_RETENTION_DAYS`); `limits`:
    those of a long operation (`DATABASE_LONG_*`), which each batch of an agent's own
    retention carries."""

    days: float
    interval_seconds: float = DEFAULT_INTERVAL_SECONDS
    batch: int = 1000
    limits: LongOpLimits = field(default_factory=LongOpLimits)

    @property
    def window_seconds(self) -> float:
        return self.days * DAY_SECONDS


async def retention_pass(pool: asyncpg.Pool, config: RetentionConfig) -> int | None:
    """One pass; the number of events deleted, or None when it failed (logged by type). The
    idempotency keys of adds over HTTP past their 24 hours go in the same pass
    (`keys_pass`)."""
    try:
        deleted = await expire_ops(pool, config.window_seconds, batch=config.batch)
    except MemoryFailure as exc:
        log.warning("ops_retention.failed", error_code=exc.code)
        return None
    if deleted:
        log.info("ops_retention.expired", events=deleted, days=config.days)
    await keys_pass(pool, config)
    await records_pass(pool, config)
    return deleted


async def keys_pass(pool: asyncpg.Pool, config: RetentionConfig) -> int | None:
    """Delete the idempotency keys older than their life, in batches; how many, or None when
    it failed (logged by type; the keys are claimed again as new past their life anyway)."""
    try:
        deleted = await expire_keys(pool, KEY_LIFE_SECONDS, batch=config.batch)
    except MemoryFailure as exc:
        log.warning("idempotency_retention.failed", error_code=exc.code)
        return None
    if deleted:
        log.info("idempotency_retention.expired", keys=deleted)
    return deleted


async def records_pass(pool: asyncpg.Pool, config: RetentionConfig) -> dict[str, int] | None:
    """Each agent's records past its own retention, kind by kind, in batches; how many of
    each kind went (logged per agent, counts only), or None when it failed (logged by type;
    what is left goes at the next pass)."""
    removed: dict[str, int] = {}
    try:
        for agent_id, retention in await bounded_agents(pool):
            counts = {}
            for kind, days in retention.bounded():
                counts[kind] = await expire_records(
                    pool, agent_id, kind, days, batch=config.batch, limits=config.limits
                )
                removed[kind] = removed.get(kind, 0) + counts[kind]
            if any(counts.values()):
                log.info("retention.expired", agent_id=agent_id, **counts)
    except MemoryFailure as exc:
        log.warning("retention.failed", error_code=exc.code)
        return None
    return removed


@contextlib.asynccontextmanager
async def retention_running(pool: asyncpg.Pool, config: RetentionConfig) -> AsyncIterator[None]:
    """The task runs while the block does; it is cancelled and awaited at the block's end."""
    async with running_every(
        "ops-retention", config.interval_seconds, lambda: retention_pass(pool, config)
    ):
        yield
