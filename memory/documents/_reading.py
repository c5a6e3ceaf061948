"""Reading an upload (parsing and chunking) within a bound of its own, off the event loop.

Parsing a PDF or a large page is CPU work: it runs in a worker thread, so the event loop keeps
answering meanwhile, and it has its own bound (`MemoryConfig.parse_timeout_seconds`, variable
`DOCUMENTS_PARSE_TIMEOUT_SECONDS`). Past it the caller gets `RagParseTimeout` at once: the
database's deadline never pays for a parser, nor is a slow parse ever reported as the database.
The thread cannot be killed; it is told to stop (a PDF stops at its next page) and its result,
whenever it comes, is dropped.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass

import structlog

from infra.deadline import Deadline, Late, within
from memory.documents._chunking import chunk_text
from memory.documents._errors import RagParseTimeout
from memory.documents._parsing import Extracted, extract

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Read:
    """A document's text as chunks, and what it calls itself."""

    title: str | None
    chunks: list[str]


def _read(media: str, raw: bytes, stop: threading.Event) -> Read:
    found: Extracted = extract(media, raw, stop)
    return Read(found.title, chunk_text(found.text))


async def read_document(media: str, raw: bytes, seconds: float) -> Read:
    """Parse and chunk `raw` in a thread within `seconds`; past it `RagParseTimeout`."""
    stop, started = threading.Event(), time.perf_counter()
    work = asyncio.to_thread(_read, media, raw, stop)
    try:
        read = await within(Deadline.after(seconds), work, step="document_parse")
    except Late:
        stop.set()
        log.warning("documents.parse_timeout", content_type=media, size=len(raw), bound=seconds)
        raise RagParseTimeout(
            f"document: reading and chunking it took longer than {seconds:g} s"
            " (DOCUMENTS_PARSE_TIMEOUT_SECONDS); simplify or split the document",
            field="document",
        ) from None
    log.info(
        "documents.parsed",
        content_type=media,
        chunks=len(read.chunks),
        ms=round((time.perf_counter() - started) * 1000, 1),
    )
    return read
