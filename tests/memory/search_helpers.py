"""Shared pieces of the search tests: a memory with an embedding model, seeding, direct reads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.search import read_search_availability, with_model
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op

EMBEDDING_MODEL = "test-embedding"
S = "stackbone_platform"


def semantic_memory(pool: asyncpg.Pool, server: ModelServer) -> Memory:
    """Memory with an embedding model configured (the local model server embeds)."""
    config = MemoryConfig(
        base_url=server.url,
        api_key="test-key",
        timeout_seconds=5,
        embedding_model=EMBEDDING_MODEL,
        embedding_timeout_seconds=5,
    )
    return open_memory(MemoryStore(pool), config)


@pytest.fixture
async def semantic(pool: asyncpg.Pool, model_server: ModelServer) -> AsyncIterator[Memory]:
    memory = semantic_memory(pool, model_server)
    yield memory
    await memory.aclose()


async def remember(
    memory: Memory, server: ModelServer, user: str, *facts: str, agent: str = "support"
) -> None:
    """One add saving `facts` for `user`, then its background vector pass finished."""
    server.answer([add_op(f) for f in facts], "Talked.")
    result = await memory.add("Something worth keeping.", agent, user)
    assert result.error is None, result.error
    await memory.drain_indexing()


async def vectors(pool: asyncpg.Pool, user: str | None = None) -> list[dict[str, Any]]:
    rows = await pool.fetch(
        f"""select f.content, v.model, v.embedding is not null as embedded, v.user_id
        from {S}.memory_fact_vectors v join {S}.memory_facts f on f.id = v.fact_id
        where $1::text is null or v.user_id = $1 order by f.seq""",
        user,
    )
    return [dict(r) for r in rows]


def texts(result: Any) -> list[str]:
    assert result.error is None, result.error
    return [hit.text for hit in result.data.items]


def contacts(result: Any) -> list[str]:
    assert result.error is None, result.error
    return [hit.contact for hit in result.data.items]


async def lexical_reason(pool: asyncpg.Pool) -> str:
    """Why a search with no embedding model is lexical on this server: the database's reason
    first (pgvector missing or too old, on a server such as Debian's), else the model's."""
    found = with_model(await read_search_availability(pool), None)
    assert found.reason is not None
    return found.reason
