"""Migration 0011 without pgvector: the tables exist, ingest and retrieve answer
`rag_unavailable` and write nothing; once `vector` exists, enabling gives them vectors. With
the embedded server (pgvector 0.8) chunk vectors have an HNSW index and iterative scans."""

from __future__ import annotations

import asyncpg

from infra.database import create_pool
from infra.migrate import migrate
from memory.documents import Documents
from testkit.model_server import ModelServer
from tests.documents.conftest import docs_config, row_counts
from tests.memory.test_search_schema import plain_url

__all__ = ["plain_url"]  # the fixture: a database owned by a role that cannot create `vector`


async def test_without_pgvector_documents_are_unavailable_until_enabled(
    plain_url: tuple[str, str], model_server: ModelServer
) -> None:
    url, superuser_url = plain_url
    conn = await asyncpg.connect(url)
    await migrate(conn)
    await conn.close()
    pool = await create_pool(url)
    docs = Documents(pool, docs_config(model_server))
    try:
        result = await docs.ingest(
            b"Returns within 30 days.", source="r", content_type="text/plain"
        )
        assert result.error is not None and result.error.code == "rag_unavailable"
        assert "enable_document_vectors" in result.error.message
        assert set((await row_counts(pool)).values()) == {0}
        admin = await asyncpg.connect(superuser_url)
        await admin.execute("create extension vector")
        await admin.close()
        enabled = await pool.fetchval("select stackbone_platform.enable_document_vectors()")
        assert enabled == "enabled"
        again = await docs.ingest(b"Returns within 30 days.", source="r", content_type="text/plain")
        assert again.data is not None and again.data.status == "ready"
        found = await docs.retrieve("returns")
        assert found.data is not None and len(found.data.hits) == 1
    finally:
        await docs.aclose()
        await pool.close()


async def test_chunk_vectors_have_an_hnsw_index_and_iterative_scans(pool: asyncpg.Pool) -> None:
    indexdef = await pool.fetchval(
        "select indexdef from pg_indexes where indexname = 'doc_chunks_nearest'"
    )
    assert "hnsw (embedding vector_cosine_ops)" in indexdef
    config = await pool.fetchval("select proconfig from pg_proc where proname = 'nearest_chunks'")
    assert config == ["enable_seqscan=off", "hnsw.iterative_scan=relaxed_order"]
    dimensions = await pool.fetchval(
        "select format_type(atttypid, atttypmod) from pg_attribute"
        " where attrelid = 'stackbone_platform.doc_chunks'::regclass and attname = 'embedding'"
    )
    assert dimensions == "vector(512)"
