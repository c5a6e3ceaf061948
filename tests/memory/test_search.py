"""Search against real Postgres: lexical, semantic, hybrid, scopes and isolation."""

from __future__ import annotations

import asyncpg
import pytest

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.search_helpers import (
    EMBEDDING_MODEL,
    contacts,
    lexical_reason,
    remember,
    semantic,
    texts,
)

__all__ = ["semantic"]  # fixture


async def test_lexical_folds_case_and_accents_in_any_language(
    memory: Memory, model_server: ModelServer
) -> None:
    await remember(memory, model_server, "+34 600", "Prefiere que le llamen por teléfono.")
    await remember(memory, model_server, "u-en", "Owns a dog called Rex.", "Lives in Madrid.")
    await remember(memory, model_server, "u-de", "Contact person is Jürgen Müller.")
    for query, found in [
        ("telefono", ["Prefiere que le llamen por teléfono."]),
        ("TELÉFONO llamen", ["Prefiere que le llamen por teléfono."]),
        ("dog", ["Owns a dog called Rex."]),
        ("MULLER jurgen", ["Contact person is Jürgen Müller."]),
        ('"called rex"', ["Owns a dog called Rex."]),
        ("madrid or rex", ["Owns a dog called Rex.", "Lives in Madrid."]),
        ("dog -rex", []),
    ]:
        result = await memory.search("support", query, mode="lexical")
        assert sorted(texts(result)) == sorted(found), query
        assert result.data is not None and result.data.lexical_only


async def test_every_word_must_occur_lexically(memory: Memory, model_server: ModelServer) -> None:
    await remember(memory, model_server, "u1", "Asked not to be called again.")
    assert texts(await memory.search("support", "asked called", mode="lexical")) == [
        "Asked not to be called again."
    ]
    assert texts(await memory.search("support", "who asked not to be called", mode="lexical")) == []


async def test_across_contacts_and_within_one(memory: Memory, model_server: ModelServer) -> None:
    await remember(memory, model_server, "ana", "Has a cat.", "Prefers email.")
    await remember(memory, model_server, "bob", "Has a cat and a dog.")
    everyone = await memory.search("support", "cat", mode="lexical")
    assert sorted(contacts(everyone)) == ["ana", "bob"]
    only_bob = await memory.search("support", "cat", "bob", mode="lexical")
    assert [(h.contact, h.text) for h in only_bob.data.items] == [  # type: ignore[union-attr]
        ("bob", "Has a cat and a dog.")
    ]
    assert all(h.id and h.score > 0 for h in everyone.data.items)  # type: ignore[union-attr]


@pytest.mark.pgvector
async def test_other_agents_are_never_searched(semantic: Memory, model_server: ModelServer) -> None:
    await remember(semantic, model_server, "ana", "Has a cat.", agent="sales")
    await remember(semantic, model_server, "ana", "Has a dog.", agent="support")
    for mode in ("lexical", "semantic", "hybrid"):
        assert texts(await semantic.search("support", "cat", mode=mode)) == ["Has a dog."] * (
            mode != "lexical"
        ), mode
    assert contacts(await semantic.search("other", "ana", mode="identifier")) == []


@pytest.mark.pgvector
async def test_semantic_finds_what_lexical_misses(
    semantic: Memory, model_server: ModelServer
) -> None:
    """The stand-in embeds a bag of words: shared words are close, as meaning is for a model."""
    await remember(
        semantic, model_server, "u1", "Asked not to be called again.", "Lives in Madrid."
    )
    question = "who asked not to be called?"
    assert texts(await semantic.search("support", question, mode="lexical")) == []
    found = await semantic.search("support", question, mode="semantic", k=1)
    assert texts(found) == ["Asked not to be called again."]
    assert found.data is not None and found.data.mode == "semantic" and not found.data.lexical_only
    hybrid = await semantic.search("support", question)
    assert hybrid.data is not None and hybrid.data.mode == "hybrid"
    assert texts(hybrid)[0] == "Asked not to be called again."
    assert model_server.embedding_requests[-1] == {
        "model": EMBEDDING_MODEL,
        "input": [question],
        "dimensions": 512,
        "encoding_format": "float",
    }


@pytest.mark.pgvector
async def test_hybrid_ranks_a_fact_found_both_ways_first(
    semantic: Memory, model_server: ModelServer
) -> None:
    await remember(
        semantic,
        model_server,
        "u1",
        "Wants a callback about the invoice.",
        "The invoice was paid twice.",
        "Callback numbers change often.",
    )
    result = await semantic.search("support", "invoice callback", k=3)
    assert result.data is not None and result.data.mode == "hybrid"
    assert texts(result)[0] == "Wants a callback about the invoice."
    scores = [h.score for h in result.data.items]
    assert scores == sorted(scores, reverse=True) and scores[0] == pytest.approx(2 / 61, abs=1e-6)


async def test_without_an_embedding_model_search_says_it_is_lexical_only(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await remember(memory, model_server, "u1", "Has a cat.")
    result = await memory.search("support", "cat")
    assert result.data is not None
    assert (result.data.mode, result.data.lexical_only, result.data.reason) == (
        "lexical",
        True,
        await lexical_reason(pool),
    )
    assert texts(result) == ["Has a cat."]
    failed = await memory.search("support", "cat", mode="semantic")
    assert failed.error is not None
    assert (failed.error.code, failed.error.field) == ("capability_unavailable", "mode")
    assert model_server.embedding_requests == []


async def test_k_limits_the_results_up_to_fifty(memory: Memory, pool: asyncpg.Pool) -> None:
    await pool.execute(
        """insert into stackbone_platform.memory_facts
            (agent_id, user_id, content, created_at, updated_at)
        select 'support', 'u' || (g % 3), 'Likes tea number ' || g, now(), now()
        from generate_series(1, 60) g"""
    )
    assert len(texts(await memory.search("support", "tea", k=50, mode="lexical"))) == 50
    assert len(texts(await memory.search("support", "tea", k=7, mode="lexical"))) == 7
    past = await memory.search("support", "tea", k=51, mode="lexical")
    assert past.error is not None and (past.error.code, past.error.field) == (
        "memory_invalid_request",
        "k",
    )
