"""A missing provider key is named (STACKBONE_MEMORY_API_KEY / OPENAI_API_KEY)."""

from __future__ import annotations

import asyncpg
import pytest

from memory.api import open_memory
from memory.config import MemoryConfig
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from tests.memory.helpers import stored


async def test_no_key_for_openai_names_the_variable_and_sends_nothing(pool: asyncpg.Pool) -> None:
    memory = open_memory(MemoryStore(pool), MemoryConfig())  # no key, no endpoint: OpenAI
    result = await memory.add("I have a cat.", "support", "u1")
    assert result.error is not None and result.error.code == "memory_model_failed"
    assert "STACKBONE_MEMORY_API_KEY (or OPENAI_API_KEY) is not set" in result.error.message
    assert "APIConnectionError" not in result.error.message
    assert (await stored(pool, "support", "u1"))["calls"] == []


async def test_a_keyless_endpoint_is_tried_and_its_refusal_names_the_variable(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    memory = open_memory(MemoryStore(pool), MemoryConfig(base_url=model_server.url))
    model_server.fail(401)
    result = await memory.add("I have a cat.", "support", "u1")
    assert result.error is not None and result.error.code == "memory_model_failed"
    assert "STACKBONE_MEMORY_API_KEY (or OPENAI_API_KEY) is not set" in result.error.message
    assert len(model_server.requests) == 1


async def test_a_keyed_failure_does_not_blame_the_key(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    memory = open_memory(MemoryStore(pool), MemoryConfig(base_url=model_server.url, api_key="k"))
    model_server.fail(500)
    result = await memory.add("I have a cat.", "support", "u1")
    assert result.error is not None and "API_KEY" not in result.error.message


@pytest.mark.pgvector
async def test_semantic_search_without_a_key_names_the_variable(
    pool: asyncpg.Pool,
) -> None:
    config = MemoryConfig(embedding_model="text-embedding-3-small")
    memory = open_memory(MemoryStore(pool), config)
    result = await memory.search("support", "cat", None, 5, "semantic")
    assert result.error is not None and result.error.code == "memory_model_failed"
    assert "STACKBONE_MEMORY_API_KEY" in result.error.message
