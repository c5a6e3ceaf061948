"""Fixtures for document collections: the service over the test database and the local
embeddings server, and real files made here (PDF with fpdf2, Markdown, HTML)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
from fpdf import FPDF

from memory.config import MemoryConfig
from memory.documents import Documents
from testkit.model_server import ModelServer

EMBEDDING_MODEL = "test-embedding"
S = "stackbone_platform"
TABLES = ("doc_collections", "doc_documents", "doc_originals", "doc_chunks")


def docs_config(server: ModelServer, model: str | None = EMBEDDING_MODEL) -> MemoryConfig:
    return MemoryConfig(
        base_url=server.url,
        api_key="test-key",
        embedding_model=model,
        embedding_timeout_seconds=5,
    )


@pytest.fixture
async def documents(pool: asyncpg.Pool, model_server: ModelServer) -> AsyncIterator[Documents]:
    docs = Documents(pool, docs_config(model_server))
    yield docs
    await docs.aclose()


def pdf_file(*paragraphs: str, title: str = "Returns policy") -> bytes:
    """A real PDF, one paragraph per page."""
    pdf = FPDF()
    pdf.set_title(title)
    pdf.set_font("helvetica", size=11)
    for paragraph in paragraphs:
        pdf.add_page()
        pdf.multi_cell(0, 6, paragraph)
    return bytes(pdf.output())


def html_file(title: str, *paragraphs: str) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    page = (
        f"<!doctype html><html><head><title>{title}</title>"
        "<style>p { color: red }</style><script>var secret = 'not text';</script></head>"
        f"<body><h1>{title}</h1>{body}</body></html>"
    )
    return page.encode()


def markdown_file(title: str, *paragraphs: str) -> bytes:
    return (f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n").encode()


async def row_counts(pool: asyncpg.Pool) -> dict[str, int]:
    return {t: await pool.fetchval(f"select count(*) from {S}.{t}") for t in TABLES}
