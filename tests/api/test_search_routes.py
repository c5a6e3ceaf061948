"""Search over HTTP: body in, camelCase items out, errors as statuses, user ids never in URLs."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from memory.api import Memory
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.api.conftest import auth, build_catalog
from tests.memory.search_helpers import EMBEDDING_MODEL, lexical_reason, remember
from tests.web_clients import Client
from worker.http.server.auth import ApiKey
from worker.http.web import create_app

SEARCH = "/api/memory/customers/{}/search"
AWKWARD = "+34 611 22 33 44"


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    """These apps embed (overrides the root fixture): hybrid search is really hybrid."""
    return MemoryConfig(
        base_url=model_server.url,
        api_key="test-key",
        timeout_seconds=5,
        embedding_model=EMBEDDING_MODEL,
    )


async def search(client: Client, key: str = "memory-reader", **body: Any) -> tuple[int, Any]:
    response = await client.post(SEARCH.format("support"), json=body, headers=auth(key))
    return response.status, await response.json()


@pytest.fixture
async def seeded(memory: Memory, model_server: ModelServer) -> None:
    await remember(memory, model_server, AWKWARD, "Asked not to be called again.")
    await remember(memory, model_server, "José Ñúñez", "Prefiere el teléfono por la tarde.")


@pytest.mark.pgvector
@pytest.mark.usefixtures("seeded")
async def test_hybrid_search_across_contacts(client: Client) -> None:
    status, body = await search(client, query="who asked not to be called")
    assert status == 200
    assert {k: body[k] for k in ("agentId", "userId", "mode", "lexicalOnly", "reason")} == {
        "agentId": "support",
        "userId": None,
        "mode": "hybrid",
        "lexicalOnly": False,
        "reason": None,
    }
    first = body["items"][0]
    assert set(first) == {"contact", "id", "text", "score", "source"}
    assert (first["contact"], first["text"]) == (AWKWARD, "Asked not to be called again.")


@pytest.mark.usefixtures("seeded")
async def test_within_one_contact_and_by_identifier(client: Client) -> None:
    status, body = await search(client, query="telefono", userId="José Ñúñez", mode="lexical")
    assert status == 200 and body["lexicalOnly"] is True and body["userId"] == "José Ñúñez"
    assert [i["text"] for i in body["items"]] == ["Prefiere el teléfono por la tarde."]
    status, body = await search(client, query="telefono", userId=AWKWARD, mode="lexical")
    assert (status, body["items"]) == (200, [])
    status, body = await search(client, query="+34 611", mode="identifier")
    assert status == 200
    # an identifier hit names no fact, so no source
    assert body["items"] == [
        {"contact": AWKWARD, "id": None, "text": None, "score": 0.8, "source": None}
    ]


async def test_without_an_embedding_model_the_answer_says_lexical_only(
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    api_keys: tuple[ApiKey, ...],
) -> None:
    await remember(memory, model_server, "u1", "Has a cat.")
    app = create_app(
        pool=pool,
        catalog=build_catalog(),
        api_keys=api_keys,
        memory_config=MemoryConfig(base_url=model_server.url, api_key="k"),
    )
    plain: Client = TestClient(TestServer(app))
    await plain.start_server()
    try:
        status, body = await search(plain, query="cat")
        assert status == 200
        assert (body["mode"], body["lexicalOnly"], body["reason"]) == (
            "lexical",
            True,
            await lexical_reason(pool),
        )
        assert [i["text"] for i in body["items"]] == ["Has a cat."]
        status, body = await search(plain, query="cat", mode="semantic")
        assert (status, body["error"]["code"]) == (503, "capability_unavailable")
    finally:
        await plain.close()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": 5}, "query"),
        ({"query": " "}, "query"),
        ({"query": "q" * 501}, "query"),
        ({"query": "cat", "k": 51}, "k"),
        ({"query": "cat", "k": 0}, "k"),
        ({"query": "cat", "k": "5"}, "k"),
        ({"query": "cat", "mode": "fuzzy"}, "mode"),
        ({"query": "cat", "userId": ""}, "user_id"),
        ({"query": "cat", "userId": "u", "mode": "identifier"}, "user_id"),
        ({"query": "cat", "user_id": "u"}, "user_id"),
    ],
)
async def test_invalid_requests_are_400_naming_the_field(
    client: Client, body: dict[str, Any], field: str
) -> None:
    status, answer = await search(client, **body)
    assert status == 400
    assert (answer["error"]["code"], answer["error"]["field"]) == ("memory_invalid_request", field)


async def test_k_of_fifty_is_accepted(client: Client) -> None:
    status, body = await search(client, query="q" * 500, k=50, mode="lexical")
    assert (status, body["items"]) == (200, [])


@pytest.mark.parametrize(("key", "status"), [("memory-reader", 200), ("memory-eraser", 403)])
async def test_needs_memory_read(client: Client, key: str, status: int) -> None:
    assert (await search(client, key, query="cat", mode="lexical"))[0] == status
    response = await client.post(SEARCH.format("support"), json={"query": "cat"})
    assert response.status == 401


async def test_unknown_agent_is_404(client: Client) -> None:
    response = await client.post(SEARCH.format("ghost"), json={"query": "x"}, headers=auth())
    assert response.status == 404
