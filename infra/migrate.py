"""A tiny migration runner: numbered SQL files applied once each, in one transaction.

No library is used: the maintained migration tools either need a synchronous driver or an ORM
(alembic pulls in SQLAlchemy), and this needs only ordered files, a version table and an
advisory lock so that several processes starting together apply each file exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import structlog

from infra.database import Executor

log = structlog.get_logger(__name__)

SCHEMA = "stackbone_platform"
_LOCK_KEY = 0x5EED_0000_0001  # advisory lock id shared by every process running migrations


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def available() -> tuple[Migration, ...]:
    """Every migration shipped in `infra/migrations`, ordered by version."""
    found = []
    for entry in resources.files("infra.migrations").iterdir():
        if entry.name.endswith(".sql"):
            version, _, rest = entry.name.partition("_")
            found.append(
                Migration(int(version), rest.removesuffix(".sql"), entry.read_text("utf-8"))
            )
    return tuple(sorted(found, key=lambda m: m.version))


async def migrate(conn: Executor) -> list[int]:
    """Apply pending migrations; returns the versions applied now."""
    applied_now: list[int] = []
    async with conn.transaction():
        await conn.execute("select pg_advisory_xact_lock($1)", _LOCK_KEY)
        await conn.execute(f"create schema if not exists {SCHEMA}")
        await conn.execute(
            f"create table if not exists {SCHEMA}.schema_migrations ("
            " version integer primary key, name text not null,"
            " applied_at timestamptz not null default now())"
        )
        done = {
            r["version"]
            for r in await conn.fetch(f"select version from {SCHEMA}.schema_migrations")
        }
        for migration in available():
            if migration.version in done:
                continue
            await conn.execute(migration.sql)
            await conn.execute(
                f"insert into {SCHEMA}.schema_migrations (version, name) values ($1, $2)",
                migration.version,
                migration.name,
            )
            applied_now.append(migration.version)
    if applied_now:
        log.info("database.migrated", versions=applied_now)
    return applied_now
