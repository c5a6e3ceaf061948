"""retrieve: the query embedded once, hits with content, a score in [0, 1], the document's
metadata and the model; every limit at and past it; failures as `rag_*` codes."""

from __future__ import annotations

import logging

import pytest

from memory.documents import MAX_QUERY_CHARS, MAX_TOP_K, Documents
from testkit.model_server import ModelServer

ARTICLES = {
    "returns.md": "Items can be returned within thirty days of delivery for a full refund.",
    "shipping.md": "Standard shipping takes three to five working days across the mainland.",
    "warranty.md": "Every kettle carries a two year warranty against manufacturing faults.",
}


async def seed(documents: Documents) -> None:
    for source, text in ARTICLES.items():
        result = await documents.ingest(
            text.encode(), source=source, content_type="text/markdown", namespace="help-center"
        )
        assert result.data is not None, result.error


async def test_the_closest_chunk_comes_first_with_score_metadata_and_model(
    documents: Documents, model_server: ModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    await seed(documents)
    sent = len(model_server.embedding_requests)
    caplog.set_level(logging.DEBUG)
    query = "how many days to return items for a refund"
    result = await documents.retrieve(query, 3, "help-center")
    assert result.data is not None, result.error
    assert len(model_server.embedding_requests) == sent + 1  # embedded once
    assert (result.data.namespace, result.data.model) == ("help-center", "test-embedding")
    hits = result.data.hits
    assert hits[0].document.source == "returns.md"
    assert len(hits) == 3
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].score > hits[1].score
    assert hits[0].content == ARTICLES["returns.md"] and hits[0].chunk == 0
    assert (hits[0].document.status, hits[0].document.model) == ("ready", "test-embedding")
    logged = " ".join(r.getMessage() + repr(vars(r)) for r in caplog.records)
    assert "refund" not in logged and "thirty" not in logged  # no query, no chunk text


async def test_an_identical_text_scores_one(documents: Documents) -> None:
    await seed(documents)
    result = await documents.retrieve(ARTICLES["warranty.md"], 1, "help-center")
    assert result.data is not None
    assert result.data.hits[0].score == pytest.approx(1.0)


async def test_top_k_and_text_limits_at_and_past(documents: Documents) -> None:
    await seed(documents)
    ok = await documents.retrieve("x" * MAX_QUERY_CHARS, MAX_TOP_K, "help-center")
    assert ok.data is not None and len(ok.data.hits) == 3
    for text, k, field in [
        ("x" * (MAX_QUERY_CHARS + 1), 3, "text"),
        ("  ", 3, "text"),
        (5, 3, "text"),
        ("refund", 0, "top_k"),
        ("refund", MAX_TOP_K + 1, "top_k"),
        ("refund", True, "top_k"),
    ]:
        refused = await documents.retrieve(text, k, "help-center")
        assert refused.error is not None, (text, k)
        assert (refused.error.code, refused.error.field) == ("rag_invalid_request", field)


async def test_an_unknown_collection_and_a_failing_model_are_coded(
    documents: Documents, model_server: ModelServer
) -> None:
    missing = await documents.retrieve("refund", 3, "nowhere")
    assert missing.error is not None and missing.error.code == "rag_not_found"
    await seed(documents)
    model_server.fail_embedding(503)
    failed = await documents.retrieve("refund", 3, "help-center")
    assert failed.error is not None and failed.error.code == "rag_model_failed"
