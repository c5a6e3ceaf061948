"""`/healthz`, a search's answer and a document upload's error name the same reason for each
state of the database and configuration, each with the fix of `memory.search.REASONS`; and
`/healthz` is 503 `degraded` when memory writes cannot succeed (the fact vectors owned by
another role, a privilege revoked), on the real server with a role that is no superuser."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from infra.database import PoolTimeouts, create_pool
from infra.migrate import migrate
from memory.config import MemoryConfig
from memory.search import REASONS, fix_of
from testkit.model_server import ModelServer
from tests.api.conftest import auth, build_catalog
from tests.memory.helpers import add_op
from tests.memory.search_helpers import EMBEDDING_MODEL, semantic_memory
from tests.memory.test_own_postgres import without_hnsw  # noqa: F401 (a fixture)
from tests.role_databases import RoleDatabase, role_database  # noqa: F401 (a fixture)
from tests.web_clients import AppClients, Client
from worker.http.server.auth import ApiKey
from worker.http.web import create_app

S = "stackbone_platform"
SEARCH = "/api/memory/customers/support/search"
UPLOAD = "/api/documents/collections/help-center/documents"


def _config(server: ModelServer, model: str | None = EMBEDDING_MODEL) -> MemoryConfig:
    return MemoryConfig(
        base_url=server.url,
        api_key="test-key",
        timeout_seconds=5,
        embedding_model=model,
        embedding_timeout_seconds=5,
    )


@pytest.fixture
async def serve(api_keys: tuple[ApiKey, ...], pool_timeouts: PoolTimeouts) -> AsyncIterator[Any]:
    """Serves the API over a pool to `url` (closed after the test; behind PgBouncer with
    `--through-pgbouncer`, as the suite's own pool is)."""
    clients, pools = AppClients(), []

    async def start(url: str, config: MemoryConfig) -> Client:
        pool = await create_pool(url, timeouts=pool_timeouts)
        pools.append(pool)
        app = create_app(
            pool=pool, catalog=build_catalog(), api_keys=api_keys, memory_config=config
        )
        return await clients.serve(app)

    yield start
    await clients.aclose()
    for pool in pools:
        await pool.close()


async def _answers(client: Client) -> tuple[Any, Any, Any]:
    """(`/healthz`, a hybrid search, a document upload): status and body of each."""
    health = await client.get("/healthz")
    found = await client.post(SEARCH, json={"query": "cat"}, headers=auth("admin"))
    uploaded = await client.post(
        UPLOAD,
        params={"source": "returns"},
        data=b"Returns within 30 days.",
        headers={**auth("admin"), "Content-Type": "text/plain"},
    )
    return (
        (health.status, await health.json()),
        (found.status, await found.json()),
        (uploaded.status, await uploaded.json()),
    )


def _assert_same_reason(answers: tuple[Any, Any, Any], reason: str) -> None:
    (h_status, health), (s_status, found), (d_status, doc) = answers
    assert (h_status, health["status"]) == (200, "ok")
    assert (health["search"], health["searchReason"]) == ("lexical", reason)
    assert health["searchFix"] == fix_of(reason)
    assert (s_status, found["mode"], found["reason"]) == (200, "lexical", reason)
    assert (d_status, doc["error"]["code"]) == (503, "rag_unavailable")
    message = doc["error"]["message"]
    assert message.startswith(f"{reason}: ") and fix_of(reason) in message


async def test_without_enabled_vectors_every_answer_says_semantic_search_not_enabled(
    role_database: RoleDatabase,  # noqa: F811 (the imported fixture)
    model_server: ModelServer,
    serve: Any,
) -> None:
    if not await role_database.has_pgvector():
        pytest.skip("needs pgvector on the test server")
    client = await serve(role_database.url, _config(model_server))
    _assert_same_reason(await _answers(client), "semantic_search_not_enabled")


async def test_pgvector_without_hnsw_every_answer_says_vector_without_hnsw(
    without_hnsw: str,  # noqa: F811 (the imported fixture)
    model_server: ModelServer,
    serve: Any,
) -> None:
    conn = await asyncpg.connect(without_hnsw)
    await migrate(conn)
    await conn.close()
    client = await serve(without_hnsw, _config(model_server))
    _assert_same_reason(await _answers(client), "vector_without_hnsw")
    assert "enable_document_vectors" not in REASONS["vector_without_hnsw"].meaning


@pytest.mark.pgvector
async def test_without_an_embedding_model_every_answer_says_so(
    database_url: str, model_server: ModelServer, serve: Any
) -> None:
    client = await serve(database_url, _config(model_server, model=None))
    _assert_same_reason(await _answers(client), "embedding_model_not_configured")


async def test_unwritable_fact_vectors_make_healthz_503_degraded(
    role_database: RoleDatabase,  # noqa: F811 (the imported fixture)
    model_server: ModelServer,
    serve: Any,
) -> None:
    """A vector table of another role: every memory write fails, and `/healthz` says so."""
    if not await role_database.has_pgvector():
        pytest.skip("needs pgvector on the test server")
    await role_database.as_superuser(
        "create extension vector",
        f"select {S}.enable_semantic_search()",
        f"select {S}.enable_document_vectors()",
        f'alter table {S}.memory_fact_vectors owner to "{role_database.admin}"',
    )
    client = await serve(role_database.url, _config(model_server))
    (h_status, health), (s_status, found), (d_status, _) = await _answers(client)
    assert (h_status, health["status"], health["database"]) == (503, "degraded", "ok")
    assert (health["reason"], health["fix"]) == (
        "vectors_not_writable",
        fix_of("vectors_not_writable"),
    )
    assert "enable_semantic_search()" in health["fix"]
    assert (health["search"], health["searchReason"]) == ("lexical", "vectors_not_writable")
    assert (s_status, found["reason"]) == (200, "vectors_not_writable")
    assert d_status == 202  # documents have their own vectors, still the role's
    pool = await create_pool(role_database.url)
    memory = semantic_memory(pool, model_server)
    try:  # what `degraded` warns of: the write fails
        model_server.answer([add_op("Prefers mornings.")], "Talked.")
        result = await memory.add("Call me in the morning.", "support", "u1")
        assert result.error is not None and result.error.code == "memory_persist_failed"
    finally:
        await memory.aclose()
        await pool.close()


async def test_a_revoked_privilege_makes_healthz_503_degraded_naming_it(
    role_database: RoleDatabase,  # noqa: F811 (the imported fixture)
    model_server: ModelServer,
    serve: Any,
) -> None:
    await role_database.as_superuser(
        f'alter table {S}.memory_facts owner to "{role_database.admin}"'
    )
    client = await serve(role_database.url, _config(model_server))
    response = await client.get("/healthz")
    body = await response.json()
    assert (response.status, body["status"], body["reason"]) == (
        503,
        "degraded",
        "privilege_missing",
    )
    assert body["fix"] == fix_of("privilege_missing")
