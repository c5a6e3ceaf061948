"""In the worker's main process: which call a job process was serving when it died.

A job process that is killed (SIGKILL, the OOM killer, livekit's own memory-limit or
unresponsive-process kill, a shutdown that outlived `shutdown_process_timeout`) runs none of our
code: no close, no save, no event of its own. livekit's main process sees the process exit and
logs `process exited with non-zero exit code` with the job id and room; we add one call event,
`call.lost`, with the room, the job id, the process id, its exit code, whether livekit killed it,
and the last call event that process forwarded (`call.memory_plan`: the call was under way and
nothing was saved; `call.ended`: it was saving; `call.save_finished`: the save had finished).
What the caller had heard (turn counts) died with the process: knowing it needs the call's
journal, written as the call goes (issue 18).

The main process learns of the exit from livekit's process pool (`process_closed`), which
livekit-agents 1.8.9 creates when the worker starts and keeps as `AgentServer._proc_pool`.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import structlog
from livekit.agents import AgentServer

log = structlog.get_logger(__name__)

LOST = "call.lost"


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


def report_exit(proc: JobExecutor, last: LastCallEvents) -> None:
    """On a job process's exit: `call.lost` if it ended badly; forget its events either way."""
    running = proc.running_job
    if running is None:
        return
    job = running.job
    last_event = last.pop(job.id)
    exit_code = getattr(proc, "exitcode", None)  # the THREAD executor has no process
    if not lost_call(exit_code):
        return
    log.error(
        LOST,
        room=job.room.name,
        job_id=job.id,
        job_pid=getattr(proc, "pid", None),
        exit_code=exit_code,
        killed_by_worker=bool(getattr(proc, "killed", False)),
        last_event=last_event,
    )


def watch_job_processes(server: AgentServer) -> LastCallEvents:
    """Report lost calls of `server`'s job processes once it runs (the main process only)."""
    last = LastCallEvents()
    logging.getLogger().addHandler(last)

    def on_started() -> None:
        pool = server._proc_pool  # created by `AgentServer.run`, before `worker_started`
        pool.on("process_closed", lambda proc: report_exit(proc, last))

    server.on("worker_started", on_started)
    return last
