"""The sweeper in the worker's main process: one task held for the process's lifetime.

`hold_sweeper` starts it when livekit's server has started (its `worker_started` event, on the
server's own loop). Every worker of a deployment runs one; the leases in Postgres make exactly
one act on each journal (`lifecycle.sweeper`). It uses its own small pool and memory, built
from the main process's settings (the pool opened first, retried each interval while the
database is away), and sweeps the journals of the catalog's agents. On the same pool it runs
the ops log's retention (`worker.ops_retention`), so a deployment of workers alone keeps the log
bounded; with web processes too, every one of them runs it: batches are idempotent and skip
the rows another holds, so no lock or leader is needed.
"""

from __future__ import annotations

import asyncio

import structlog
from livekit.agents import AgentServer

from callmemory import environment
from callmemory.config import CallConfig
from callmemory.runtime import Runtime, new_runtime
from infra.database import database_url
from lifecycle.closing import SETTLE_SECONDS
from lifecycle.metrics import count_sweep_failure
from lifecycle.sweeper import SweepConfig, Sweeper
from memory.contract import Unavailable
from memory.store import HeardTurns, heard_turns
from worker.catalog import Catalog
from worker.ops_retention import RetentionConfig, retention_running

log = structlog.get_logger(__name__)

LEASE_OVER_SAVE = 30.0
"""How much longer than one save's bound a sweeper's lease on a journal lasts."""


def sweep_config(settings: environment.Environment, call: CallConfig) -> SweepConfig:
    """The bounds from the settings; a sweep every heartbeat interval."""
    return SweepConfig(
        lost_after_seconds=settings.call_journal_lost_after_seconds,
        drop_after_seconds=settings.call_journal_drop_after_seconds,
        interval_seconds=settings.call_journal_heartbeat_seconds,
        lease_seconds=call.save_timeout_seconds + SETTLE_SECONDS + LEASE_OVER_SAVE,
    )


class SweeperTask:
    """The main process's sweeper task; its failure is retrieved and logged by type."""

    def __init__(
        self,
        config: CallConfig,
        sweep: SweepConfig,
        catalog: Catalog,
        retention: RetentionConfig | None = None,
    ) -> None:
        self._config = config
        self._sweep = sweep
        self._retention = retention
        self._agents = frozenset(agent.name for agent in catalog)
        self.task: asyncio.Task[None] | None = None
        self._runtime: Runtime | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.create_task(self._run(), name="journal-sweeper")
            self.task.add_done_callback(_retrieve_failure)

    async def _run(self) -> None:
        url = database_url(self._config.database_url, self._config.data_dir)
        runtime = new_runtime(self._config, url)
        try:
            await _connected(runtime, self._sweep.interval_seconds)
            self._runtime = runtime
            sweeper = Sweeper(runtime.pool, runtime.memory, self._agents.__contains__, self._sweep)
            if self._retention is None:
                await sweeper.run()
                return
            async with retention_running(runtime.pool, self._retention):  # as the web's
                await sweeper.run()
        finally:
            self._runtime = None
            await runtime.aclose()

    async def heard(self, job_id: str) -> HeardTurns | None:
        """What the journal of `job_id` holds, counted (`call.lost`); raises `Unavailable`
        while the sweeper's pool is not open."""
        runtime = self._runtime
        if runtime is None:
            raise Unavailable("the sweeper's pool is not open")
        return await heard_turns(runtime.pool, job_id)


async def _connected(runtime: Runtime, retry_seconds: float) -> None:
    """Open the sweeper's pool, retrying every `retry_seconds` while the database is away."""
    while True:
        try:
            await runtime.connect()
        except Exception as exc:  # not reachable yet: counted, tried again
            count_sweep_failure(type(exc).__name__)
            log.warning("journal.sweep_failed", error_type=type(exc).__name__)
            await asyncio.sleep(retry_seconds)
        else:
            return


_HELD: list[SweeperTask] = []
"""Sweepers held for the life of the process (the server drops its listener once it fired)."""


def hold_sweeper(server: AgentServer, task: SweeperTask) -> SweeperTask:
    """Start `task` once the server runs, held for the life of this process."""
    _HELD.append(task)
    server.once("worker_started", task.start)
    return task


def _retrieve_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("journal.sweeper_crashed", error_type=type(error).__name__)
