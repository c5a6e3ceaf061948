"""Ingests cut short: a document left `pending` by a stopped ingest is ingested again from its
kept original by a recovery pass, a live one is left alone, and one cut too often is `failed`
with `rag_ingest_interrupted`."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from memory.documents import INTERRUPTED, MAX_RECOVERIES, Documents, step_for
from memory.documents._store import Abandoned, Claimed
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.documents.conftest import S, docs_config
from tests.waiting import eventually

TEXT = b"Returns: items can be sent back within thirty days of delivery for a full refund."


async def embedding_asked(server: ModelServer, before: int) -> None:
    await wait_until(lambda: len(server.embedding_requests) > before, within=20)


async def cut_ingest(pool: asyncpg.Pool, server: ModelServer) -> str:
    """An ingest in the background, cut off (cancelled) while its embeddings are awaited."""
    server.embedding_delay = 3.0
    docs = Documents(pool, docs_config(server))
    before = len(server.embedding_requests)
    started = await docs.ingest(TEXT, source="returns.md", content_type="text/plain", wait=False)
    assert started.data is not None, started.error
    await embedding_asked(server, before)
    await docs.aclose(grace_seconds=0)  # the shutdown's drain ran out: the ingest is cut
    server.embedding_delay = 0.0
    return started.data.id


async def status(pool: asyncpg.Pool, doc: str) -> tuple[str, str | None, int]:
    row = await pool.fetchrow(
        f"select status, error_code, ingest_attempts from {S}.doc_documents where id = $1::uuid",
        doc,
    )
    assert row is not None
    return row[0], row[1], row[2]


async def test_a_cut_ingest_is_ingested_again_from_its_original(
    pool: asyncpg.Pool, documents: Documents, model_server: ModelServer
) -> None:
    doc = await cut_ingest(pool, model_server)
    assert await status(pool, doc) == ("pending", None, 0)
    untouched = await documents.recover(stale_seconds=60)  # not stale yet: left alone
    assert untouched.data is not None and (untouched.data.ready, untouched.data.failed) == (0, 0)
    recovered = await documents.recover(stale_seconds=0)
    assert recovered.data is not None, recovered.error
    assert (recovered.data.ready, recovered.data.failed) == (1, 0)
    assert await status(pool, doc) == ("ready", None, 1)
    found = await documents.retrieve("sent back within thirty days", 1)
    assert found.data is not None and found.data.hits[0].document.id == doc
    again = await documents.recover(stale_seconds=0)  # nothing left pending
    assert again.data is not None and (again.data.ready, again.data.failed) == (0, 0)


async def test_an_ingest_under_way_touches_its_document_after_each_batch(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    model_server.embedding_delay = 0.3
    docs = Documents(pool, docs_config(model_server))
    text = " ".join(f"word{i}" for i in range(20_000)).encode()  # more than one batch of 64
    started = await docs.ingest(text, source="long.txt", content_type="text/plain", wait=False)
    assert started.data is not None, started.error
    await wait_until(lambda: model_server.embeddings_answered >= 1, within=20)

    async def touched() -> tuple[int] | None:  # and how many batches were answered before
        answered = model_server.embeddings_answered
        found = await pool.fetchval(
            f"select updated_at > created_at from {S}.doc_documents where id = $1::uuid",
            started.data.id if started.data else None,
        )
        return (answered,) if found else None

    try:
        (answered,) = await eventually(touched, "the document touched", every=0.01)
    finally:
        await docs.aclose(grace_seconds=0)
    assert answered == 1  # touched after the first batch, while the next one was embedded


async def test_a_document_cut_past_the_recoveries_allowed_is_failed_with_a_code(
    pool: asyncpg.Pool, documents: Documents, model_server: ModelServer
) -> None:
    doc = await cut_ingest(pool, model_server)
    model_server.embedding_delay = 3.0
    for attempt in range(1, MAX_RECOVERIES + 1):  # each recovery is cut in turn
        before = len(model_server.embedding_requests)
        task = asyncio.create_task(documents.recover(stale_seconds=0))
        await embedding_asked(model_server, before)
        task.cancel()
        await asyncio.wait({task})
        assert await status(pool, doc) == ("pending", None, attempt)
    model_server.embedding_delay = 0.0
    settled = await documents.recover(stale_seconds=0)
    assert settled.data is not None and (settled.data.ready, settled.data.failed) == (0, 1)
    assert await status(pool, doc) == ("failed", INTERRUPTED, MAX_RECOVERIES + 1)


async def test_a_failure_while_ingesting_again_marks_the_document_with_its_code(
    pool: asyncpg.Pool, documents: Documents, model_server: ModelServer
) -> None:
    doc = await cut_ingest(pool, model_server)
    model_server.fail_embedding(500)
    settled = await documents.recover(stale_seconds=0)
    assert settled.data is not None and (settled.data.ready, settled.data.failed) == (0, 1)
    assert await status(pool, doc) == ("failed", "rag_model_failed", 1)


ORIGINAL = Abandoned("default", "a.md", "A", "text/plain", b"x")


@pytest.mark.parametrize(
    ("attempts", "original", "step"),
    [
        (1, ORIGINAL, "ingest"),
        (MAX_RECOVERIES, ORIGINAL, "ingest"),  # at the limit
        (MAX_RECOVERIES + 1, ORIGINAL, "fail"),  # past it
        (1, None, "skip"),  # deleted or finished meanwhile
    ],
)
def test_the_step_for_a_claimed_document(
    attempts: int, original: Abandoned | None, step: str
) -> None:
    assert step_for(Claimed("d", attempts, original)) == step
