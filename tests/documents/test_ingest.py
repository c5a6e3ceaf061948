"""Ingest, status, replace, delete and the model rules, against Postgres and the local
embeddings server, with real PDF, Markdown and HTML files made here."""

from __future__ import annotations

import asyncpg
import pytest

from memory.documents import CHUNK_CHARS, Documents
from memory.documents._store import WRITE_BATCH
from testkit.model_server import ModelServer
from tests.documents.conftest import (
    S,
    docs_config,
    html_file,
    markdown_file,
    pdf_file,
    row_counts,
)

RETURNS = "Items can be returned within thirty days of delivery for a full refund."
SHIPPING = "Standard shipping takes three to five working days across the mainland."
WARRANTY = "Every kettle carries a two year warranty against manufacturing faults."


async def test_a_pdf_is_ingested_ready_with_its_metadata_and_original(
    documents: Documents, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    pdf = pdf_file(RETURNS, SHIPPING)
    result = await documents.ingest(
        pdf, source="policies/returns.pdf", content_type="application/pdf", namespace="help"
    )
    assert result.error is None, result.error
    doc = result.data
    assert doc is not None
    assert (doc.status, doc.error_code, doc.namespace) == ("ready", None, "help")
    assert (doc.title, doc.source, doc.content_type) == (
        "Returns policy",  # the PDF's own title
        "policies/returns.pdf",
        "application/pdf",
    )
    assert (doc.bytes, doc.chunk_count, doc.model) == (len(pdf), 1, "test-embedding")
    original = await documents.original(doc.id)
    assert original.data is not None and original.data.body == pdf
    [chunk] = await pool.fetch(f"select content from {S}.doc_chunks")
    assert "thirty days" in chunk["content"] and "five working days" in chunk["content"]
    [request] = model_server.embedding_requests
    assert request["model"] == "test-embedding" and request["dimensions"] == 512
    [collection] = (await documents.collections()).data or ()
    assert (collection.namespace, collection.embedding_model, collection.dimensions) == (
        "help",
        "test-embedding",
        512,
    )


async def test_markdown_and_html_are_read_as_text_with_their_titles(
    documents: Documents, pool: asyncpg.Pool
) -> None:
    md = await documents.ingest(
        markdown_file("Shipping", SHIPPING), source="shipping.md", content_type="text/markdown"
    )
    html = await documents.ingest(
        html_file("Warranty", WARRANTY),
        source="https://help.example.test/warranty",
        content_type="text/html; charset=utf-8",
    )
    assert md.data is not None and html.data is not None
    assert (md.data.title, md.data.namespace) == ("Shipping", "default")
    assert (html.data.title, html.data.content_type) == ("Warranty", "text/html")
    contents = [r["content"] for r in await pool.fetch(f"select content from {S}.doc_chunks")]
    assert any(WARRANTY in c for c in contents)
    assert not any("secret" in c or "color" in c for c in contents)  # no script, no style


async def test_a_long_document_is_chunked_and_embedded_in_batches(
    documents: Documents, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    text = " ".join(f"word{i}" for i in range(20_000))  # ~129k characters
    result = await documents.ingest(text.encode(), source="long.txt", content_type="text/plain")
    assert result.data is not None, result.error
    count = result.data.chunk_count
    assert count > 64  # more than one batch
    assert [len(r["input"]) for r in model_server.embedding_requests] == [64] * (count // 64) + (
        [count % 64] if count % 64 else []
    )
    seqs = [r["seq"] for r in await pool.fetch(f"select seq from {S}.doc_chunks order by seq")]
    assert seqs == list(range(count))
    longest = await pool.fetchval(f"select max(length(content)) from {S}.doc_chunks")
    assert longest <= CHUNK_CHARS


async def test_a_document_past_one_write_slice_keeps_every_chunk_in_order(
    documents: Documents, pool: asyncpg.Pool
) -> None:
    """Chunks are written in slices of `WRITE_BATCH` rows (each statement inside the statement
    timeout), in one transaction; positions run on across slices."""
    text = " ".join(f"w{i:06d}" for i in range(60_000))  # ~480k characters, > 500 chunks
    result = await documents.ingest(text.encode(), source="big.txt", content_type="text/plain")
    assert result.data is not None, result.error
    count = result.data.chunk_count
    assert count > WRITE_BATCH
    rows = await pool.fetch(f"select seq, content from {S}.doc_chunks order by seq")
    assert [r["seq"] for r in rows] == list(range(count))
    firsts = [int(r["content"].split()[0].lstrip("w")) for r in rows]
    assert firsts == sorted(firsts)  # the text's order, across the slices


async def test_re_ingesting_a_source_replaces_it_and_a_failed_one_keeps_the_old(
    documents: Documents, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    first = await documents.ingest(RETURNS.encode(), source="returns", content_type="text/plain")
    assert first.data is not None
    model_server.fail_embedding(500)
    failed = await documents.ingest(SHIPPING.encode(), source="returns", content_type="text/plain")
    assert failed.error is not None and failed.error.code == "rag_model_failed"
    listed = (await documents.documents()).data or ()
    assert [(d.status, d.error_code) for d in listed] == [
        ("ready", None),
        ("failed", "rag_model_failed"),
    ]
    found = await documents.retrieve("refund returned", 3)
    assert found.data is not None and [h.content for h in found.data.hits] == [RETURNS]

    second = await documents.ingest(WARRANTY.encode(), source="returns", content_type="text/plain")
    assert second.data is not None and second.data.status == "ready"
    listed = (await documents.documents()).data or ()
    assert [d.id for d in listed] == [second.data.id]  # the old and the failed one are gone
    contents = [r["content"] for r in await pool.fetch(f"select content from {S}.doc_chunks")]
    assert contents == [WARRANTY]
    assert await pool.fetchval(f"select count(*) from {S}.doc_originals") == 1


async def test_delete_leaves_nothing_in_any_table(documents: Documents, pool: asyncpg.Pool) -> None:
    result = await documents.ingest(
        pdf_file(RETURNS), source="r.pdf", content_type="application/pdf"
    )
    assert result.data is not None
    before = await row_counts(pool)
    assert before == {"doc_collections": 1, "doc_documents": 1, "doc_originals": 1, "doc_chunks": 1}
    deleted = await documents.delete(result.data.id)
    assert deleted.data is not None and deleted.data.id == result.data.id
    after = await row_counts(pool)
    assert after == {**before, "doc_documents": 0, "doc_originals": 0, "doc_chunks": 0}
    again = await documents.delete(result.data.id)
    assert again.error is not None and again.error.code == "rag_not_found"


@pytest.mark.parametrize(
    ("body", "content_type", "code", "field"),
    [
        (b"", "text/plain", "rag_invalid_request", "document"),
        (b"\xff\xfe not utf-8", "text/plain", "rag_unreadable_document", "document"),
        (b"a\x00b", "text/markdown", "rag_unreadable_document", "document"),
        (b"hello", "application/msword", "rag_unsupported_type", "content_type"),
        (b"hello", "", "rag_unsupported_type", "content_type"),
        (b"not a pdf", "application/pdf", "rag_unreadable_document", "document"),
        (b"%PDF-1.4 then garbage", "application/pdf", "rag_unreadable_document", "document"),
        (b"<html><script>x()</script></html>", "text/html", "rag_unreadable_document", "document"),
        (b"   \n ", "text/plain", "rag_unreadable_document", "document"),
    ],
)
async def test_a_bad_document_is_refused_naming_the_rule_and_leaves_nothing(
    documents: Documents,
    pool: asyncpg.Pool,
    model_server: ModelServer,
    *,
    body: bytes,
    content_type: str,
    code: str,
    field: str,
) -> None:
    result = await documents.ingest(body, source="bad", content_type=content_type)
    assert result.error is not None
    assert (result.error.code, result.error.field) == (code, field)
    assert set((await row_counts(pool)).values()) == {0}
    assert model_server.embedding_requests == []


async def test_size_limit_at_and_past(documents: Documents, pool: asyncpg.Pool) -> None:
    from memory.documents import MAX_DOCUMENT_BYTES

    past = b"a " * (MAX_DOCUMENT_BYTES // 2) + b"a"
    result = await documents.ingest(past, source="big", content_type="text/plain")
    assert result.error is not None and result.error.code == "rag_too_large"
    assert set((await row_counts(pool)).values()) == {0}


@pytest.mark.parametrize(
    ("namespace", "ok"),
    [("a", True), ("a" * 63, True), ("a" * 64, False), ("Help", False), ("-x", False)],
)
async def test_namespace_rule_at_and_past(documents: Documents, namespace: str, ok: bool) -> None:
    result = await documents.ingest(
        b"text", source="s", content_type="text/plain", namespace=namespace
    )
    assert (result.error is None) is ok
    if not ok:
        assert result.error is not None and result.error.field == "namespace"


async def test_another_model_is_refused_for_ingest_and_query(
    documents: Documents, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    assert (await documents.ingest(b"text", source="s", content_type="text/plain")).data
    other = Documents(pool, docs_config(model_server, "other-embedding"))
    try:
        sent = len(model_server.embedding_requests)
        ingest = await other.ingest(b"more", source="t", content_type="text/plain")
        query = await other.retrieve("text")
        for refused in (ingest, query):
            assert refused.error is not None and refused.error.code == "rag_model_mismatch"
            assert "test-embedding" in refused.error.message
            assert "other-embedding" in refused.error.message
        assert len(model_server.embedding_requests) == sent  # refused before asking
    finally:
        await other.aclose()
    assert await pool.fetchval(f"select count(*) from {S}.doc_documents") == 1


async def test_a_provider_vector_of_another_dimension_is_refused(
    documents: Documents, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    vector = ",".join(["0.1"] * 1536)
    model_server.answer_embedding_raw('{"data": [{"index": 0, "embedding": [' + vector + "]}]}")
    result = await documents.ingest(b"text", source="s", content_type="text/plain")
    assert result.error is not None and result.error.code == "rag_model_failed"
    assert "1536 dimensions" in result.error.message and "512" in result.error.message
    assert await pool.fetchval(f"select count(*) from {S}.doc_chunks") == 0
    [doc] = (await documents.documents()).data or ()
    assert (doc.status, doc.error_code) == ("failed", "rag_model_failed")


async def test_without_an_embedding_model_documents_are_unavailable(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    docs = Documents(pool, docs_config(model_server, None))
    try:
        result = await docs.ingest(b"text", source="s", content_type="text/plain")
        assert result.error is not None and result.error.code == "rag_unavailable"
        assert "STACKBONE_MEMORY_EMBEDDING_MODEL" in result.error.message
    finally:
        await docs.aclose()


async def test_background_ingest_answers_pending_then_becomes_ready(
    documents: Documents, model_server: ModelServer
) -> None:
    model_server.embedding_delay = 0.3
    result = await documents.ingest(
        RETURNS.encode(), source="r", content_type="text/plain", wait=False
    )
    assert result.data is not None and result.data.status == "pending"
    await documents.drain()
    done = await documents.document(result.data.id)
    assert done.data is not None and done.data.status == "ready"
