"""The search index stays exact: updates and erasures leave no stale text or vector behind;
embeddings are computed after the save, never retried, and filled in later after a failure."""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest

from memory.api import Memory
from memory.search._store import RESET_BATCH, SearchStore
from testkit.model_server import ModelServer
from tests.memory.helpers import update_op
from tests.memory.search_helpers import (
    EMBEDDING_MODEL,
    contacts,
    remember,
    semantic,
    semantic_memory,
    texts,
    vectors,
)

pytestmark = pytest.mark.pgvector  # every test here reads or writes fact vectors

__all__ = ["semantic"]  # fixture


async def test_vectors_are_computed_after_the_save_in_one_request(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await remember(semantic, model_server, "u1", "Has a cat.", "Lives in Madrid.")
    assert [sorted(r["input"]) for r in model_server.embedding_requests] == [
        ["Has a cat.", "Lives in Madrid."]
    ]
    assert [(v["content"], v["model"], v["embedded"]) for v in await vectors(pool)] == [
        ("Has a cat.", EMBEDDING_MODEL, True),
        ("Lives in Madrid.", EMBEDDING_MODEL, True),
    ]


async def test_an_update_leaves_no_stale_text_or_vector(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await remember(semantic, model_server, "u1", "Lives in Madrid.", "Has a cat.")
    before = await semantic.search("support", "Lives in Madrid.", mode="semantic", k=1)
    assert before.data is not None and before.data.items[0].score > 0.99
    fact_id = before.data.items[0].id
    await semantic.drain_indexing()  # the pass that search scheduled
    model_server.fail_embedding()  # the update's pass fails: the fact has no vector for now
    model_server.answer([update_op("f1", "Moved to Sevilla.")], "Moved.")
    assert (await semantic.add("I moved", "support", "u1")).error is None
    await semantic.drain_indexing()
    assert [(v["content"], v["embedded"]) for v in await vectors(pool)] == [
        ("Moved to Sevilla.", False),
        ("Has a cat.", True),
    ]
    stale = await semantic.search("support", "Lives in Madrid.", mode="semantic")
    assert fact_id not in [h.id for h in stale.data.items]  # type: ignore[union-attr]
    await semantic.drain_indexing()  # that search's own pass fills the vector in
    assert texts(await semantic.search("support", "madrid", mode="lexical")) == []
    assert texts(await semantic.search("support", "sevilla", mode="lexical")) == [
        "Moved to Sevilla."
    ]
    after = await semantic.search("support", "Moved to Sevilla.", mode="semantic", k=1)
    assert after.data is not None
    assert (after.data.items[0].id, after.data.items[0].text) == (fact_id, "Moved to Sevilla.")
    assert after.data.items[0].score > 0.99
    old = await semantic.search("support", "Lives in Madrid.", mode="semantic")
    assert all(h.score < 0.5 for h in old.data.items)  # type: ignore[union-attr]


async def test_delete_all_leaves_nothing_to_find(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await remember(semantic, model_server, "+34 600", "Has a cat.", "Vegetarian.")
    await remember(semantic, model_server, "other", "Has a cat too.")
    assert (await semantic.delete_all("support", "+34 600")).error is None
    for mode in ("lexical", "semantic", "hybrid"):
        assert "+34 600" not in contacts(await semantic.search("support", "cat", mode=mode))
        assert texts(await semantic.search("support", "cat", "+34 600", mode=mode)) == []
    assert contacts(await semantic.search("support", "+34", mode="identifier")) == []
    assert await vectors(pool, "+34 600") == []
    leftovers = await pool.fetchval(
        "select count(*) from stackbone_platform.memory_facts where user_id = '+34 600'"
    )
    assert leftovers == 0


async def test_a_vector_computed_from_old_content_never_lands(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """A pass that read a fact before an update commits cannot store the old content's vector."""
    model_server.fail_embedding()
    await remember(semantic, model_server, "u1", "Lives in Madrid.")
    store = SearchStore(pool)
    pending = await store.pending(10)
    assert [p.content for p in pending] == ["Lives in Madrid."]
    await pool.execute(
        "update stackbone_platform.memory_facts set content = 'Lives in Lima.', updated_at = now()"
    )
    stale = "[" + ",".join(["0.04"] * 512) + "]"
    assert await store.store_vectors(EMBEDDING_MODEL, pending, [stale]) == 0
    assert [(v["content"], v["embedded"]) for v in await vectors(pool)] == [
        ("Lives in Lima.", False)
    ]


async def test_a_failed_embedding_never_fails_the_save_and_is_filled_in_later(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.fail_embedding(500)
    await remember(semantic, model_server, "u1", "Asked not to be called again.")
    assert len(model_server.embedding_requests) == 1  # never retried
    assert [v["embedded"] for v in await vectors(pool)] == [False]
    # searchable by text at once; semantically once a later pass (here: the one the first
    # search schedules after answering) fills the vector in
    assert texts(await semantic.search("support", "called", mode="semantic")) == []
    assert texts(await semantic.search("support", "called", mode="lexical")) == [
        "Asked not to be called again."
    ]
    await semantic.drain_indexing()
    assert [v["embedded"] for v in await vectors(pool)] == [True]
    assert texts(await semantic.search("support", "who asked not to be called", mode="semantic"))


@pytest.mark.parametrize(
    "body",
    [
        '{"object": "list", "data": [{"index": 0, "embedding": [1]}]}',  # 1 dimension
        '{"error": {"message": "no"}}',  # no data at all
        '{"object": "list", "data": []}',  # no vector for the input
        '{"object": "list", "data": [{"index": 0, "embedding": "abc"}]}',
    ],
)
async def test_a_malformed_answer_is_refused_and_logged(
    semantic: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    caplog: pytest.LogCaptureFixture,
    body: str,
) -> None:
    caplog.set_level(logging.INFO)
    model_server.answer_embedding_raw(body)
    await remember(semantic, model_server, "u1", "Has a cat.")
    assert [v["embedded"] for v in await vectors(pool)] == [False]
    events = [r for r in caplog.records if r.getMessage().startswith("memory.embedding")]
    assert [(r.getMessage(), vars(r)["error_code"]) for r in events] == [
        ("memory.embedding_pass_failed", "memory_invalid_model_output")
    ]


async def test_a_slow_provider_never_blocks_the_save(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.fail_embedding(500, delay=3)  # answered long after the save returned
    model_server.answer([{"op": "add", "handle": None, "content": "Has a cat."}], "Talked.")
    started = asyncio.get_running_loop().time()
    assert (await semantic.add("hi", "support", "u1")).error is None
    assert asyncio.get_running_loop().time() - started < 3
    assert [v["embedded"] for v in await vectors(pool)] == [False]
    await semantic.drain_indexing()


async def test_query_embedding_failure_falls_back_to_text_in_hybrid_only(
    semantic: Memory, model_server: ModelServer
) -> None:
    await remember(semantic, model_server, "u1", "Has a cat.")
    model_server.fail_embedding()
    hybrid = await semantic.search("support", "cat")
    assert hybrid.data is not None
    assert (hybrid.data.mode, hybrid.data.reason) == ("lexical", "embedding_request_failed")
    assert texts(hybrid) == ["Has a cat."]
    model_server.fail_embedding()
    failed = await semantic.search("support", "cat", mode="semantic")
    assert failed.error is not None and failed.error.code == "memory_model_failed"


async def test_vectors_of_another_model_are_recomputed(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await remember(semantic, model_server, "u1", "Has a cat.")
    await pool.execute("update stackbone_platform.memory_fact_vectors set model = 'old-model'")
    assert texts(await semantic.search("support", "cat", mode="semantic")) == []
    restarted = semantic_memory(pool, model_server)  # a process starting with the new model
    await restarted.search("support", "cat", mode="lexical")
    await restarted.drain_indexing()
    assert [(v["model"], v["embedded"]) for v in await vectors(pool)] == [(EMBEDDING_MODEL, True)]
    assert texts(await semantic.search("support", "cat", mode="semantic")) == ["Has a cat."]


async def test_a_bounded_drain_cancels_a_slow_pass_and_leaves_its_facts_pending(
    semantic: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.fail_embedding(500, delay=5)  # an embedding request hanging for 5 s
    model_server.answer([{"op": "add", "handle": None, "content": "Has a cat."}], "Talked.")
    assert (await semantic.add("hi", "support", "u1")).error is None
    started = asyncio.get_running_loop().time()
    await semantic.drain_indexing(grace_seconds=0.2)
    assert asyncio.get_running_loop().time() - started < 4  # generous: cancelled, not awaited
    assert [v["embedded"] for v in await vectors(pool)] == [False]
    await semantic.search("support", "cat", mode="lexical")  # a later pass fills it in
    await semantic.drain_indexing()
    assert [v["embedded"] for v in await vectors(pool)] == [True]


async def test_vectors_of_another_model_are_reset_in_batches_past_one_batch(
    semantic: Memory, pool: asyncpg.Pool
) -> None:
    many = 2 * RESET_BATCH + 1  # two full batches and one more row
    await pool.execute(
        "insert into stackbone_platform.memory_facts"
        " (agent_id, user_id, content, created_at, updated_at)"
        " select 'support', 'u' || g, 'fact ' || g, now(), now() from generate_series(1, $1) g",
        many + 1,
    )
    one = "[" + ",".join(["0.5"] * 512) + "]"
    await pool.execute(
        "update stackbone_platform.memory_fact_vectors set model = case when user_id = 'u1'"
        f" then '{EMBEDDING_MODEL}' else 'old-model' end, embedding = $1::text::vector",
        one,
    )
    assert await SearchStore(pool).forget_other_models(EMBEDDING_MODEL) == many
    left = await pool.fetch(
        "select model, count(*) from stackbone_platform.memory_fact_vectors group by model"
        " order by model nulls last"
    )
    assert [tuple(r) for r in left] == [(EMBEDDING_MODEL, 1), (None, many)]
