"""Migration 0004 on a server where `vector` cannot be created: search stays lexical and says
why; an administrator enables semantic search later and the existing facts are backfilled."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from infra.database import create_pool
from infra.migrate import available, migrate
from memory.api import Memory
from testkit.databases import as_role, superuser_missing, with_database
from testkit.model_server import ModelServer
from tests.memory.search_helpers import remember, semantic_memory, texts


@pytest.fixture
async def plain_url(pg_admin_url: str) -> AsyncIterator[tuple[str, str]]:
    """A database owned by a role that is not a superuser (pgvector is not a trusted extension).

    Yields (url as that role, url as the superuser), both to the same database."""
    if reason := await superuser_missing(pg_admin_url):
        pytest.skip(reason)
    name, password = "plain_" + uuid.uuid4().hex[:10], secrets.token_hex(8)
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f"create role \"{name}\" login password '{password}'")
    await admin.execute(f'create database "{name}" owner "{name}"')
    url = with_database(pg_admin_url, name)
    yield as_role(url, name, password), url
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.execute(f'drop role if exists "{name}"')
    await admin.close()


async def test_without_pgvector_search_is_lexical_and_says_why(
    plain_url: tuple[str, str], model_server: ModelServer
) -> None:
    url, superuser_url = plain_url
    conn = await asyncpg.connect(url)
    assert await migrate(conn) == [m.version for m in available()]
    capabilities = await conn.fetch("select name from stackbone_platform.capabilities")
    names = {r["name"] for r in capabilities}
    assert names == {"memory.basic", "memory.search", "documents", "documents.lexical"}
    await conn.close()
    pool = await create_pool(url)
    try:
        memory = semantic_memory(pool, model_server)  # an embedding model is configured
        await remember(memory, model_server, "u1", "Asked not to be called again.")
        result = await memory.search("support", "called")
        assert result.data is not None
        # the server has pgvector, this database not: the role cannot create it (a superuser can)
        assert (result.data.mode, result.data.reason) == ("lexical", "semantic_search_not_enabled")
        assert texts(result) == ["Asked not to be called again."]
        failed = await memory.search("support", "called", mode="semantic")
        assert failed.error is not None and failed.error.code == "capability_unavailable"
        assert model_server.embedding_requests == []
        await enable_and_backfill(superuser_url, pool, model_server)
    finally:
        await pool.close()


async def enable_and_backfill(superuser_url: str, pool: asyncpg.Pool, server: ModelServer) -> None:
    admin = await asyncpg.connect(superuser_url)
    await admin.execute("create extension vector")
    await admin.close()
    assert await pool.fetchval("select stackbone_platform.enable_semantic_search()") == "enabled"
    restarted: Memory = semantic_memory(pool, server)  # the capability is read per process
    await restarted.search("support", "called", mode="lexical")
    await restarted.drain_indexing()
    found = await restarted.search("support", "who asked not to be called", mode="semantic")
    assert texts(found) == ["Asked not to be called again."]
    await restarted.drain_indexing()


@pytest.mark.pgvector
async def test_the_embedded_server_gets_semantic_search_with_iterative_scans(
    pool: asyncpg.Pool,
) -> None:
    """The migrated test database (embedded server, pgvector 0.8.5) is fully semantic."""
    capabilities = await pool.fetch("select name from stackbone_platform.capabilities")
    assert "memory.semantic" in {r["name"] for r in capabilities}
    config = await pool.fetchval("select proconfig from pg_proc where proname = 'nearest_facts'")
    assert config == ["hnsw.iterative_scan=relaxed_order"]
    dimensions = await pool.fetchval(
        "select format_type(atttypid, atttypmod) from pg_attribute"
        " where attrelid = 'stackbone_platform.memory_fact_vectors'::regclass"
        " and attname = 'embedding'"
    )
    assert dimensions == "vector(512)"
