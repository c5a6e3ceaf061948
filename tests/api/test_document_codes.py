"""The documents routes answer with the documents' codes (docs/documents.md): a search body the
web layer refuses (NUL, a lone surrogate, a wrong type, not JSON) is `rag_invalid_request`, as
the documents API's own refusals are; the memory routes keep `memory_invalid_request`."""

from __future__ import annotations

from typing import Any

import pytest

from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.documents.conftest import EMBEDDING_MODEL
from tests.web_clients import Client

SEARCH = "/api/documents/collections/help-center/search"
BAD_SEARCHES: list[tuple[bytes, str]] = [
    (b'{"query": "refund\\u0000"}', "query"),
    (b'{"query": "refund \\ud800"}', "query"),
    (b'{"query": "refund", "topK": "3"}', "topK"),
    (b'{"query": "refund", "topK": 1e999}', "topK"),
    (b'{"query": "refund", "surprise": 1}', "surprise"),
    (b'{"query": "a", "query": "b"}', "query"),
    (b"{query: 1}", "body"),
    (b'{"query": "\xff"}', "body"),
    (b'{"query": ""}', "text"),  # the documents API's own rule
    (b'{"query": "refund", "topK": 21}', "top_k"),
]


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    return MemoryConfig(
        base_url=model_server.url, api_key="test-key", embedding_model=EMBEDDING_MODEL
    )


async def post(client: Client, path: str, body: bytes) -> tuple[int, dict[str, Any]]:
    headers = auth() | {"Content-Type": "application/json"}
    response = await client.post(path, data=body, headers=headers)
    return response.status, (await response.json())["error"]


@pytest.mark.parametrize(("body", "field"), BAD_SEARCHES)
async def test_a_refused_document_search_is_rag_invalid_request(
    client: Client, body: bytes, field: str
) -> None:
    status, error = await post(client, SEARCH, body)
    assert (status, error["code"], error["field"]) == (400, "rag_invalid_request", field)


async def test_the_memory_search_keeps_the_memory_code(client: Client) -> None:
    path = "/api/memory/customers/support/search"
    status, error = await post(client, path, b'{"query": "refund\\u0000"}')
    assert (status, error["code"], error["field"]) == (400, "memory_invalid_request", "query")
