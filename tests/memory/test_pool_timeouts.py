"""Every pool's time limits: read from the environment, and applied to each connection."""

from __future__ import annotations

import pytest

from callmemory import environment
from callmemory.config import pool_timeouts
from infra.database import PoolTimeouts, close_pool, create_pool
from memory.config import ConfigError


def timeouts_from(env: dict[str, str]) -> PoolTimeouts:
    return pool_timeouts(environment.read(env))


@pytest.mark.direct_only  # start-up settings; behind a pooler the role's: tests/pooler
async def test_connections_carry_the_server_side_limits(database_url: str) -> None:
    limits = PoolTimeouts(command_seconds=3.0, statement_seconds=4.0, lock_seconds=1.5)
    pool = await create_pool(database_url, timeouts=limits)
    try:
        assert await pool.fetchval("show statement_timeout") == "4s"
        assert await pool.fetchval("show lock_timeout") == "1500ms"
    finally:
        await close_pool(pool, 2.0)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, PoolTimeouts(5.0, 5.0, 2.0)),
        ({"DATABASE_STATEMENT_TIMEOUT_SECONDS": "0", "DATABASE_LOCK_TIMEOUT_SECONDS": "0"}, 0.0),
        ({"DATABASE_COMMAND_TIMEOUT_SECONDS": "0.001"}, 0.001),
    ],
)
def test_limits_from_the_environment(env: dict[str, str], expected: object) -> None:
    limits = timeouts_from(env)
    if isinstance(expected, PoolTimeouts):
        assert limits == expected
    elif "DATABASE_COMMAND_TIMEOUT_SECONDS" in env:
        assert limits.command_seconds == expected
    else:
        assert (limits.statement_seconds, limits.lock_seconds) == (expected, expected)


@pytest.mark.parametrize(
    "env",
    [
        {"DATABASE_COMMAND_TIMEOUT_SECONDS": "0"},
        {"DATABASE_STATEMENT_TIMEOUT_SECONDS": "-1"},
        {"DATABASE_LOCK_TIMEOUT_SECONDS": "nan"},
        {"DATABASE_LOCK_TIMEOUT_SECONDS": "soon"},
    ],
)
def test_bad_limits_name_the_variable(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match=next(iter(env))):
        timeouts_from(env)
