"""What changes when the pools reach Postgres through a transaction-mode pooler (PgBouncer).

In transaction mode a client's consecutive transactions may run on different server connections,
and a default PgBouncer refuses start-up parameters it does not know. So behind one:

- no named prepared statements: asyncpg's statement cache is turned off (`statement_cache_size
  0`); each query is parsed unnamed within its own exchange;
- no start-up `statement_timeout` / `lock_timeout` (they would be refused, or with
  `ignore_startup_parameters` silently dropped): the operator sets them on the role the
  service logs in as (`ALTER ROLE ... IN DATABASE ... SET`), so Postgres applies them to every
  server connection the pooler opens, with no round trip per transaction. `pooled_limits_differ`
  checks at start-up what the server connections really carry;
- no session state: nothing here sets a session variable, listens, holds a cursor or a session
  advisory lock (the migration lock is a session lock: migrations take the direct address,
  `infra.long_ops`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import asyncpg
import structlog

log = structlog.get_logger(__name__)

Pooler = Literal["none", "transaction"]
POOLERS: tuple[Pooler, ...] = ("none", "transaction")
DEFAULT_STATEMENT_CACHE_SIZE = 100  # asyncpg's own default, kept for direct connections

_SEEN = "select name, setting from pg_settings where name in ('statement_timeout', 'lock_timeout')"


def server_limits(statement_seconds: float, lock_seconds: float) -> dict[str, str]:
    """The two server-side limits as Postgres settings, in milliseconds (`0`: off)."""
    return {
        "statement_timeout": str(round(statement_seconds * 1000)),
        "lock_timeout": str(round(lock_seconds * 1000)),
    }


def connection_options(
    pooler: Pooler, statement_seconds: float, lock_seconds: float
) -> dict[str, Any]:
    """asyncpg options of every pooled connection: start-up limits only without a pooler."""
    if pooler == "transaction":
        return {"statement_cache_size": 0, "server_settings": {}}
    return {
        "statement_cache_size": DEFAULT_STATEMENT_CACHE_SIZE,
        "server_settings": server_limits(statement_seconds, lock_seconds),
    }


def limits_differ(seen: Mapping[str, str], wanted: Mapping[str, str]) -> list[str]:
    """The settings whose value on the server is not the configured one, in name order."""
    return sorted(name for name, value in wanted.items() if seen.get(name) != value)


async def pooled_limits_differ(
    pool: asyncpg.Pool, statement_seconds: float, lock_seconds: float
) -> list[str]:
    """Which of the configured limits a server connection behind the pooler does not carry.

    Logged as `database.pooler_limits_differ` (names and milliseconds only): the role-level
    settings of docs/deployment.md are missing or stale.
    """
    wanted = server_limits(statement_seconds, lock_seconds)
    seen = {r["name"]: r["setting"] for r in await pool.fetch(_SEEN)}
    differ = limits_differ(seen, wanted)
    if differ:
        log.warning(
            "database.pooler_limits_differ",
            settings=differ,
            configured_ms={n: wanted[n] for n in differ},
            server_ms={n: seen.get(n) for n in differ},
        )
    return differ
