"""An ingest's failure names its real cause: the database's own failure after the model answered
is `rag_persist_failed`, never `rag_model_failed` (which stays the provider's)."""

from __future__ import annotations

import asyncpg

from memory.documents import Documents
from testkit.model_server import ModelServer
from tests.documents.conftest import S

REFUSE_TOUCH = f"""
create function {S}.refuse_touch() returns trigger language plpgsql as $$
begin raise exception 'the database refuses this write'; end $$;
create trigger refuse_touch before update on {S}.doc_documents for each row
    when (old.status = 'pending' and new.status = 'pending') execute function {S}.refuse_touch();
"""


async def test_a_database_failure_after_the_model_answered_is_not_the_models(
    documents: Documents, pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    """The touch after the embeddings answer fails in the database (a trigger refuses it, as a
    frozen server's timeout would): the document ends `failed` with the database's code."""
    await pool.execute(REFUSE_TOUCH)  # the status change to `failed` still passes
    result = await documents.ingest(
        b"Refunds within thirty days.", source="r", content_type="text/plain"
    )
    assert result.error is not None
    assert (result.error.code, result.error.message) == (
        "rag_persist_failed",
        "document status failed: RaiseError",
    )
    assert model_server.embeddings_answered == 1  # the model answered
    [listed] = (await documents.documents()).data or ()
    assert (listed.status, listed.error_code) == ("failed", "rag_persist_failed")


async def test_a_failed_embeddings_request_is_still_the_models(
    documents: Documents, model_server: ModelServer
) -> None:
    model_server.fail_embedding(500)
    result = await documents.ingest(
        b"Refunds within thirty days.", source="r", content_type="text/plain"
    )
    assert result.error is not None and result.error.code == "rag_model_failed"
