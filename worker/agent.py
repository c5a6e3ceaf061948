"""The LiveKit worker: one job per call, dispatched explicitly by agent name.

`python -m worker.agent start|dev|console` runs the LiveKit CLI. The main process resolves the
database (starting the embedded one when `DATABASE_URL` is unset), applies migrations, offers
the catalog's identity keys and sweeps the journals of dead jobs (`worker.sweeping`); each job
process then serves one call. livekit's setup hook (`prepare_job_process`) routes our events
into livekit's log forwarding in every job process and opens its database connection before
any job (`callmemory.prewarm`), and the main process says which call a job
process was serving when it dies (`worker.job_watch`).
"""

from __future__ import annotations

import asyncio
import functools
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from livekit.agents import AgentServer, AgentSession, JobContext, JobProcess, cli

from callmemory import CallerMemory, environment
from callmemory.config import SHUTDOWN_PROCESS_TIMEOUT_MARGIN, long_op_limits
from callmemory.prewarm import prewarm
from infra.database_failure import DatabaseFailed
from infra.embedded import EmbeddedStartFailed
from infra.logs import configure_job_logging, scrub_livekit_content
from infra.long_ops import ThroughPooler
from infra.migrate import MigrationLockTimeout
from memory.config import ConfigError
from worker.catalog import load_catalog
from worker.config import VoiceModels, worker_config
from worker.greeter import Greeter
from worker.job_watch import watch_job_processes
from worker.ops_retention import RetentionConfig
from worker.session import ROOM_OPTIONS, build_session
from worker.startup import needs_preparation, prepare_main_process, served_agent
from worker.sweeping import SweeperTask, hold_sweeper, sweep_config

SAVE_TIMEOUT_FOR_HELP = 40.0  # help and download-files serve no call
PRELOAD_MODULES = ("worker.agent",)
"""Imported once in livekit's forkserver, so every job process starts with our modules loaded
(copy-on-write) instead of importing them itself when its job arrives: about 1 s of CPU per
job process on the development machine, which a burst of calls pays on every process it
starts (docs/performance.md, "A burst of calls")."""

SessionFactory = Callable[[VoiceModels], AgentSession[Any]]
"""Builds the call's session from the configured models (`worker.session.build_session`).

The one seam of the entrypoint: tests pass a factory with fake models and audio I/O, and
everything else (room, participants, job shutdown) runs through livekit's own job machinery.
"""


def prepare_job_process(proc: JobProcess) -> None:
    """livekit's setup hook, once in each job process before its first job: our events into
    livekit's forwarding handler, livekit's content fields blanked before they leave, and the
    process's database connection opened and checked (`callmemory.prewarm`). (The THREAD
    executor runs it in the main process, where logging is configured already.)"""
    configure_job_logging()
    scrub_livekit_content()
    prewarm(proc)


async def entrypoint(ctx: JobContext, sessions: SessionFactory = build_session) -> None:
    """An agent of `AGENTS` with caller memory attached, through the same API any agent uses."""
    settings = environment.read()  # the job's one read of its environment
    catalog = load_catalog(settings.agents)
    spec = catalog.get(ctx.job.agent_name or served_agent(catalog, settings.worker_agent))
    config = worker_config(settings)
    memory = CallerMemory(spec.name, spec.memory, config.call, consolidate=spec.consolidate)
    session, agent = sessions(config.models), Greeter(spec.instructions, spec.voice_tools)
    if await memory.attach(ctx, session, agent):
        await session.start(agent=agent, room=ctx.room, room_options=ROOM_OPTIONS)


def build_server(
    agent_name: str,
    save_timeout_seconds: float,
    sessions: SessionFactory = build_session,
    *,
    metrics_port: int | None = None,
    metrics_dir: str | None = None,
) -> AgentServer:
    """A server for one agent name; the job process outlives the save it waits for.

    `metrics_port`: livekit-agents' own Prometheus endpoint, with our call and memory metrics;
    job processes write them to `metrics_dir`, which the endpoint aggregates.
    """
    server = AgentServer(
        shutdown_process_timeout=save_timeout_seconds + SHUTDOWN_PROCESS_TIMEOUT_MARGIN,
        prometheus_port=metrics_port,
        prometheus_multiproc_dir=metrics_dir,
        setup_fnc=prepare_job_process,
        preload_modules=list(PRELOAD_MODULES),
    )
    server.rtc_session(functools.partial(entrypoint, sessions=sessions), agent_name=agent_name)
    return server


def main() -> None:
    cli.run_app(prepared_server(sys.argv[1:]))


def prepared_server(argv: list[str], sessions: SessionFactory = build_session) -> AgentServer:
    """The server for the CLI subcommand `argv[0]`, the main process prepared for it.

    A configuration error is printed (every problem named) and ends the process with code 2.
    """
    if not needs_preparation(argv):
        return build_server("support", SAVE_TIMEOUT_FOR_HELP, sessions)  # serves no call
    environment.load_env_local()
    try:
        main = asyncio.run(prepare_main_process(argv))
    except ConfigError as exc:
        print(environment.report(exc), file=sys.stderr)
        raise SystemExit(2) from None
    except (MigrationLockTimeout, ThroughPooler, DatabaseFailed, EmbeddedStartFailed) as exc:
        print(f"database error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    port = main.settings.worker_metrics_port
    metrics_dir = None if port is None else multiprocess_dir(main.settings.prometheus_multiproc_dir)
    call = main.config.call
    server = build_server(
        main.agent, call.save_timeout_seconds, sessions, metrics_port=port, metrics_dir=metrics_dir
    )
    # the journals of dead jobs, swept for the life of this process (`worker.sweeping`)
    # and the ops log's retention on its pool (`worker.ops_retention`), as the web process does
    retention = RetentionConfig(
        main.settings.memory_ops_retention_days, limits=long_op_limits(main.settings)
    )
    catalog = load_catalog(main.settings.agents)
    sweeper = SweeperTask(call, sweep_config(main.settings, call), catalog, retention)
    hold_sweeper(server, sweeper)
    watch_job_processes(server, sweeper.heard)  # `call.lost` counts what its journal held
    server.on("worker_started", scrub_livekit_content)  # livekit's handler exists by then
    return server


def multiprocess_dir(configured: str | None) -> str:
    """`PROMETHEUS_MULTIPROC_DIR`, else a per-process directory livekit empties at start."""
    return configured or tempfile.mkdtemp(prefix="caller-memory-metrics-")


if __name__ == "__main__":
    main()
