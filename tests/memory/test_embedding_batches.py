"""A full embedding batch is accepted: the response's indexes are read as numbers, so a batch of
11 texts or more (index 10 sorts before 2 as a string) comes back whole and in input order."""

from __future__ import annotations

import asyncpg
import pytest

from memory.api import Memory
from memory.config import MemoryConfig
from memory.search._embeddings import EMBEDDING_DIMENSIONS, MAX_BATCH, EmbeddingModel, vectors
from testkit.model_server import ModelServer, bag_of_words
from tests.memory.search_helpers import EMBEDDING_MODEL, remember, semantic
from tests.memory.search_helpers import vectors as stored_vectors

__all__ = ["semantic"]  # fixture


def _answer(order: list[int]) -> dict[str, object]:
    data = [{"index": i, "embedding": [float(i + 1)] * EMBEDDING_DIMENSIONS} for i in order]
    return {"data": data}


def test_a_response_of_eleven_or_more_is_read_in_numeric_index_order() -> None:
    for count in (10, 11, 12, MAX_BATCH):
        shuffled = list(range(count))[::-1]
        literals = vectors(_answer(shuffled), count)
        assert [float(v[1:].split(",")[0]) for v in literals] == [i + 1.0 for i in range(count)]


async def test_a_full_batch_comes_back_in_input_order(model_server: ModelServer) -> None:
    config = MemoryConfig(
        base_url=model_server.url,
        api_key="test-key",
        timeout_seconds=5,
        embedding_model=EMBEDDING_MODEL,
        embedding_timeout_seconds=5,
    )
    model = EmbeddingModel(config)
    texts = [f"Fact number {i} about topic{i}." for i in range(MAX_BATCH)]
    try:
        literals = await model.embed(texts)
    finally:
        await model.aclose()
    assert [len(r["input"]) for r in model_server.embedding_requests] == [MAX_BATCH]
    expected = [bag_of_words(t, EMBEDDING_DIMENSIONS) for t in texts]
    assert [[float(x) for x in v[1:-1].split(",")] for v in literals] == expected


@pytest.mark.pgvector
async def test_semantic_search_fills_in_for_more_than_ten_facts(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    facts = [f"Likes colour number {i}." for i in range(12)]
    await remember(semantic, model_server, "u1", *facts)
    assert [len(r["input"]) for r in model_server.embedding_requests] == [12]
    assert [(v["content"], v["embedded"]) for v in await stored_vectors(pool)] == [
        (f, True) for f in facts
    ]
