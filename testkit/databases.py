"""Helpers for the per-test databases."""

from urllib.parse import urlsplit, urlunsplit

import asyncpg


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at database `name`."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


OWN_SESSIONS = """select pg_terminate_backend(pid) from pg_stat_activity
    where datname = $1 and usename = current_user and pid <> pg_backend_pid()"""


async def drop_database(admin: asyncpg.Connection, name: str) -> None:
    """`drop database if exists ... with (force)`, also for a role that is no superuser.

    Such a role (without `pg_signal_backend`) may not end an autovacuum worker's session, and
    PostgreSQL 15 then refuses the forced drop ("must be a member of the role whose process is
    being terminated"). The role's own sessions are ended instead, and a plain drop makes
    autovacuum leave by itself."""
    try:
        await admin.execute(f'drop database if exists "{name}" with (force)')
    except asyncpg.InsufficientPrivilegeError:
        await admin.execute(OWN_SESSIONS, name)
        await admin.execute(f'drop database if exists "{name}"')


async def drop_database_under(pool: asyncpg.Pool, admin_url: str) -> None:
    """Drop the database a live pool points at: every later query on it fails."""
    name = await pool.fetchval("select current_database()")
    admin = await asyncpg.connect(admin_url)
    await drop_database(admin, name)
    await admin.close()


def as_role(url: str, role: str, password: str) -> str:
    """The same server and database, signed in as `role` with `password` (host and port kept)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{role}:{password}@{host}"))


async def superuser_missing(admin_url: str) -> str | None:
    """Why a test that creates roles and extensions cannot run on `admin_url`'s server, or None.

    The embedded test server's role is a superuser; a `TEST_DATABASE_URL` may not be (a hosted
    Postgres never is), and those tests skip with this reason (docs/testing.md)."""
    conn = await asyncpg.connect(admin_url)
    try:
        superuser = await conn.fetchval(
            "select rolsuper from pg_roles where rolname = current_user"
        )
    finally:
        await conn.close()
    return None if superuser else "needs a superuser TEST_DATABASE_URL (creates roles, extensions)"
