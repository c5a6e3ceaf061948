"""The LiveKit worker: one job per call, dispatched explicitly by agent name.

`python -m worker.agent start|dev|console` runs the LiveKit CLI. The main process resolves the
database (starting the embedded one when `DATABASE_URL` is unset), applies migrations and
offers the catalog's identity keys; each job process then serves one call.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import structlog
from livekit.agents import AgentServer, AgentSession, JobContext, cli

from lifecycle.call import CallSetup, start_call
from lifecycle.identity import parse_job_metadata, resolve_identity
from lifecycle.opening import Opening, identity_key
from lifecycle.plan import MemoryPlan
from memory.config import ConfigError
from worker.catalog import default_catalog
from worker.config import VoiceModels
from worker.line import connect_caller
from worker.runtime import new_runtime
from worker.session import ROOM_OPTIONS, build_session
from worker.startup import needs_preparation, prepare_main_process, served_agent

log = structlog.get_logger(__name__)

SHUTDOWN_PROCESS_TIMEOUT_MARGIN = 15.0
SAVE_TIMEOUT_FOR_HELP = 40.0  # help and download-files serve no call

SessionFactory = Callable[[VoiceModels], AgentSession[Any]]
"""Builds the call's session from the configured models (`worker.session.build_session`).

The one seam of the entrypoint: tests pass a factory with fake models and audio I/O, and
everything else (room, participants, job shutdown) runs through livekit's own job machinery.
"""


async def entrypoint(ctx: JobContext, sessions: SessionFactory = build_session) -> None:
    # every event of this call (call.*, memory.*) carries the room and job, never a number
    structlog.contextvars.bind_contextvars(room=ctx.job.room.name, job_id=ctx.job.id)
    runtime = new_runtime()
    spec = runtime.catalog.get(ctx.job.agent_name or served_agent(runtime.catalog))
    started_at = datetime.now(UTC)
    opening = Opening(
        runtime, spec.name, spec.memory, budget_seconds=runtime.config.recall_budget_seconds
    )
    metadata = parse_job_metadata(ctx.job.metadata)
    await ctx.connect()
    if (caller := await connect_caller(ctx)) is None:
        opening.abandon()
        await runtime.aclose()  # an outbound dial failed: nothing was heard, nothing is saved
        return
    opened = await opening.on_the_line(
        lambda s: resolve_identity(identity_key(s), caller, metadata)
    )
    plan = opened.plan
    report_plan(plan)
    session = sessions(runtime.config.models)
    setup = CallSetup(
        plan=plan,
        instructions=spec.instructions,
        started_at=started_at,
        run_id=ctx.job.id,
        recall_deadline=opened.deadline,
        save_timeout_seconds=runtime.config.save_timeout_seconds,
    )
    await start_call(
        session,
        runtime.memory,
        setup,
        register_shutdown=ctx.add_shutdown_callback,
        start=lambda agent: session.start(agent=agent, room=ctx.room, room_options=ROOM_OPTIONS),
        room=ctx.room,
        after_save=runtime.aclose,
    )


def report_plan(plan: MemoryPlan) -> None:
    """One event per call saying whether memory is used, and why not (a code, never a value)."""
    log.info(
        "call.memory_plan",
        agent_id=plan.agent_id,
        read=plan.read,
        save=plan.save,
        active=plan.active,
        reason=plan.reason,
    )


def build_server(
    agent_name: str, save_timeout_seconds: float, sessions: SessionFactory = build_session
) -> AgentServer:
    """A server for one agent name; the job process outlives the save it waits for."""
    server = AgentServer(
        shutdown_process_timeout=save_timeout_seconds + SHUTDOWN_PROCESS_TIMEOUT_MARGIN,
    )
    server.rtc_session(functools.partial(entrypoint, sessions=sessions), agent_name=agent_name)
    return server


def main() -> None:
    if not needs_preparation(sys.argv[1:]):
        cli.run_app(build_server(next(iter(default_catalog())).name, SAVE_TIMEOUT_FOR_HELP))
        return
    try:
        config, agent_name = asyncio.run(prepare_main_process(sys.argv[1:]))
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    cli.run_app(build_server(agent_name, config.save_timeout_seconds))


if __name__ == "__main__":
    main()
