"""In the worker's main process: which call a job process was serving when it died.

A job process that is killed (SIGKILL, the OOM killer, livekit's own memory-limit or
unresponsive-process kill, a shutdown that outlived `shutdown_process_timeout`) runs none of our
code: no close, no save, no event of its own. livekit's main process sees the process exit and
logs `process exited with non-zero exit code` with the job id and room; we add one call event,
`call.lost`, with the room, the job id, the process id, its exit code, whether livekit killed it,
and the last call event that process forwarded (`call.memory_plan`: the call was under way and
nothing was saved; `call.ended`: it was saving; `call.save_finished`: the save had finished),
and what the call's journal holds for that job (`lifecycle.journal`), counted, never its text:
`caller_turns` and `agent_turns`, with `journal` saying where they come from (`held`: read
from the journal; `none`: the job has no journal, because its save ended it or it never
opened; `unreadable`: the read failed or took more than `LOOKUP_SECONDS`; `off`: no journal is
kept). The counts are what reached the journal: a batch not yet written died with the process.

livekit's kill (shutdown timeout, memory limit, unresponsive process) sends SIGUSR1 first and
SIGKILL half a second later, and marks the process killed only then: a job process that died
of the SIGUSR1 (it installs no handler) was killed by livekit too (`killed_by_livekit`).

The main process learns of the exit from livekit's process pool (`process_closed`), which
livekit-agents 1.8.9 creates when the worker starts and keeps as `AgentServer._proc_pool`.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import structlog
from livekit.agents import AgentServer

from memory.store import HeardTurns

log = structlog.get_logger(__name__)

LOST = "call.lost"
LOOKUP_SECONDS = 2.0
"""The most `call.lost` waits for the journal's counts."""

HeardLookup = Callable[[str], Awaitable[HeardTurns | None]]
"""The journal's counts for a job id (`worker.sweeping.SweeperTask.heard`)."""

_reporting: set[asyncio.Task[None]] = set()


class LastCallEvents(logging.Handler):
    """Remembers, per job, the last `call.*` event that reached the main process."""

    def __init__(self) -> None:
        super().__init__()
        self._last: dict[str, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        job_id, event = getattr(record, "job_id", None), record.msg
        if isinstance(job_id, str) and is_call_event(event):
            self._last[job_id] = event

    def pop(self, job_id: str) -> str | None:
        return self._last.pop(job_id, None)


class JobExecutor(Protocol):
    """What the pool's executors tell about their process (livekit's `JobExecutor`)."""

    @property
    def running_job(self) -> Any: ...


def is_call_event(event: object) -> bool:
    """One of the call's own events (never ours about a lost one)."""
    return isinstance(event, str) and event.startswith("call.") and event != LOST


def lost_call(exit_code: int | None) -> bool:
    """A job process that did not exit cleanly took its call with it (None: no process)."""
    return exit_code is not None and exit_code != 0


def killed_by_livekit(killed: bool, exit_code: int | None) -> bool:
    """livekit's kill: marked killed, or dead of the SIGUSR1 that starts livekit's kill."""
    return killed or exit_code == -signal.SIGUSR1


def heard_fields(found: HeardTurns | None, journal: str) -> dict[str, Any]:
    """`call.lost`'s counts of what the journal held (None when not `held`)."""
    if found is None:
        return {"journal": journal, "caller_turns": None, "agent_turns": None}
    return {"journal": "held", "caller_turns": found.caller, "agent_turns": found.agent}


def report_exit(proc: JobExecutor, last: LastCallEvents, heard: HeardLookup | None = None) -> None:
    """On a job process's exit: `call.lost` if it ended badly; forget its events either way.

    `heard`: the journal's counts for the job, read in a task held here (`LOOKUP_SECONDS`)."""
    running = proc.running_job
    if running is None:
        return
    job = running.job
    last_event = last.pop(job.id)
    exit_code = getattr(proc, "exitcode", None)  # the THREAD executor has no process
    if not lost_call(exit_code):
        return
    fields = {
        "room": job.room.name,
        "job_id": job.id,
        "job_pid": getattr(proc, "pid", None),
        "exit_code": exit_code,
        "killed_by_worker": killed_by_livekit(bool(getattr(proc, "killed", False)), exit_code),
        "last_event": last_event,
    }
    if heard is None:
        log.error(LOST, **fields, **heard_fields(None, "off"))
        return
    task = asyncio.create_task(_report_with_heard(fields, heard))
    _reporting.add(task)
    task.add_done_callback(_reported)


async def _report_with_heard(fields: dict[str, Any], heard: HeardLookup) -> None:
    try:
        async with asyncio.timeout(LOOKUP_SECONDS):
            found = await heard(fields["job_id"])
    except Exception as exc:  # the call.lost line goes out regardless
        log.error(LOST, **fields, **heard_fields(None, "unreadable"), error_type=type(exc).__name__)
        return
    log.error(LOST, **fields, **heard_fields(found, "none"))


def _reported(task: asyncio.Task[None]) -> None:
    _reporting.discard(task)
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("call.lost_report_failed", error_type=type(error).__name__)


def watch_job_processes(server: AgentServer, heard: HeardLookup | None = None) -> LastCallEvents:
    """Report lost calls of `server`'s job processes once it runs (the main process only);
    `heard`: where `call.lost` reads the journal's counts (None: no journal is kept)."""
    last = LastCallEvents()
    logging.getLogger().addHandler(last)

    def on_started() -> None:
        pool = server._proc_pool  # created by `AgentServer.run`, before `worker_started`
        pool.on("process_closed", lambda proc: report_exit(proc, last, heard))

    server.on("worker_started", on_started)
    return last
