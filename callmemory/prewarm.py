"""The job process's database connection, opened and checked while livekit prewarms it.

livekit starts job processes ahead of the jobs (its idle processes) and runs the server's setup
function (`setup_fnc`) in each before it is offered a job. `prewarm` runs there: it opens the
process's pool, checks the schema and capability and prepares the statements a call's opening
runs (`Runtime.warm`), so a job taken by an idle process starts with a live connection and
sends its first statement at once, one round trip (docs/performance.md, "A burst of calls").

livekit calls the setup function before the process's event loop exists, and an asyncpg
connection belongs to the loop it was opened on. So `prewarm` creates that loop itself, opens
the pool on it, and hands the same loop to livekit when its job process asks asyncio for a new
one (a one-shot event loop policy, restored at once). A job whose running loop is not that one
(another runner, the THREAD executor, which runs the setup in the main process and is skipped
here) discards the warm pool and connects inside its budget as before. A failed warm-up is
logged and never fails the process: the job then connects on its own. The warm connection
lives and dies with the process, as a job's own pool does: a killed job leaves behind what it
left before.

    server = AgentServer(setup_fnc=callmemory.prewarm)   # or call it from your own setup
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import asyncpg
import structlog

from callmemory.config import CallConfig, load_call_config
from infra.database import PoolTimeouts, close_pool
from memory.config import ConfigError

if TYPE_CHECKING:  # livekit, the call's runtime and the store load with a job, not the CLI
    from livekit.agents import JobProcess

    from callmemory.runtime import Runtime

log = structlog.get_logger(__name__)

WARM_KEY = "callmemory.warm_runtime"
PREWARMED = "process.prewarmed"
"""Logged once the process holds its checked connection (a benchmark waits for one idle)."""
WARM_SECONDS = 5.0
"""How long the warm-up may take: inside livekit's `initialize_process_timeout` (10 s)."""


@dataclass(frozen=True, slots=True)
class WarmPool:
    """A pool connected and checked during the setup, on the loop the job will run on."""

    loop: asyncio.AbstractEventLoop
    pool: asyncpg.Pool
    url: str
    timeouts: PoolTimeouts


class _HandOver(asyncio.DefaultEventLoopPolicy):
    """Gives `loop` to the next `asyncio.new_event_loop()` call, then steps aside."""

    def __init__(self, loop: asyncio.AbstractEventLoop, previous: asyncio.AbstractEventLoopPolicy):
        super().__init__()
        self._loop, self._previous = loop, previous

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        asyncio.set_event_loop_policy(self._previous)
        return self._loop


def prewarm(proc: JobProcess) -> None:
    """livekit's setup function: the process's pool connected and checked before any job."""
    from livekit.agents import JobExecutorType  # noqa: PLC0415  (livekit runs this: loaded)

    from callmemory.process import job_database_url  # noqa: PLC0415  (calls only, as below)
    from callmemory.runtime import CLOSE_SECONDS, new_runtime  # noqa: PLC0415
    from memory.contract import MemoryFailure  # noqa: PLC0415
    from memory.store import DB_ERRORS  # noqa: PLC0415

    if proc.executor_type != JobExecutorType.PROCESS:
        return
    try:
        config = load_call_config()
        url = job_database_url(config)
    except ConfigError:
        return  # the job names what is missing
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # asyncpg's pool binds to the current loop when built
    runtime = new_runtime(config, url)
    try:
        loop.run_until_complete(asyncio.wait_for(runtime.warm(), WARM_SECONDS))
    except Exception as exc:  # a failed warm-up never fails the process
        code = exc.code if isinstance(exc, MemoryFailure) else type(exc).__name__
        log.warning("process.prewarm_failed", error_code=code)
        with contextlib.suppress(*DB_ERRORS):
            loop.run_until_complete(close_pool(runtime.pool, CLOSE_SECONDS))
        asyncio.set_event_loop(None)
        loop.close()
        return
    proc.userdata[WARM_KEY] = WarmPool(loop, runtime.pool, url, config.database)
    log.info(PREWARMED)
    asyncio.set_event_loop_policy(_HandOver(loop, asyncio.get_event_loop_policy()))


def job_runtime(proc: JobProcess, config: CallConfig) -> Runtime:
    """The job's runtime: on the process's warm pool (taken once) when it fits, else cold."""
    from callmemory.process import job_database_url  # noqa: PLC0415  (calls only: not the CLI's)
    from callmemory.runtime import new_runtime  # noqa: PLC0415

    url = job_database_url(config)
    warm = proc.userdata.pop(WARM_KEY, None)
    if not isinstance(warm, WarmPool):
        return new_runtime(config, url)
    if warm.loop is not asyncio.get_running_loop() or (warm.url, warm.timeouts) != (
        url,
        config.database,
    ):
        log.info("process.prewarm_unused")  # its connection closes with the process
        return new_runtime(config, url)
    return new_runtime(config, url, warm=warm.pool)
