"""Helpers for the per-test databases."""

from urllib.parse import urlsplit, urlunsplit

import asyncpg


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at database `name`."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


async def drop_database_under(pool: asyncpg.Pool, admin_url: str) -> None:
    """Drop the database a live pool points at: every later query on it fails."""
    name = await pool.fetchval("select current_database()")
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'drop database "{name}" with (force)')
    await admin.close()
