"""Where the Postgres behind memory lives, and the connection pools to it.

`DATABASE_URL` wins. Without it, the embedded server (`infra.embedded`) is started (or attached
to) in a per-user data directory. That happens once, in the main process; the resulting URL is
written back to `DATABASE_URL` so LiveKit job processes inherit it and never attach themselves
(a job killed on timeout would otherwise leave a stale PID that keeps the server from ever
stopping). Pools carry the service's time limits (`PoolTimeouts`), skip asyncpg's session reset,
and close within a bound.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

import asyncpg
import structlog

from infra.embedded import default_data_dir, running_url, start_embedded
from infra.logs import one_line_errors
from infra.pooler import Pooler, connection_options, pooled_limits_differ, server_limits

log = structlog.get_logger(__name__)

# a plain connection or one borrowed from a pool; both run the same queries
Executor = asyncpg.Connection | asyncpg.pool.PoolConnectionProxy


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


def command_database_url(configured: str | None, data_dir: str | None = None) -> str:
    """`database_url` for a short command (`caller-memory ...`): an embedded server already up
    on the data directory (`make run`'s, another command's) is used as it is, else one is
    started as `database_url` does."""
    if configured:
        return configured
    url = running_url(default_data_dir(data_dir))
    if url is None:
        return database_url(None, data_dir)
    log.info("database.embedded_running")
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
DEFAULT_IDLE_SECONDS = 300.0  # asyncpg's own default
DEFAULT_POOL_MAX_SIZE = 5
"""Connections a process's pool opens at most (the web process's pool is this size)."""


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
    url: str,
    *,
    min_size: int = 1,
    max_size: int = DEFAULT_POOL_MAX_SIZE,
    timeouts: PoolTimeouts | None = None,
    idle_seconds: float = DEFAULT_IDLE_SECONDS,
) -> asyncpg.Pool:
    """A pool not yet connected: `await` it to connect (a job does that inside its deadline).

    `idle_seconds`: a connection unused this long is closed (0: kept; a prewarmed job
    process's, `callmemory.runtime`).
    """
    limits = PoolTimeouts() if timeouts is None else timeouts
    return asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        reset=_session_unchanged,
        max_inactive_connection_lifetime=idle_seconds,
        command_timeout=limits.command_seconds,
        timeout=limits.command_seconds,
        **limits.connection_options(),
    )


async def create_pool(
    url: str,
    *,
    min_size: int = 1,
    max_size: int = DEFAULT_POOL_MAX_SIZE,
    timeouts: PoolTimeouts | None = None,
) -> asyncpg.Pool:
    """A connected pool sized for one process; see docs/deployment.md for sizing per call.

    Behind a pooler, the server-side limits its connections carry are checked once (a warning
    names the ones that differ from the configured values).
    """
    limits = PoolTimeouts() if timeouts is None else timeouts
    one_line_errors()  # the pool rides out a server restart: no traceback per retry
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
