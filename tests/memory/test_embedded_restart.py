"""The embedded server starts again after a crash, or says in one line why it cannot.

Each scenario runs the start in a fresh Python process, as the next `web` or `worker` would.
The zombie case holds the killed postmaster in a parent that never reaps it: a process that
made itself a child subreaper, as PID 1 is in a container without an init process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from infra.embedded import _process_state, clear_stale_postmaster

pytestmark = [
    pytest.mark.skipif(
        not Path("/proc/self/stat").exists() or os.environ.get("TEST_DATABASE_URL") is not None,
        reason="needs Linux /proc and the embedded server",
    ),
    pytest.mark.processes,  # starts processes: not in `make check`
]

START = """
import asyncio, sys, asyncpg
from pathlib import Path
from infra.embedded import start_embedded

async def check(url):
    conn = await asyncpg.connect(url)
    print(await conn.fetchval("select 41 + 1"), flush=True)
    await conn.close()

asyncio.run(check(start_embedded(Path(sys.argv[1]), cleanup_mode=None)))
"""

# a parent that adopts orphans (PR_SET_CHILD_SUBREAPER) and never waits for them
NON_REAPING_PARENT = """
import ctypes, sys, time
from pathlib import Path
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
from infra.embedded import start_embedded
start_embedded(Path(sys.argv[1]), cleanup_mode=None)
print(Path(sys.argv[1], "postmaster.pid").read_text().split()[0], flush=True)
time.sleep(600)
"""


def run(script: str, data_dir: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), str(data_dir)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def stop(data_dir: Path) -> None:
    found = (data_dir / "postmaster.pid").read_text().split()[0]
    os.kill(int(found), signal.SIGTERM)  # smart shutdown; the data dir is removed afterwards


@pytest.fixture
def data_dir() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="caller-memory-restart-"))
    yield base / "pgdata"
    pid_file = base / "pgdata" / "postmaster.pid"
    if pid_file.exists():
        pid = int(pid_file.read_text().split()[0])
        if _process_state(pid) == "postgres":
            os.kill(pid, signal.SIGKILL)
    subprocess.run(["rm", "-rf", str(base)], check=False)


def wait_for(predicate: object, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def test_start_after_the_postmaster_died_as_an_unreaped_zombie(data_dir: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(NON_REAPING_PARENT), str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
    )
    try:
        assert parent.stdout is not None
        postmaster = int(parent.stdout.readline())
        os.kill(postmaster, signal.SIGKILL)
        wait_for(lambda: _process_state(postmaster) == "zombie")

        started = time.monotonic()
        result = run(START, data_dir)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().endswith("42")
        assert "embedded_stale_server_cleared found='zombie'" in result.stdout or (
            "found=zombie" in result.stdout
        )
        assert _process_state(postmaster) == "zombie"  # still there: nobody could reap it
        assert time.monotonic() - started < 30  # bounded; typically about two seconds
        stop(data_dir)
    finally:
        parent.kill()
        parent.wait()


def test_start_when_the_pid_in_the_lock_file_was_reused(data_dir: Path) -> None:
    assert run(START, data_dir).stdout.strip().endswith("42")
    pid_file = data_dir / "postmaster.pid"
    postmaster = int(pid_file.read_text().split()[0])
    os.kill(postmaster, signal.SIGKILL)
    wait_for(lambda: _process_state(postmaster) == "gone")
    with subprocess.Popen(["sleep", "60"]) as stranger:
        lines = pid_file.read_text().splitlines()
        pid_file.write_text("\n".join([str(stranger.pid), *lines[1:]]) + "\n")
        result = run(START, data_dir)
        stranger.kill()
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("42")
    stop(data_dir)


def test_a_server_that_cannot_start_fails_in_one_line(data_dir: Path) -> None:
    assert run(START, data_dir).stdout.strip().endswith("42")
    stop(data_dir)
    wait_for(lambda: not (data_dir / "postmaster.pid").exists())
    with (data_dir / "postgresql.conf").open("a") as conf:
        conf.write("\nshared_buffers = 'plenty'\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MEMORY_API_KEYS")}
    result = subprocess.run(
        [sys.executable, "-m", "worker.http"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "MEMORY_PGDATA": str(data_dir), "PORT": "0"},
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("database error: embedded Postgres did not start in ")
    assert str(data_dir / "log") in lines[0]


class TestClearStalePostmaster:
    def test_no_lock_file(self, tmp_path: Path) -> None:
        assert clear_stale_postmaster(tmp_path) == "none"

    def test_a_dead_pid_is_left_to_postgres(self, tmp_path: Path) -> None:
        with subprocess.Popen(["true"]) as gone:
            gone.wait()
        (tmp_path / "postmaster.pid").write_text(f"{gone.pid}\n{tmp_path}\n0\n\n\n\n  1 1\nready\n")
        assert clear_stale_postmaster(tmp_path, wait_seconds=0.1) == "gone"
        assert (tmp_path / "postmaster.pid").exists()

    def test_a_reused_pid_is_removed(self, tmp_path: Path) -> None:
        (tmp_path / "postmaster.pid").write_text(f"{os.getpid()}\n{tmp_path}\n0\n\n\n\n\nready\n")
        assert clear_stale_postmaster(tmp_path, wait_seconds=0.1) == "other"
        assert not (tmp_path / "postmaster.pid").exists()
