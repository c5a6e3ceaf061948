"""Document collections: ingest, list, download, delete and retrieve, each returning an envelope.

Inside, every step raises a `RagFailure`; `_enveloped` is the one place they become envelopes.
An ingest is checked, read and chunked (within its own bound, `_reading`) before anything is
written (a refused document leaves nothing behind); then the document is recorded `pending`
with its original, its chunks are embedded in batches, and one transaction writes chunks and
vectors, removes the older documents of the same source and marks it `ready`. A failure after
the document was recorded marks it `failed` with the code. Logs carry namespaces, ids, counts
and codes: never text or queries.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import asyncpg
import structlog

from infra.deadline import Bound, unbounded
from memory.config import MemoryConfig
from memory.contract import MemoryFailure, Result
from memory.documents import _requests as checks
from memory.documents._errors import (
    RagFailure,
    RagModelFailed,
    RagModelMismatch,
    RagNotFound,
    RagUnavailable,
)
from memory.documents._models import Collection, DocumentInfo, Original, Retrieval
from memory.documents._parsing import content_type_of
from memory.documents._reading import read_document
from memory.documents._recovery import (
    DEFAULT_STALE_SECONDS,
    MAX_PER_PASS,
    Recovered,
    recover_pass,
)
from memory.documents._store import Abandoned, DocumentStore, NewDocument
from memory.search import (
    EMBEDDING_DIMENSIONS,
    MAX_BATCH,
    NO_EMBEDDING_MODEL,
    EmbeddingModel,
    explained,
)

T = TypeVar("T")
log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Upload:
    """An ingest's arguments as given (checked by `_ingest`)."""

    content: bytes
    source: object
    content_type: object
    namespace: object
    title: object


async def _enveloped(work: Callable[[], Awaitable[T]]) -> Result[T]:
    try:
        return Result.ok(await work())
    except RagFailure as failure:
        return Result.failed(failure)


class Documents:
    """Collections of documents in the service's Postgres, searched by meaning."""

    def __init__(self, pool: asyncpg.Pool, config: MemoryConfig) -> None:
        self.pool = pool
        self._store = DocumentStore(pool)
        self._model = EmbeddingModel(config)
        self._parse_seconds = config.parse_timeout_seconds
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def model(self) -> str | None:
        """The embedding model this service embeds with (None: documents are unavailable)."""
        return self._model.model

    async def ingest(
        self,
        content: bytes,
        *,
        source: object,
        content_type: object,
        namespace: object = None,
        title: object = None,
        wait: bool = True,
        database: Bound = unbounded,
    ) -> Result[DocumentInfo]:
        """Add a document (or replace the one of the same source). `wait=False` answers once
        it is recorded `pending` and embeds it in the background (`drain` awaits that).
        `database` bounds each database step; reading and chunking keep their own bound
        (`rag_parse_timeout`), the embeddings the model's timeout."""

        async def work() -> DocumentInfo:
            upload = Upload(content, source, content_type, namespace, title)
            return await self._ingest(upload, wait=wait, database=database)

        return await _enveloped(work)

    async def _ingest(self, upload: Upload, *, wait: bool, database: Bound) -> DocumentInfo:
        ns, src = checks.namespace(upload.namespace), checks.source(upload.source)
        named = checks.title(upload.title)
        checks.document_bytes(upload.content)
        ctype = upload.content_type
        media = content_type_of(ctype if isinstance(ctype, str) else None)
        checks.document_size(len(upload.content))
        model = await database(self._require_vectors())
        read = await read_document(media, upload.content, self._parse_seconds)
        checks.chunk_count(len(read.chunks))
        collection = await database(self._collection(ns, model, create=True))
        label = named or read.title or src
        new = NewDocument(collection, src, label[:200], media, upload.content, model)
        doc = await database(self._store.start(new))
        completion = self._complete(doc, collection, src, read.chunks)
        if wait:
            await completion
        else:
            task = asyncio.get_running_loop().create_task(completion)
            self._tasks.add(task)
            task.add_done_callback(self._retrieve)
        return await database(self._found(doc))

    async def _require_vectors(self) -> str:
        """The embedding model, when documents can be embedded here; else `rag_unavailable`
        naming the reason (the database's first, then the model's, as search and `/healthz`)."""
        missing = await self._store.vectors_missing()
        if missing is not None:
            raise RagUnavailable(explained(missing))
        return self._require_model()

    def _retrieve(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            code = error.code if isinstance(error, MemoryFailure) else type(error).__name__
            log.warning("documents.background_ingest_failed", error_code=code)

    async def _complete(self, doc: str, collection: int, source: str, chunks: list[str]) -> None:
        started = time.perf_counter()
        try:
            vectors = await self._embed(chunks, doc)
            written = await self._store.finish(doc, collection, source, chunks, vectors)
        except RagFailure as failure:
            await self._store.fail(doc, failure.code)
            log.warning("documents.ingest_failed", document_id=doc, error_code=failure.code)
            raise
        seconds = time.perf_counter() - started
        log.info(
            "documents.ingested",
            document_id=doc,
            chunks=len(chunks),
            written=written,
            chunks_per_second=round(len(chunks) / seconds, 1) if seconds > 0 else None,
        )

    async def _embed(self, texts: list[str], document: str | None = None) -> list[str]:
        """Vectors in batches; an ingest's `document` is touched after each (it is alive)."""
        vectors: list[str] = []
        for at in range(0, len(texts), MAX_BATCH):
            try:
                vectors.extend(await self._model.embed(texts[at : at + MAX_BATCH]))
            except MemoryFailure as failure:  # the provider's failure, and only its
                raise RagModelFailed(failure.message) from None
            if document is not None:  # a database failure keeps its own code
                await self._store.touch(document)
        return vectors

    def _require_model(self) -> str:
        if self._model.model is None:
            raise RagUnavailable(explained(NO_EMBEDDING_MODEL))
        return self._model.model

    async def _collection(self, namespace: str, model: str, *, create: bool) -> int:
        row = await self._store.collection(namespace)
        if row is None and create:
            row = await self._store.ensure_collection(namespace, model, EMBEDDING_DIMENSIONS)
        if row is None:
            raise RagNotFound(f"namespace: no collection named {namespace}", field="namespace")
        recorded, dims = row["embedding_model"], row["dimensions"]
        if recorded != model or dims != EMBEDDING_DIMENSIONS:
            raise RagModelMismatch(
                f"namespace: the collection was embedded with {recorded} ({dims} dimensions);"
                f" this service embeds with {model} ({EMBEDDING_DIMENSIONS} dimensions)."
                " Re-ingest its documents into another namespace, or configure that model",
                field="namespace",
            )
        return int(row["id"])

    async def _found(self, doc: str) -> DocumentInfo:
        found = await self._store.document(doc)
        if found is None:
            raise RagNotFound("document_id: no such document", field="document_id")
        return found

    async def retrieve(
        self,
        text: object,
        top_k: object = checks.DEFAULT_TOP_K,
        namespace: object = None,
        *,
        database: Bound = unbounded,
    ) -> Result[Retrieval]:
        """The `top_k` chunks of one collection that best answer `text`, best first: by
        meaning, and by text when the query's words are rare (`_ranking`). `database` bounds
        each database step (the embeddings request keeps its own timeout); what it raises
        passes through."""

        async def work() -> Retrieval:
            query, k, ns = checks.query(text), checks.top_k(top_k), checks.namespace(namespace)
            model = self._require_model()
            collection = await database(self._collection(ns, model, create=False))
            started = time.perf_counter()
            [vector] = await self._embed([query])
            hits = await database(self._store.hybrid(collection, vector, query, k))
            log.info(
                "documents.retrieved",
                namespace=ns,
                top_k=k,
                hits=len(hits),
                ms=round((time.perf_counter() - started) * 1000, 1),
            )
            return Retrieval(ns, model, tuple(hits))

        return await _enveloped(work)

    async def collections(self) -> Result[tuple[Collection, ...]]:
        async def work() -> tuple[Collection, ...]:
            return tuple(await self._store.collections())

        return await _enveloped(work)

    async def documents(self, namespace: object = None) -> Result[tuple[DocumentInfo, ...]]:
        async def work() -> tuple[DocumentInfo, ...]:
            return tuple(await self._store.documents(checks.namespace(namespace)))

        return await _enveloped(work)

    async def document(self, document_id: object) -> Result[DocumentInfo]:
        async def work() -> DocumentInfo:
            return await self._found(checks.document_id(document_id))

        return await _enveloped(work)

    async def original(self, document_id: object) -> Result[Original]:
        async def work() -> Original:
            doc = await self._found(checks.document_id(document_id))
            body = await self._store.original(doc.id)
            if body is None:
                raise RagNotFound("document_id: no such document", field="document_id")
            return Original(doc, body)

        return await _enveloped(work)

    async def delete(self, document_id: object) -> Result[DocumentInfo]:
        """Remove a document with its original, chunks and vectors; returns what it was."""

        async def work() -> DocumentInfo:
            doc = await self._found(checks.document_id(document_id))
            if not await self._store.delete(doc.id):
                raise RagNotFound("document_id: no such document", field="document_id")
            log.info("documents.deleted", document_id=doc.id, chunks=doc.chunk_count)
            return doc

        return await _enveloped(work)

    async def recover(
        self, stale_seconds: float = DEFAULT_STALE_SECONDS, most: int = MAX_PER_PASS
    ) -> Result[Recovered]:
        """Ingest again, from their originals, up to `most` documents a stopped process left
        `pending` for over `stale_seconds` (`memory.documents._recovery`)."""

        async def work() -> Recovered:
            return await recover_pass(self._store, self._again, stale_seconds, most)

        return await _enveloped(work)

    async def _again(self, doc: str, original: Abandoned) -> bool:
        """One abandoned ingest, done again; False when it failed (marked with its code)."""
        try:
            model = self._require_model()
            read = await read_document(original.content_type, original.body, self._parse_seconds)
            collection = await self._collection(original.namespace, model, create=False)
            await self._complete(doc, collection, original.source, read.chunks)
        except RagFailure as failure:
            await self._store.fail(doc, failure.code)  # a no-op when `_complete` did it
            return False
        return True

    async def drain(self, grace_seconds: float | None = None) -> None:
        """Wait for background ingests; past `grace_seconds` they are cancelled (their documents
        stay `pending`)."""
        tasks = set(self._tasks)
        if not tasks:
            return
        await asyncio.wait(tasks, timeout=grace_seconds)
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)

    async def aclose(self, grace_seconds: float | None = None) -> None:
        await self.drain(grace_seconds)
        await self._model.aclose()
