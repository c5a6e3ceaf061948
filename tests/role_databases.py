"""A database owned by a role that is no superuser (as a hosted Postgres gives), migrated by that
role, for the tests of what the service says when that role lacks something. Import the fixture
into a test module (`from tests.role_databases import role_database`)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import asyncpg
import pytest

from infra.migrate import migrate
from testkit.databases import as_role, superuser_missing, with_database


@dataclass(frozen=True, slots=True)
class RoleDatabase:
    url: str  # as the service's role (owns the database, no superuser)
    admin_url: str  # the same database as the superuser
    admin: str  # the superuser's name

    async def as_superuser(self, *statements: str) -> None:
        conn = await asyncpg.connect(self.admin_url)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    async def has_pgvector(self) -> bool:
        conn = await asyncpg.connect(self.admin_url)
        try:
            found = await conn.fetchval(
                "select 1 from pg_available_extensions where name = 'vector'"
            )
        finally:
            await conn.close()
        return bool(found)


@pytest.fixture
async def role_database(pg_admin_url: str) -> AsyncIterator[RoleDatabase]:
    """A database owned by a role that is no superuser, migrated by that role (so lexical: only a
    superuser creates `vector`)."""
    if reason := await superuser_missing(pg_admin_url):
        pytest.skip(reason)
    name, password = "role_" + uuid.uuid4().hex[:10], secrets.token_hex(8)
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f"create role \"{name}\" login password '{password}'")
    await admin.execute(f'create database "{name}" owner "{name}"')
    url = as_role(with_database(pg_admin_url, name), name, password)
    conn = await asyncpg.connect(url)
    await migrate(conn)
    await conn.close()
    yield RoleDatabase(url, with_database(pg_admin_url, name), await admin.fetchval("select user"))
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.execute(f'drop role if exists "{name}"')
    await admin.close()
