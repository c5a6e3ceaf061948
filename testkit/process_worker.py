"""The worker with real job processes and one scripted call, for tests that read its output.

    python -m testkit.process_worker [--hold] [--room NAME] [--job ID] [--say TEXT]...
        [--stuck-shutdown] start|dev

It is `python -m worker.agent start|dev` (the same main-process preparation, server and
livekit CLI, so the same logging set-up), with two differences: the session factory is
`testkit.scripted_call.ScriptedCall`, and once the worker runs it launches one fake job (room
`--room`, job id `--job`) on livekit's PROCESS executor, as LiveKit's dispatch would. The job
runs in a real job process started by livekit's forkserver, on livekit's mock room.
`--hold`: the caller never hangs up (for tests that kill the job process or stop the worker).
`--say TEXT`: a caller turn after the greeting (repeatable); `--stuck-shutdown`: the job never
ends its shutdown (`testkit.scripted_call.ScriptedCall`).

The worker still registers with `LIVEKIT_URL` as `start` and `dev` always do; with no LiveKit
server there, livekit logs its connection retries and the fake job runs regardless.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from livekit.agents import AgentServer, JobExecutorType, cli
from livekit.agents.job import JobAcceptArguments, RunningJobInfo
from livekit.protocol import agent, models

from testkit.scripted_call import ScriptedCall
from worker.agent import prepared_server

_launching: set[asyncio.Task[None]] = set()


def fake_job(server: AgentServer, room: str, job_id: str) -> RunningJobInfo:
    """The job LiveKit would assign for `room`, marked fake (livekit's mock room, no server)."""
    job = agent.Job(
        id=job_id,
        room=models.Room(sid=f"RM_{room}", name=room),
        type=agent.JobType.JT_ROOM,
    )
    accept = JobAcceptArguments(identity=f"agent-{job_id}", name="", metadata="")
    return RunningJobInfo(
        worker_id=server.id, accept_arguments=accept, job=job, url="", token="", fake_job=True
    )


def launch_on_start(server: AgentServer, info: RunningJobInfo) -> None:
    def launch() -> None:
        task = asyncio.create_task(server._proc_pool.launch_job(info))
        _launching.add(task)
        task.add_done_callback(_launching.discard)

    server.once("worker_started", launch)


def main() -> None:
    parser = argparse.ArgumentParser(prog="testkit.process_worker")
    parser.add_argument("--hold", action="store_true")
    parser.add_argument("--room", default="call-room")
    parser.add_argument("--job", default="job-process-1")
    parser.add_argument("--say", action="append", default=[])
    parser.add_argument("--stuck-shutdown", action="store_true")
    ours, livekit_args = parser.parse_known_args()
    sys.argv = [sys.argv[0], *livekit_args]
    script = ScriptedCall(
        hang_up_after=None if ours.hold else 0.3,
        says=tuple(ours.say),
        stuck_shutdown=ours.stuck_shutdown,
    )
    server = prepared_server(livekit_args, sessions=script)
    # no warm processes (the machine is small): the job's process starts when the job comes
    server.update_options(job_executor_type=JobExecutorType.PROCESS, num_idle_processes=0)
    server._port = 0  # livekit's health endpoint on a free port (`start` would take 8081)
    launch_on_start(server, fake_job(server, ours.room, ours.job))
    cli.run_app(server)


if __name__ == "__main__":
    main()
