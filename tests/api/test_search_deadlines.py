"""The search routes bound their database steps by the route's deadline and leave the query's
embedding to the model's own timeout: a model slower than the database deadline is waited for,
and a model past its timeout is the model's failure (`rag_model_failed`, `memory_model_failed`,
or hybrid's text-only answer), never a 503 that blames the database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from memory.config import MemoryConfig
from memory.documents import Documents
from testkit.model_server import ModelServer
from tests.api.conftest import auth, build_catalog
from tests.documents.conftest import EMBEDDING_MODEL
from tests.web_clients import AppClients, Client
from worker.http.server.auth import ApiKey
from worker.http.web import create_app

pytestmark = pytest.mark.pgvector  # a collection with vectors is searched

DEADLINE = 1.0  # the routes' database deadline
EMBEDDING_TIMEOUT = 4.5  # the model's own: three times SLOW, so a loaded machine stays within
SLOW = 1.5  # past the database deadline, within the model's timeout
DOCS = "/api/documents/collections/help/search"
FACTS = "/api/memory/customers/support/search"


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    return MemoryConfig(
        base_url=model_server.url,
        api_key="k",
        embedding_model=EMBEDDING_MODEL,
        embedding_timeout_seconds=EMBEDDING_TIMEOUT,
    )


@pytest.fixture
async def client(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], memory_config: MemoryConfig
) -> AsyncIterator[Client]:
    docs = Documents(pool, memory_config)
    ingested = await docs.ingest(
        b"Refunds within thirty days.", source="r", content_type="text/plain", namespace="help"
    )
    assert ingested.error is None
    await docs.aclose()
    app = create_app(
        pool=pool,
        catalog=build_catalog(),
        api_keys=api_keys,
        memory_config=memory_config,
        database_deadline_seconds=DEADLINE,
    )
    clients = AppClients()
    yield await clients.serve(app)
    await clients.aclose()


async def post(client: Client, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    response = await client.post(path, json=body, headers=auth())
    return response.status, await response.json()


async def test_a_model_slower_than_the_database_deadline_is_waited_for(
    client: Client, model_server: ModelServer
) -> None:
    model_server.embedding_delay = SLOW
    docs, semantic, hybrid = await asyncio.gather(
        post(client, DOCS, {"query": "refund"}),
        post(client, FACTS, {"query": "refund", "mode": "semantic"}),
        post(client, FACTS, {"query": "refund"}),
    )
    assert docs[0] == 200 and [h["content"] for h in docs[1]["hits"]], docs
    assert semantic[0] == 200 and semantic[1]["mode"] == "semantic", semantic
    assert hybrid[0] == 200 and hybrid[1]["mode"] == "hybrid", hybrid


async def test_a_model_past_its_timeout_is_the_models_failure(
    client: Client, model_server: ModelServer
) -> None:
    model_server.embedding_delay = EMBEDDING_TIMEOUT + 2.0
    docs, semantic, hybrid = await asyncio.gather(
        post(client, DOCS, {"query": "refund"}),
        post(client, FACTS, {"query": "refund", "mode": "semantic"}),
        post(client, FACTS, {"query": "refund"}),
    )
    assert (docs[0], docs[1]["error"]["code"]) == (502, "rag_model_failed")
    assert (semantic[0], semantic[1]["error"]["code"]) == (502, "memory_model_failed")
    assert hybrid[0] == 200
    assert (hybrid[1]["mode"], hybrid[1]["reason"]) == ("lexical", "embedding_request_failed")
