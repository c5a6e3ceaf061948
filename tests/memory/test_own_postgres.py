"""An operator's own Postgres: the enable functions run by a superuser leave everything they make
to the service's role, and a pgvector without HNSW (before 0.5) leaves search lexical instead of
failing migration 0004. Both need a superuser (roles, `vector`); they skip without one."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest
import structlog

from infra.database import PoolTimeouts, create_pool
from infra.long_ops import LongOpLimits
from infra.migrate import available, migrate
from memory.config import MemoryConfig
from memory.search import SearchAvailability, fix_of, read_search_availability
from testkit.databases import as_role, superuser_missing, with_database
from testkit.model_server import ModelServer
from tests.memory.search_helpers import remember, semantic_memory, texts, vectors
from tests.web.test_web_process import free_port, start_web, wait_healthy
from tests.web_clients import AppClients
from worker.catalog import Catalog, agents
from worker.http.web import create_app
from worker.startup import prepare_database

S = "stackbone_platform"
ALL = [m.version for m in available()]
LEXICAL_CAPABILITIES = {"memory.basic", "memory.search", "documents", "documents.lexical"}


async def _require_pgvector(admin_url: str) -> None:
    if reason := await superuser_missing(admin_url):
        pytest.skip(reason)
    conn = await asyncpg.connect(admin_url)
    try:
        found = await conn.fetchval(
            "select count(*) from pg_available_extensions where name = 'vector'"
        )
    finally:
        await conn.close()
    if not found:
        pytest.skip("needs pgvector on the test server")


@pytest.fixture
async def owned_database(pg_admin_url: str) -> AsyncIterator[tuple[str, str]]:
    """A database owned by a role that is no superuser (as a hosted Postgres gives), with a
    password. Yields (url as that role, url as the superuser), both to that database."""
    await _require_pgvector(pg_admin_url)
    name = "own_" + uuid.uuid4().hex[:10]
    password = secrets.token_hex(8)
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f"create role \"{name}\" login password '{password}'")
    await admin.execute(f'create database "{name}" owner "{name}"')
    superuser_url = with_database(pg_admin_url, name)
    yield as_role(superuser_url, name, password), superuser_url
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.execute(f'drop role if exists "{name}"')
    await admin.close()


async def _foreign_objects(conn: asyncpg.Connection) -> list[str]:
    """The schema's tables and functions not owned by the schema's owner."""
    rows = await conn.fetch(
        """select c.oid::regclass::text as name from pg_class c
            join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = $1 and c.relkind in ('r', 'i') and c.relowner <> n.nspowner
        union all
        select p.oid::regprocedure::text from pg_proc p
            join pg_namespace n on n.oid = p.pronamespace
            where n.nspname = $1 and p.proowner <> n.nspowner""",
        S,
    )
    return sorted(r["name"] for r in rows)


async def _capabilities(conn: asyncpg.Connection) -> set[str]:
    return {r["name"] for r in await conn.fetch(f"select name from {S}.capabilities")}


async def test_a_superuser_enabling_leaves_the_role_able_to_write_what_was_made(
    owned_database: tuple[str, str], model_server: ModelServer
) -> None:
    url, superuser_url = owned_database
    conn = await asyncpg.connect(url)
    assert await migrate(conn) == ALL  # the role cannot create `vector`: lexical
    assert await read_search_availability(conn) == SearchAvailability(
        "lexical", "semantic_search_not_enabled"
    )
    admin = await asyncpg.connect(superuser_url)
    assert await admin.fetchval(f"select {S}.enable_semantic_search()") == "enabled"
    assert await admin.fetchval(f"select {S}.enable_document_vectors()") == "enabled"
    assert await _foreign_objects(admin) == []
    assert await read_search_availability(conn) == SearchAvailability("semantic", None)
    await conn.close()

    pool = await create_pool(url)
    memory = semantic_memory(pool, model_server)
    try:  # the add's trigger inserts a vector row, the background pass fills it
        await remember(memory, model_server, "u1", "Prefers morning calls.")
        assert [v["embedded"] for v in await vectors(pool)] == [True]
        found = await memory.search("support", "when to call", mode="semantic")
        assert texts(found) == ["Prefers morning calls."]
    finally:
        await memory.aclose()
        await pool.close()

    # a database enabled before the fix: the vector table still the superuser's until an
    # administrator runs the enable function again
    await admin.execute(f"alter table {S}.memory_fact_vectors owner to current_user")
    role_conn = await asyncpg.connect(url)
    assert (await read_search_availability(role_conn)).reason == "vectors_not_writable"
    assert await admin.fetchval(f"select {S}.enable_semantic_search()") == "enabled"
    assert await _foreign_objects(admin) == []
    assert await read_search_availability(role_conn) == SearchAvailability("semantic", None)
    await role_conn.close()
    await admin.close()


_HNSW_MEMBERS = """
select format('operator class %I.%I using hnsw', n.nspname, c.opcname) as object
    from pg_opclass c join pg_am a on a.oid = c.opcmethod
    join pg_namespace n on n.oid = c.opcnamespace where a.amname = 'hnsw'
union all
select format('operator family %I.%I using hnsw', n.nspname, f.opfname)
    from pg_opfamily f join pg_am a on a.oid = f.opfmethod
    join pg_namespace n on n.oid = f.opfnamespace where a.amname = 'hnsw'"""


@pytest.fixture
async def without_hnsw(pg_admin_url: str) -> AsyncIterator[str]:
    """A database whose `vector` extension lacks the HNSW access method, as pgvector before 0.5
    (created as the superuser, the method then dropped from this database only)."""
    await _require_pgvector(pg_admin_url)
    name = "nohnsw_" + uuid.uuid4().hex[:10]
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f'create database "{name}"')
    url = with_database(pg_admin_url, name)
    conn = await asyncpg.connect(url)
    await conn.execute("create extension vector")
    for member in await conn.fetch(_HNSW_MEMBERS):  # out of the extension, else it goes too
        await conn.execute(f"alter extension vector drop {member['object']}")
    await conn.execute("alter extension vector drop access method hnsw")
    await conn.execute("drop access method hnsw cascade")
    await conn.close()
    yield url
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.close()


async def test_pgvector_without_hnsw_migrates_and_searches_lexical_only(
    without_hnsw: str, model_server: ModelServer
) -> None:
    conn = await asyncpg.connect(without_hnsw)
    assert await migrate(conn) == ALL
    assert await _capabilities(conn) == LEXICAL_CAPABILITIES
    assert await conn.fetchval(f"select {S}.enable_semantic_search()") == "vector_without_hnsw"
    assert await conn.fetchval(f"select {S}.enable_document_vectors()") == "vector_without_hnsw"
    assert await read_search_availability(conn) == SearchAvailability(
        "lexical", "vector_without_hnsw"
    )
    await conn.close()
    pool = await create_pool(without_hnsw)
    memory = semantic_memory(pool, model_server)
    try:
        await remember(memory, model_server, "u1", "Asked not to be called again.")
        result = await memory.search("support", "called")
        assert result.data is not None and result.data.mode == "lexical"
        assert texts(result) == ["Asked not to be called again."]
    finally:
        await memory.aclose()
        await pool.close()


async def test_start_up_and_healthz_say_search_is_lexical_and_why(
    without_hnsw: str, memory_config: MemoryConfig
) -> None:
    with structlog.testing.capture_logs() as logs:  # the worker's main process, before livekit
        await prepare_database(
            without_hnsw, Catalog(agents), migrations=LongOpLimits(), pool_limits=PoolTimeouts()
        )
    said = [e for e in logs if e["event"].startswith("search.")]
    assert said == [
        {
            "event": "search.lexical_only",
            "reason": "vector_without_hnsw",
            "see": "docs/deployment.md#your-own-postgres",
            "log_level": "warning",
        }
    ]
    pool = await create_pool(without_hnsw)
    app = create_app(pool=pool, catalog=Catalog(agents), api_keys=(), memory_config=memory_config)
    clients = AppClients()
    try:
        client = await clients.serve(app)
        for _ in range(2):  # read once, then kept
            response = await client.get("/healthz")
            assert (response.status, await response.json()) == (
                200,
                {
                    "status": "ok",
                    "database": "ok",
                    "search": "lexical",
                    "searchReason": "vector_without_hnsw",
                    "searchFix": fix_of("vector_without_hnsw"),
                },
            )
    finally:
        await clients.aclose()
        await pool.close()


async def test_the_web_process_starts_lexical_only_and_says_why(without_hnsw: str) -> None:
    """`python -m worker.http` on pgvector without HNSW: migrates, serves, one start-up line."""
    port = free_port()
    process = await start_web({"DATABASE_URL": without_hnsw, "PORT": str(port)})
    try:
        await wait_healthy(f"http://127.0.0.1:{port}/healthz")
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"http://127.0.0.1:{port}/healthz") as response,
        ):
            body = await response.json()
    finally:
        process.terminate()
        _, err = await asyncio.wait_for(process.communicate(), 30)
    assert (body["search"], body["searchReason"]) == ("lexical", "vector_without_hnsw")
    said = [line for line in err.decode().splitlines() if "search." in line]
    assert len(said) == 1 and "search.lexical_only" in said[0], said
    assert "vector_without_hnsw" in said[0]
    assert "Traceback" not in err.decode()
