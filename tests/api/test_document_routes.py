"""Document collections through the real web app: upload (size, type and bytes checked, nothing
left by a refusal), background ingest to `ready`, list, download, search, delete."""

from __future__ import annotations

import asyncpg
import pytest

from memory.config import MemoryConfig
from memory.documents import MAX_DOCUMENT_BYTES
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.documents.conftest import EMBEDDING_MODEL, html_file, markdown_file, pdf_file, row_counts
from tests.waiting import eventually
from tests.web_clients import Client

BASE = "/api/documents"
RETURNS = "Items can be returned within thirty days of delivery for a full refund."
SHIPPING = "Standard shipping takes three to five working days across the mainland."


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    return MemoryConfig(
        base_url=model_server.url, api_key="test-key", embedding_model=EMBEDDING_MODEL
    )


async def upload(
    client: Client, body: bytes, content_type: str, source: str = "returns", **query: str
) -> tuple[int, dict[str, object]]:
    response = await client.post(
        f"{BASE}/collections/help-center/documents",
        params={"source": source, **query},
        data=body,
        headers={**auth("admin"), "Content-Type": content_type},
    )
    return response.status, await response.json()


async def ready(client: Client, doc_id: str) -> dict[str, object]:
    async def status() -> str:
        got = await client.get(f"{BASE}/documents/{doc_id}", headers=auth("docs-reader"))
        return str((await got.json())["status"])

    seen: list[str] = []

    async def done() -> bool:
        seen.append(await status())
        return seen[-1] != "pending"

    await eventually(done, f"document {doc_id} done")
    got = await client.get(f"{BASE}/documents/{doc_id}", headers=auth("docs-reader"))
    body: dict[str, object] = await got.json()
    return body


@pytest.mark.pgvector
async def test_upload_pdf_markdown_html_then_list_search_download_delete(
    client: Client, pool: asyncpg.Pool
) -> None:
    pdf = pdf_file(RETURNS)
    status, doc = await upload(client, pdf, "application/pdf", source="returns.pdf")
    assert status == 202 and doc["status"] in {"pending", "ready"}
    assert (await ready(client, str(doc["id"])))["status"] == "ready"
    for body, media, source in [
        (markdown_file("Shipping", SHIPPING), "text/markdown", "shipping.md"),
        (html_file("Kettles", "Kettles boil water."), "text/html; charset=utf-8", "kettles"),
    ]:
        status, other = await upload(client, body, media, source=source)
        assert status == 202
        assert (await ready(client, str(other["id"])))["status"] == "ready"

    listed = await (await client.get(f"{BASE}/collections", headers=auth("docs-reader"))).json()
    [collection] = listed["collections"]
    assert (collection["namespace"], collection["embeddingModel"], collection["documents"]) == (
        "help-center",
        EMBEDDING_MODEL,
        3,
    )
    docs = await (
        await client.get(f"{BASE}/collections/help-center/documents", headers=auth("docs-reader"))
    ).json()
    assert [d["title"] for d in docs["documents"]] == ["Returns policy", "Shipping", "Kettles"]

    found = await client.post(
        f"{BASE}/collections/help-center/search",
        json={"query": "returned within thirty days refund", "topK": 2},
        headers=auth("docs-reader"),
    )
    hits = (await found.json())["hits"]
    assert found.status == 200 and len(hits) == 2
    assert hits[0]["document"]["source"] == "returns.pdf" and 0 <= hits[0]["score"] <= 1

    original = await client.get(
        f"{BASE}/documents/{doc['id']}/original", headers=auth("docs-reader")
    )
    assert original.status == 200 and original.content_type == "application/pdf"
    assert await original.read() == pdf
    assert original.headers["Content-Security-Policy"] == "sandbox"

    refused = await client.delete(f"{BASE}/documents/{doc['id']}", headers=auth("docs-reader"))
    assert refused.status == 403
    deleted = await client.delete(f"{BASE}/documents/{doc['id']}", headers=auth("admin"))
    assert deleted.status == 200
    gone = await client.get(f"{BASE}/documents/{doc['id']}/original", headers=auth("admin"))
    assert gone.status == 404 and (await gone.json())["error"]["code"] == "rag_not_found"
    assert (await row_counts(pool))["doc_documents"] == 2


@pytest.mark.parametrize(
    ("body", "media", "status", "code"),
    [
        (b"hello", "application/msword", 415, "rag_unsupported_type"),
        (b"hello", "application/json", 415, "rag_unsupported_type"),
        (b"\xff\xfe\x00", "text/plain", 422, "rag_unreadable_document"),
        (b"%PDF-1.7 nothing", "application/pdf", 422, "rag_unreadable_document"),
        (b"", "text/plain", 400, "rag_invalid_request"),
    ],
)
@pytest.mark.pgvector
async def test_a_bad_upload_is_a_4xx_naming_the_rule_and_leaves_nothing(
    client: Client,
    pool: asyncpg.Pool,
    model_server: ModelServer,
    *,
    body: bytes,
    media: str,
    status: int,
    code: str,
) -> None:
    got_status, answer = await upload(client, body, media)
    assert got_status == status
    error = answer["error"]
    assert isinstance(error, dict) and error["code"] == code and error["field"]
    assert set((await row_counts(pool)).values()) == {0}
    assert model_server.embedding_requests == []


@pytest.mark.pgvector
async def test_upload_size_at_and_past_the_limit(client: Client, pool: asyncpg.Pool) -> None:
    at = b"a" + b" " * (MAX_DOCUMENT_BYTES - 2) + b"b"  # folds to "a b": one chunk
    status, answer = await upload(client, at + b"x", "text/plain")
    assert status == 413 and answer["error"]["code"] == "rag_too_large"  # type: ignore[index]
    assert set((await row_counts(pool)).values()) == {0}
    status, doc = await upload(client, at, "text/plain")
    assert status == 202, doc
    assert (await ready(client, str(doc["id"])))["status"] == "ready"


async def test_source_is_required_and_bounded(client: Client, pool: asyncpg.Pool) -> None:
    response = await client.post(
        f"{BASE}/collections/help-center/documents",
        data=b"text",
        headers={**auth("admin"), "Content-Type": "text/plain"},
    )
    assert response.status == 400
    assert (await response.json())["error"]["field"] == "source"
    status, answer = await upload(client, b"text", "text/plain", source="s" * 501)
    assert status == 400 and answer["error"]["field"] == "source"  # type: ignore[index]
    assert set((await row_counts(pool)).values()) == {0}
