"""A call in a real job process (livekit's PROCESS executor): its events in the worker's output.

Each test runs the worker as its own process group (`testkit.worker_process`) under livekit's
own CLI, `start` or `dev`; the call runs in a job process livekit's forkserver starts, on
livekit's mock room, and its caller hangs up after the greeting. The worker's stdout and stderr
are read together, as a log pipeline would.
"""

from __future__ import annotations

import re
from pathlib import Path

from testkit.model_server import ModelServer
from testkit.scripted_call import GREETING, NUMBER
from testkit.worker_process import WorkerProcess, worker_process

CALL_EVENTS = ["call.memory_plan", "call.ended", "call.save_finished"]
FACT = "Keeps bees on the roof of Calle Mayor 5"
SUMMARY = "Talked about the bees and the roof."
OURS = re.compile(r"\b(?:call|memory|lifecycle|testkit)\.[a-z_]+")
"""Our event names and logger names: what must never be printed outside the log channel."""


async def one_call(worker: WorkerProcess) -> None:
    await worker.wait_for_event("call.save_finished")
    await worker.job_ended()


def assert_private(output: list[str]) -> None:
    """No number, nothing said, no fact or summary text anywhere in the worker's output. The
    number in any form a room name can carry it (LiveKit's individual dispatch rule names the
    room after the caller): E.164, without its `+`, after `00`, or its last nine digits."""
    text = "\n".join(output)
    for secret in (NUMBER, NUMBER[-9:], GREETING, FACT, SUMMARY, "bees"):
        assert secret not in text, secret


async def test_under_start_every_call_event_is_one_json_record_with_room_and_job(
    worker_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.answer([{"op": "add", "handle": None, "content": FACT}], SUMMARY)
    async with worker_process(
        "start", worker_env, room="call-7", job_id="job-7", cwd=tmp_path
    ) as w:
        await one_call(w)
    events = [r for r in w.job_records() if str(r["message"]).startswith("call.")]
    assert [r["message"] for r in events] == CALL_EVENTS  # each once, in order
    ours = [r for r in w.job_records() if not r["name"].startswith("livekit")]
    pids = {r["pid"] for r in ours}
    for record in events:
        assert (record["room"], record["job_id"]) == ("call-7", "job-7")
        assert record["level"] == "INFO" and record["name"].startswith("lifecycle.")
    assert len(pids) == 1 and w.process.pid not in pids  # all from the one job process
    assert all(r["room"] == "call-7" for r in ours)
    ended, finished = events[1], events[2]
    assert (ended["outcome"], ended["trigger"]) == ("caller_hung_up", "hang_up")
    assert (finished["status"], finished["reason"]) == ("saved", None)
    assert len(model_server.requests) == 1
    [preload] = [r for r in w.records() if r["message"] == "preloading plugins"]
    assert "worker.agent" in preload["packages"]  # job processes start with our modules loaded
    stray = [line for line in w.output if not line.startswith("{") and OURS.search(line)]
    assert stray == []  # nothing of ours printed outside livekit's channel
    assert_private(w.output)


async def test_under_dev_every_call_event_is_one_console_line_with_room_and_job(
    worker_env: dict[str, str], model_server: ModelServer, tmp_path: Path
) -> None:
    model_server.answer([{"op": "add", "handle": None, "content": FACT}], SUMMARY)
    async with worker_process("dev", worker_env, room="call-8", job_id="job-8", cwd=tmp_path) as w:
        await one_call(w)
    for event in CALL_EVENTS:
        [line] = w.lines_with(f" {event} ")
        assert '"job_id": "job-8"' in line and '"room": "call-8"' in line
    assert all(not line.startswith("{") for line in w.output)  # livekit's console format
    assert_private(w.output)
