"""A tiny migration runner: numbered SQL files applied once each, in order, under one lock.

No library is used: the maintained migration tools either need a synchronous driver or an ORM
(alembic pulls in SQLAlchemy), and this needs only ordered files, a version table and an
advisory lock so that several processes starting together apply each file exactly once.

The run is a long operation (`infra.long_ops`): its own connection, no statement timeout by
default, a short lock timeout. The advisory lock is session-level, held for the whole run (a
waiting process waits as long as the run takes) and released after. Each migration runs in a
transaction of its own with its row in `schema_migrations`; one marked no-transaction
(`infra.sql_script`) runs statement by statement, after dropping any invalid index a crash left
of those it builds, so that a re-run finishes an interrupted `CREATE INDEX CONCURRENTLY`. A step
that times out waiting for a lock is retried; past the last attempt `MigrationLockTimeout`. Any
other server error is raised as `MigrationFailed`, naming the migration, with Postgres's words.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources

import asyncpg
import structlog

from infra.database_failure import MigrationFailed
from infra.long_ops import LongOpLimits, connect_long, lock_wait_message, retry_delay
from infra.sql_script import concurrent_indexes, is_transactional, statements

log = structlog.get_logger(__name__)

SCHEMA = "stackbone_platform"
PACKAGE = "infra.migrations"
_LOCK_KEY = 0x5EED_0000_0001  # advisory lock id shared by every process running migrations
_FIRST_RUN_LOCK_DELAY = 0.05  # seconds between tries for the run's lock, doubling up to
_LAST_RUN_LOCK_DELAY = 1.0


class MigrationLockTimeout(RuntimeError):
    """A migration gave up waiting for a table lock; the message is one line."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def transactional(self) -> bool:
        return is_transactional(self.sql)

    @property
    def label(self) -> str:
        return f"migration {self.version:04d}_{self.name}"


def available(package: str = PACKAGE) -> tuple[Migration, ...]:
    """Every migration shipped in `package` (`infra/migrations`), ordered by version."""
    found = []
    for entry in resources.files(package).iterdir():
        if entry.name.endswith(".sql"):
            version, _, rest = entry.name.partition("_")
            found.append(
                Migration(int(version), rest.removesuffix(".sql"), entry.read_text("utf-8"))
            )
    return tuple(sorted(found, key=lambda m: m.version))


async def run_migrations(url: str, limits: LongOpLimits, package: str = PACKAGE) -> list[int]:
    """Apply pending migrations on a connection of their own; returns the versions applied."""
    conn = await connect_long(url, limits)
    try:
        applied = await migrate(conn, limits=limits, package=package)
    except BaseException:
        conn.terminate()  # the server may be gone; the session lock goes with the connection
        raise
    await conn.close()
    return applied


async def migrate(
    conn: asyncpg.Connection, *, limits: LongOpLimits | None = None, package: str = PACKAGE
) -> list[int]:
    """Apply pending migrations on `conn`, a connection of this run's own (its session's
    `statement_timeout` and `lock_timeout` are set to `limits`); returns the versions applied."""
    limits = LongOpLimits() if limits is None else limits
    settings = limits.server_settings()
    await _run_lock(conn, limits)  # wait for another run, however long it takes
    try:
        await _session_limits(conn, settings["statement_timeout"], settings["lock_timeout"])
        applied = await _apply_pending(conn, limits, package)
    finally:
        with contextlib.suppress(asyncpg.InterfaceError, OSError):  # a lost connection took it
            await conn.execute("select pg_advisory_unlock($1)", _LOCK_KEY)
    if applied:
        log.info("database.migrated", versions=applied)
    return applied


async def _run_lock(conn: asyncpg.Connection, limits: LongOpLimits) -> None:
    """The run's advisory lock, asked for again until free (at most `statement_seconds`).

    Not `pg_advisory_lock`: a session waiting in it holds a snapshot, and a run building an
    index concurrently waits for every older snapshot to end, so two processes starting
    together would deadlock. Between tries nothing is held.
    """
    delay = _FIRST_RUN_LOCK_DELAY
    try:
        async with asyncio.timeout(limits.statement_seconds or None):
            while not await conn.fetchval("select pg_try_advisory_lock($1)", _LOCK_KEY):
                await asyncio.sleep(delay)
                delay = min(delay * 2, _LAST_RUN_LOCK_DELAY)
    except TimeoutError:
        raise MigrationLockTimeout(
            f"another process has been applying migrations for over {limits.statement_seconds:g} s"
            " (the long statement timeout); retry once it is done"
        ) from None


async def _session_limits(conn: asyncpg.Connection, statement: str, lock: str) -> None:
    await conn.execute(
        "select set_config('statement_timeout', $1, false), set_config('lock_timeout', $2, false)",
        statement,
        lock,
    )


async def _apply_pending(conn: asyncpg.Connection, limits: LongOpLimits, package: str) -> list[int]:
    await _with_lock_retry(conn, limits, "migration version table", _version_table)
    done = {
        r["version"] for r in await conn.fetch(f"select version from {SCHEMA}.schema_migrations")
    }
    applied: list[int] = []
    for migration in available(package):
        if migration.version in done:
            continue

        async def step(c: asyncpg.Connection, m: Migration = migration) -> None:
            await (_apply_in_transaction(c, m) if m.transactional else _apply_outside(c, m))

        await _with_lock_retry(conn, limits, migration.label, step)
        applied.append(migration.version)
    return applied


async def _version_table(conn: asyncpg.Connection) -> None:
    async with conn.transaction():
        await conn.execute(f"create schema if not exists {SCHEMA}")
        await conn.execute(
            f"create table if not exists {SCHEMA}.schema_migrations ("
            " version integer primary key, name text not null,"
            " applied_at timestamptz not null default now())"
        )


Step = Callable[[asyncpg.Connection], Awaitable[None]]


async def _with_lock_retry(
    conn: asyncpg.Connection, limits: LongOpLimits, what: str, step: Step
) -> None:
    for attempt in range(1, limits.lock_attempts + 1):
        try:
            await _named(conn, what, step)
            return
        except asyncpg.LockNotAvailableError:
            if attempt == limits.lock_attempts:
                raise MigrationLockTimeout(lock_wait_message(what, limits)) from None
            delay = retry_delay(attempt)
            log.warning("database.migration_lock_wait", step=what, attempt=attempt, retry_in=delay)
            await asyncio.sleep(delay)


async def _named(conn: asyncpg.Connection, what: str, step: Step) -> None:
    """`step`, a server error but a lock wait raised as `MigrationFailed` naming `what`."""
    try:
        await step(conn)
    except asyncpg.LockNotAvailableError:
        raise
    except asyncpg.PostgresError as exc:
        raise MigrationFailed(what, exc) from exc


async def _record(conn: asyncpg.Connection, migration: Migration) -> None:
    await conn.execute(
        f"insert into {SCHEMA}.schema_migrations (version, name) values ($1, $2)",
        migration.version,
        migration.name,
    )


async def _apply_in_transaction(conn: asyncpg.Connection, migration: Migration) -> None:
    async with conn.transaction():
        await conn.execute(migration.sql)
        await _record(conn, migration)


async def _apply_outside(conn: asyncpg.Connection, migration: Migration) -> None:
    """Statement by statement, each committed by itself; the version row last."""
    pieces = statements(migration.sql)
    for schema, name in (index for s in pieces for index in concurrent_indexes(s)):
        await _drop_if_invalid(conn, schema, name)
    for statement in pieces:
        await conn.execute(statement)
    await _record(conn, migration)


async def _drop_if_invalid(conn: asyncpg.Connection, schema: str | None, name: str) -> None:
    """An index left invalid by an interrupted concurrent build is dropped, to be built again."""
    found = await conn.fetchval(
        "select format('%I.%I', n.nspname, c.relname) from pg_index i"
        " join pg_class c on c.oid = i.indexrelid"
        " join pg_namespace n on n.oid = c.relnamespace"
        " where not i.indisvalid and c.relname = $1 and n.nspname = coalesce($2, current_schema())",
        name,
        schema,
    )
    if found is not None:
        log.warning("database.migration_invalid_index_dropped", index=name)
        await conn.execute(f"drop index concurrently if exists {found}")
