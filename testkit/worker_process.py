"""A worker with real job processes, run as its own process group, its output read line by line.

    async with worker_process("start", env, room="call-1", job_id="job-1") as worker:
        await worker.wait_for_event("call.save_finished")
        ...
    worker.output        # the worker's stdout and stderr together, one string per line
    worker.records()     # the lines that are JSON objects (`start` renders every record so)

The worker is `testkit.process_worker` (`worker.agent`'s main with a scripted caller) under
livekit's CLI, `start` or `dev`; its one call runs in a job process that livekit's forkserver
starts. `hold=True` keeps the caller on the line: `job_pid()` finds the job process (from the
`pid` livekit puts on every record a job process forwards) and `kill_job()` kills it;
`kill_worker()` kills the whole worker at once; `job_ended()` waits until the job process is
gone. `burst_worker(env, cwd=...)` runs `testkit.burst_worker` instead: many calls at once,
launched by `await worker.burst(tag, n)`. Leaving the block stops the worker like an
orchestrator does (SIGTERM, then a drain); what is still running after `stop_within` seconds,
forkserver and job processes included, is killed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Mode = Literal["start", "dev"]
Record = dict[str, Any]

ROOT = Path(__file__).resolve().parents[1]
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PID = re.compile(r'"pid": (\d+)')


FOREIGN = ("LIVEKIT_", "OPENAI_", "VOICE_", "WEB_", "CALL_", "STACKBONE_", "MEMORY_", "OTEL_")
FOREIGN_NAMES = {"DATABASE_URL", "LOG_FORMAT", "PROMETHEUS_MULTIPROC_DIR", "WORKER_AGENT"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def worker_environment(database_url: str, model_url: str) -> dict[str, str]:
    """A worker's whole environment: this database and model provider, no LiveKit server (the
    URL is a closed local port), nothing inherited that configures the service."""
    base = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(FOREIGN) and name not in FOREIGN_NAMES
    }
    return {
        **base,
        "DATABASE_URL": database_url,
        "LIVEKIT_URL": f"ws://127.0.0.1:{free_port()}",
        "LIVEKIT_API_KEY": "test-livekit-key",
        "LIVEKIT_API_SECRET": "test-livekit-secret-0123456789abcdef0123",
        "OPENAI_API_KEY": "voice-key-unused-by-fakes",
        "STACKBONE_MEMORY_BASE_URL": model_url,
        "STACKBONE_MEMORY_API_KEY": "test-key",
        "STACKBONE_MEMORY_TIMEOUT_SECONDS": "4",
        "CALL_SAVE_TIMEOUT_SECONDS": "6",
    }


@dataclass
class WorkerProcess:
    """The running worker: its process, its output so far, its one job."""

    process: asyncio.subprocess.Process
    room: str
    job_id: str
    cwd: Path
    output: list[str] = field(default_factory=list)
    _parsed: list[Record] = field(default_factory=list, repr=False)
    _lines_parsed: int = 0

    def records(self) -> list[Record]:
        """Every output line that is a JSON object, in order (each line is parsed once: a
        benchmark polls this while thousands of lines come in)."""
        new, self._lines_parsed = self.output[self._lines_parsed :], len(self.output)
        for line in new:
            with suppress(ValueError):
                value = json.loads(line)
                if isinstance(value, dict):
                    self._parsed.append(value)
        return list(self._parsed)

    def job_records(self) -> list[Record]:
        """The JSON records the job process forwarded (they carry its job id)."""
        return [r for r in self.records() if r.get("job_id") == self.job_id]

    def lines_with(self, text: str) -> list[str]:
        """Output lines containing `text`, colour codes removed (for `dev`'s console lines)."""
        plain = (_ANSI.sub("", line) for line in self.output)
        return [line for line in plain if text in line]

    async def wait_for(
        self, predicate: Callable[[], bool], within: float, every: float = 0.05
    ) -> None:
        deadline = time.monotonic() + within
        while not predicate():
            if self.process.returncode is not None:
                raise AssertionError(f"worker exited ({self.process.returncode}):\n{self.tail()}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"not seen within {within} s:\n{self.tail()}")
            await asyncio.sleep(every)

    async def wait_for_event(self, event: str, within: float = 60.0) -> None:
        """Until a line of the output names `event` (JSON or console)."""
        await self.wait_for(lambda: bool(self.lines_with(event)), within)

    def forwarded(self) -> list[Record]:
        """The job's records that came from its job process (the main process logs some with
        the job id too, under its own pid)."""
        return [r for r in self.job_records() if r.get("pid") != self.process.pid]

    async def job_pid(self, within: float = 60.0) -> int:
        """The job process's pid, from the first record it forwarded (`start` only)."""
        await self.wait_for(lambda: bool(self.forwarded()), within)
        return int(self.forwarded()[0]["pid"])

    def job_pids(self) -> set[int]:
        """Every pid other than the main process's on a line naming this job (JSON or console):
        the job process's (`start` and `dev` alike)."""
        named = (line for line in self.lines_with(f'"job_id": "{self.job_id}"'))
        pids = {int(m.group(1)) for line in named if (m := _PID.search(line))}
        return pids - {self.process.pid}

    async def job_ended(self, within: float = 30.0) -> None:
        """Until the job process has run and is gone. (livekit's "process exiting" line is no
        such signal: under load its main process can stop reading the job's channel before
        the message is read.)"""
        await self.wait_for(lambda: bool(self.job_pids()), within)
        await self.wait_for(lambda: not any(map(_running, self.job_pids())), within)

    async def kill_job(self, sig: signal.Signals = signal.SIGKILL) -> int:
        """Kill the job process (SIGKILL: no code of its own runs); returns its pid."""
        pid = await self.job_pid()
        os.kill(pid, sig)
        return pid

    def kill_worker(self) -> None:
        """SIGKILL the whole worker at once, as a lost host would: its process group (main
        process, forkserver, job processes), nothing else."""
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)

    async def burst(self, tag: str, count: int) -> None:
        """`burst_worker` only: launch `count` calls at once, rooms `tag-0`... (stdin)."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"burst {tag} {count}\n".encode())
        await self.process.stdin.drain()

    def hang_up(self, tag: str) -> None:
        """`burst_worker` only: every caller of burst `tag` hangs up."""
        (self.cwd / tag).touch()

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.output[-lines:])


@asynccontextmanager
async def worker_process(
    mode: Mode,
    env: Mapping[str, str],
    *,
    room: str = "call-room",
    job_id: str = "job-process-1",
    hold: bool = False,
    says: Sequence[str] = (),
    stuck_shutdown: bool = False,
    cwd: Path,
    stop_within: float = 30.0,
) -> AsyncIterator[WorkerProcess]:
    """`python -m testkit.process_worker ... mode` in `cwd`, with exactly `env` as its
    environment (and this checkout on its `PYTHONPATH`); `says` and `stuck_shutdown`: the
    scripted caller's turns and a job that never ends its shutdown (`testkit.scripted_call`)."""
    args = ["-m", "testkit.process_worker", "--room", room, "--job", job_id]
    args += [f"--say={line}" for line in says]
    args += ["--stuck-shutdown"] if stuck_shutdown else []
    args += ["--hold"] if hold else []
    async with _spawned([*args, mode], env, cwd, stop_within, room=room, job_id=job_id) as worker:
        yield worker


@asynccontextmanager
async def burst_worker(
    env: Mapping[str, str], *, cwd: Path, stop_within: float = 60.0
) -> AsyncIterator[WorkerProcess]:
    """`python -m testkit.burst_worker start`: `await worker.burst(tag, count)` launches
    `count` scripted calls at once (`testkit.burst_worker`), `worker.hang_up(tag)` ends them;
    ready once its warm processes are."""
    args = ["-m", "testkit.burst_worker", f"--hang-up-dir={cwd}", "start"]
    async with _spawned(args, env, cwd, stop_within, stdin=True) as worker:
        await worker.wait_for_event("testkit.burst_worker_ready", within=120)
        yield worker


@asynccontextmanager
async def _spawned(
    args: list[str],
    env: Mapping[str, str],
    cwd: Path,
    stop_within: float,
    *,
    room: str = "",
    job_id: str = "",
    stdin: bool = False,
) -> AsyncIterator[WorkerProcess]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        stdin=asyncio.subprocess.PIPE if stdin else None,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,  # its own process group: forkserver and job processes too
    )
    worker = WorkerProcess(process, room, job_id, cwd)
    reading = asyncio.create_task(_read(process, worker.output))
    try:
        yield worker
    finally:
        await _stop(process, stop_within)
        await reading


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (Linux: its state in /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


async def _read(process: asyncio.subprocess.Process, output: list[str]) -> None:
    assert process.stdout is not None
    async for raw in process.stdout:
        output.append(raw.decode(errors="replace").rstrip("\n"))


async def _stop(process: asyncio.subprocess.Process, within: float) -> None:
    """SIGTERM (a drain under `start`), then the whole process group after `within`."""
    if process.returncode is None:
        with suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        with suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), within)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the group this worker leads, nothing else
    await process.wait()
