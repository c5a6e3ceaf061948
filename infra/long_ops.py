"""The connection of a long operation: a migration, a backfill, a bulk load, a benchmark's load.

The pooled limits (`infra.database.PoolTimeouts`) are made for a call: a few seconds for any
statement. Work that is long by nature gets a connection of its own instead, with no client-side
command timeout, its own `statement_timeout` (off by default) and a short `lock_timeout`: it
may run for minutes, but it never queues for long behind another transaction's lock while the
calls queue behind it. A lock wait that times out is retried a bounded number of times
(`retry_delay`); the caller decides what one attempt is.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

DEFAULT_LONG_STATEMENT_SECONDS = 0.0
DEFAULT_LONG_LOCK_SECONDS = 1.0
DEFAULT_LONG_LOCK_ATTEMPTS = 5
CONNECT_SECONDS = 10.0
"""How long opening the connection may take (a long operation's only client-side limit)."""
MAX_RETRY_DELAY_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class LongOpLimits:
    """Limits of a long operation's connection (see docs/configuration.md).

    `statement_seconds` is Postgres' `statement_timeout` (0: none), `lock_seconds` its
    `lock_timeout` (0: none), and `lock_attempts` how many times a step that timed out waiting
    for a lock is tried in all.
    """

    statement_seconds: float = DEFAULT_LONG_STATEMENT_SECONDS
    lock_seconds: float = DEFAULT_LONG_LOCK_SECONDS
    lock_attempts: int = DEFAULT_LONG_LOCK_ATTEMPTS

    def __post_init__(self) -> None:
        if self.lock_attempts < 1:
            raise ValueError("lock_attempts: must be at least 1")

    def server_settings(self) -> dict[str, str]:
        return {
            "statement_timeout": str(round(self.statement_seconds * 1000)),
            "lock_timeout": str(round(self.lock_seconds * 1000)),
        }


def retry_delay(attempt: int) -> float:
    """Seconds to wait after failed attempt `attempt` (1, 2, 4, ... up to 10)."""
    return float(min(2 ** (attempt - 1), MAX_RETRY_DELAY_SECONDS))


class ThroughPooler(RuntimeError):
    """A long operation was pointed at a connection pooler; the message is one line."""


POOLER_REFUSAL = "unsupported startup parameter"
"""How PgBouncer refuses the long operation's start-up limits (it does not know them)."""
THROUGH_POOLER_MESSAGE = (
    "migrations and long operations cannot run through a transaction-mode pooler"
    " (they hold a session advisory lock across transactions and send start-up limits):"
    " set DATABASE_DIRECT_URL to the database's own address"
)


async def connect_long(url: str, limits: LongOpLimits) -> asyncpg.Connection:
    """A connection of its own for one long operation; the caller closes it.

    Raises `ThroughPooler` when `url` is a pooler's (PgBouncer refuses the start-up limits).
    """
    try:
        return await asyncpg.connect(
            url,
            timeout=CONNECT_SECONDS,
            command_timeout=None,
            server_settings=limits.server_settings(),
        )
    except asyncpg.ProtocolViolationError as exc:
        if POOLER_REFUSAL in str(exc):
            raise ThroughPooler(THROUGH_POOLER_MESSAGE) from None
        raise


def lock_wait_message(what: str, limits: LongOpLimits) -> str:
    """The one line naming a lock wait that was given up on."""
    tries = "once" if limits.lock_attempts == 1 else f"{limits.lock_attempts} times"
    return (
        f"{what}: gave up waiting for a lock held by another transaction"
        f" (lock_timeout {limits.lock_seconds:g} s, tried {tries});"
        " end that transaction or retry later"
    )
