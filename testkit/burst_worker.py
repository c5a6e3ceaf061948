"""The worker with real job processes, launching bursts of scripted calls when told to.

    python -m testkit.burst_worker --hang-up-dir DIR start    (then, on stdin: `burst TAG COUNT`)

It is `testkit.process_worker` (so `python -m worker.agent start`'s main process, server and
logging) with livekit's own process pool left as in production (`num_idle_processes` at its
default, warm processes ready before the first call); each stdin line `burst TAG COUNT` launches
COUNT fake jobs at once (rooms `TAG-0` ... `TAG-{COUNT-1}`) on livekit's PROCESS executor, as
LiveKit's dispatch would, and logs `BURST_DISPATCHED` with the moment it did. Each job plays
`testkit.scripted_call.ScriptedCall` with a caller numbered after its room (`numbered_caller`):
greeting, then the caller stays on the line until a file named TAG appears in DIR (so a burst's
calls are all live at once, as long calls would be), hangs up 0.3 s later, the room closes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time

import structlog
from livekit.agents import AgentServer, JobExecutorType, cli

from testkit.process_worker import fake_job
from testkit.scripted_call import ScriptedCall
from worker.agent import prepared_server

log = structlog.get_logger(__name__)

BURST_DISPATCHED = "testkit.burst_dispatched"
"""Logged in the worker's main process once a burst's jobs are handed to livekit's pool; its
`at` is `time.monotonic()` just before (comparable with a job's `first_frame_at`)."""
READY = "testkit.burst_worker_ready"

_launching: set[asyncio.Task[None]] = set()


def launch_burst(server: AgentServer, tag: str, count: int) -> None:
    """COUNT jobs handed to livekit's process pool in one go, as COUNT dispatches would be."""
    at = time.monotonic()
    for index in range(count):
        info = fake_job(server, f"{tag}-{index}", f"{tag}-job-{index}")
        task = asyncio.create_task(server._proc_pool.launch_job(info))
        _launching.add(task)
        task.add_done_callback(_launching.discard)
    log.info(BURST_DISPATCHED, tag=tag, count=count, at=at)


def read_commands(server: AgentServer, loop: asyncio.AbstractEventLoop) -> None:
    """stdin, line by line, in a thread: each `burst TAG COUNT` runs on the worker's loop."""
    for line in sys.stdin:
        match line.split():
            case ["burst", tag, count]:
                loop.call_soon_threadsafe(launch_burst, server, tag, int(count))
            case _:
                log.warning("testkit.burst_worker_unknown_command")


def main() -> None:
    parser = argparse.ArgumentParser(prog="testkit.burst_worker")
    parser.add_argument("--hang-up-dir", required=True)
    ours, livekit_args = parser.parse_known_args()
    script = ScriptedCall(numbered=True, hang_up_when=ours.hang_up_dir)
    server = prepared_server(livekit_args, sessions=script)
    # no LiveKit server: keep retrying the registration for as long as the benchmark runs
    server.update_options(job_executor_type=JobExecutorType.PROCESS, max_retry=1_000_000)
    server._port = 0  # livekit's health endpoint on a free port (`start` would take 8081)

    def started() -> None:
        loop = asyncio.get_running_loop()
        threading.Thread(target=read_commands, args=(server, loop), daemon=True).start()
        log.info(READY)

    server.once("worker_started", started)
    sys.argv = [sys.argv[0], *livekit_args]
    cli.run_app(server)


if __name__ == "__main__":
    main()
