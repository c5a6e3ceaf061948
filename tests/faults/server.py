"""A throwaway Postgres that the fault tests own: stall it (SIGSTOP), resume, kill, restart.

It is the embedded package's Postgres, initialised by the package but run as a child of the test
process (so a killed postmaster is reaped here and never blocks the restart), in its own data
directory apart from the session's test server: stalling it stalls nothing else.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psutil

from infra.embedded import import_pgserver

READY_SECONDS = 30.0


class FaultServer:
    def __init__(self) -> None:
        self._root = Path(tempfile.mkdtemp(prefix="cm-faults-"))
        self.data_dir = self._root / "pgdata"
        self.data_dir.mkdir()
        pgserver = import_pgserver()
        self._server = pgserver.PostgresServer(self.data_dir, cleanup_mode=None)
        self._server.ensure_pgdata_inited()
        self._process: subprocess.Popen[bytes] | None = None
        self.stalled = False

    @property
    def url(self) -> str:
        return f"postgresql://postgres:@/postgres?host={self.data_dir}"

    def start(self) -> None:
        args = [str(self._server.bin_path / "postgres"), "-D", str(self.data_dir)]
        args += ["-h", "", "-k", str(self.data_dir), "-c", "fsync=off"]
        with (self._root / "postgres.log").open("ab") as log:
            self._process = subprocess.Popen(
                args, user=self._server.system_user, stdout=log, stderr=log
            )
        self._wait_ready()

    def _wait_ready(self) -> None:
        pid_file = self.data_dir / "postmaster.pid"
        give_up = time.monotonic() + READY_SECONDS
        while time.monotonic() < give_up:
            assert self._process is not None and self._process.poll() is None, "postgres exited"
            lines = pid_file.read_text().splitlines() if pid_file.exists() else []
            fresh = bool(lines) and lines[0].strip() == str(self._process.pid)
            if fresh and len(lines) >= 8 and lines[7].strip() == "ready":
                return
            time.sleep(0.05)
        raise TimeoutError("the fault server did not become ready")

    def processes(self) -> list[psutil.Process]:
        assert self._process is not None
        postmaster = psutil.Process(self._process.pid)
        return [postmaster, *postmaster.children(recursive=True)]

    def _signal(self, signum: int) -> None:
        for process in self.processes():
            try:
                process.send_signal(signum)
            except psutil.NoSuchProcess:
                continue

    def stall(self) -> None:
        """Every server process frozen: connections are accepted by the kernel, never answered."""
        self._signal(signal.SIGSTOP)
        self.stalled = True

    def resume(self) -> None:
        self._signal(signal.SIGCONT)
        self.stalled = False

    def kill(self) -> None:
        """SIGKILL to the postmaster and every backend: a crash in the middle of whatever runs."""
        assert self._process is not None
        doomed = self.processes()
        for process in doomed:
            process.kill()
        self._process.wait()
        psutil.wait_procs(doomed[1:], timeout=5)

    def close(self) -> None:
        if self._process is not None and self._process.poll() is None:
            if self.stalled:
                self.resume()
            self._process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        shutil.rmtree(self._root, ignore_errors=True)
