"""A collection's language (migration 0023): found from its first document that shows one, by
the Postgres Snowball stop list holding the most distinct words of it (at least 5), and used to
leave the query's stop words out of the text list."""

from __future__ import annotations

import asyncpg
import pytest

from memory.documents import Documents
from memory.documents._store import DocumentStore

S = "stackbone_platform"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("the cat of a dog is in", "english"),  # 5 distinct English stop words: the limit
        ("the cat of a dog", None),  # 4: past it, no language
        ("el gato de la casa y los perros", "spanish"),
        ("SKU-52445-B 180 euros SKU-94264-B 182 euros", None),  # a price list
        ("", None),
    ],
)
async def test_a_text_shows_its_language_by_at_least_five_distinct_stop_words(
    pool: asyncpg.Pool, text: str, language: str | None
) -> None:
    assert await pool.fetchval(f"select {S}.text_language($1)", text) == language


async def language_of(documents: Documents, namespace: str) -> str | None:
    found: str | None = await documents.pool.fetchval(
        f"select language from {S}.doc_collections where namespace = $1", namespace
    )
    return found


async def test_a_collection_takes_the_language_of_its_first_document_that_shows_one(
    documents: Documents,
) -> None:
    async def ingest(source: str, text: str) -> None:
        done = await documents.ingest(
            text.encode(), source=source, content_type="text/plain", namespace="shop"
        )
        assert done.data is not None, done.error

    await ingest("prices.txt", "SKU-52445-B kettle 180 euros. SKU-94264-B toaster 182 euros.")
    assert await language_of(documents, "shop") is None
    await ingest(
        "returns.txt", "Items can be sent back within thirty days of the delivery for a refund."
    )
    assert await language_of(documents, "shop") == "english"
    await ingest(
        "es.txt", "Los productos se pueden devolver en los treinta días de la entrega y el envío."
    )
    assert await language_of(documents, "shop") == "english"  # the first one stays


async def test_the_query_keeps_its_stop_words_while_the_language_is_unknown(
    documents: Documents,
) -> None:
    done = await documents.ingest(
        b"what what what kettle", source="a.txt", content_type="text/plain", namespace="shop"
    )
    assert done.data is not None, done.error
    assert await language_of(documents, "shop") is None
    collection: int = await documents.pool.fetchval(
        f"select id from {S}.doc_collections where namespace = 'shop'"
    )
    [hit] = await DocumentStore(documents.pool).lexical(collection, "what", 5)
    assert hit.document.source == "a.txt"  # no language: "what" is a word like any other
