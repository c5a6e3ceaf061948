"""Each deadline of an upload measures what it names: reading and chunking the document have
their own bound (`DOCUMENTS_PARSE_TIMEOUT_SECONDS`, `422 rag_parse_timeout` past it), and the
database deadline covers the database's steps only, so a slow parse is never `rag_unavailable`;
the parse runs off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.api.conftest import auth, build_catalog
from tests.memory.search_helpers import EMBEDDING_MODEL
from tests.web_clients import AppClients, Client
from worker.http.server.auth import ApiKey
from worker.http.web import create_app

pytestmark = pytest.mark.pgvector  # documents need their vectors

COLLECTION = "/api/documents/collections/help-center/documents"
PARAGRAPH = b"<p><b>Returns</b> within <i>30</i> days, <a href='#'>see</a> the policy.</p>\n"
SLOW_PAGE = b"<html><body>" + PARAGRAPH * 12_000 + b"</body></html>"  # about 1 MB of tags

Serve = Callable[..., Awaitable[Client]]


@pytest.fixture
async def serve(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], model_server: ModelServer
) -> AsyncIterator[Serve]:
    clients = AppClients()

    async def start(*, parse_seconds: float, database_seconds: float) -> Client:
        config = MemoryConfig(
            base_url=model_server.url,
            api_key="test-key",
            embedding_model=EMBEDDING_MODEL,
            embedding_timeout_seconds=5,
            parse_timeout_seconds=parse_seconds,
        )
        app = create_app(
            pool=pool,
            catalog=build_catalog(),
            api_keys=api_keys,
            memory_config=config,
            database_deadline_seconds=database_seconds,
        )
        return await clients.serve(app)

    yield start
    await clients.aclose()


async def _upload(client: Client, body: bytes) -> tuple[int, dict[str, object]]:
    response = await client.post(
        COLLECTION,
        params={"source": "policy"},
        data=body,
        headers={**auth("admin"), "Content-Type": "text/html"},
    )
    return response.status, await response.json()


async def test_a_parse_past_its_bound_is_rag_parse_timeout_and_writes_nothing(
    serve: Serve, pool: asyncpg.Pool
) -> None:
    client = await serve(parse_seconds=0.05, database_seconds=30)
    status, body = await _upload(client, SLOW_PAGE)
    error = body["error"]
    assert isinstance(error, dict)
    assert (status, error["code"], error["field"]) == (422, "rag_parse_timeout", "document")
    assert "DOCUMENTS_PARSE_TIMEOUT_SECONDS" in error["message"]
    assert "database" not in error["message"]
    assert await pool.fetchval("select count(*) from stackbone_platform.doc_documents") == 0


async def test_a_parse_longer_than_the_database_deadline_is_not_blamed_on_it(
    serve: Serve,
) -> None:
    """The page takes far longer to read than the database deadline; each database step is
    quick, so the upload is accepted, and the event loop answers meanwhile."""
    client = await serve(parse_seconds=120, database_seconds=0.5)
    upload = asyncio.ensure_future(_upload(client, SLOW_PAGE))
    health = await client.get("/healthz")  # answered while the page is being read
    assert health.status == 200 and not upload.done()
    status, body = await upload
    assert status == 202, body
    assert body["status"] == "pending"
