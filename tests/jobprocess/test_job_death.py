"""A job process killed mid-call: the worker's main process says which call was lost."""

from __future__ import annotations

import signal
from pathlib import Path

from testkit.model_server import ModelServer
from testkit.scripted_call import GREETING, NUMBER, ON_THE_LINE
from testkit.worker_process import worker_process


async def test_a_killed_job_process_is_reported_as_a_lost_call(
    worker_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    async with worker_process(
        "start", worker_env, room="call-9", job_id="job-9", hold=True, cwd=tmp_path
    ) as worker:
        await worker.wait_for_event(ON_THE_LINE)
        pid = await worker.kill_job(signal.SIGKILL)
        await worker.wait_for_event("call.lost", within=30)
    [lost] = [r for r in worker.records() if r["message"] == "call.lost"]
    assert (lost["room"], lost["job_id"], lost["job_pid"]) == ("call-9", "job-9", pid)
    assert (lost["exit_code"], lost["killed_by_worker"]) == (-signal.SIGKILL, False)
    assert lost["last_event"] == "call.memory_plan"  # under way: nothing was saved
    assert (lost["journal"], lost["caller_turns"]) == ("held", 0)  # the caller never spoke
    assert lost["level"] == "ERROR" and lost["pid"] == worker.process.pid  # the main process
    names = [r["message"] for r in worker.job_records()]
    assert "call.ended" not in names and "call.save_finished" not in names
    assert model_server.requests == []
    text = "\n".join(worker.output)
    assert NUMBER not in text and GREETING not in text
