"""Search over one contact's facts or all of an agent's: lexical, semantic, hybrid, identifier.

Lexical: Postgres full-text search, `simple` configuration over lower-cased, accent-folded text
(no stemming or stop words, so Spanish, English and names behave alike); every word must occur,
with web-search syntax (`"a phrase"`, `or`, `-word`). Semantic: cosine distance between the
query's embedding and each fact's. Hybrid: reciprocal rank fusion of both lists; without an
embedding model, pgvector, or a query embedding, it ranks by text alone and says why.
Identifier: contacts whose user id contains the query (case-insensitive), exact ids first.
"""

from __future__ import annotations

import asyncio
import time

import structlog

from infra.deadline import Bound, unbounded
from memory.contract import CapabilityUnavailable, MemoryFailure
from memory.search._availability import SearchAvailability, with_model
from memory.search._embeddings import EmbeddingModel
from memory.search._indexer import EmbeddingIndexer
from memory.search._models import SearchHit, SearchOutcome, SearchRequest
from memory.search._ranking import CANDIDATES, fuse
from memory.search._reasons import EMBEDDING_FAILED, explained
from memory.search._store import SearchStore

log = structlog.get_logger(__name__)


class Search:
    def __init__(self, store: SearchStore, embedder: EmbeddingModel) -> None:
        self._store = store
        self._embedder = embedder
        self.indexer = EmbeddingIndexer(store, embedder)

    async def run(self, request: SearchRequest, database: Bound = unbounded) -> SearchOutcome:
        """`database` bounds each database step; the query's embedding keeps its own timeout."""
        started = time.perf_counter()
        outcome = await self._run(request, database)
        if request.mode != "identifier":
            self.indexer.schedule()  # fill in vectors a failed pass left behind
        log.info(
            "memory.search",
            agent_id=request.agent_id,
            scope="contact" if request.user_id is not None else "agent",
            requested_mode=request.mode,
            mode=outcome.mode,
            reason=outcome.reason,
            k=request.k,
            hits=len(outcome.items),
            latency_ms=round((time.perf_counter() - started) * 1000, 1),
        )
        return outcome

    async def _run(self, request: SearchRequest, database: Bound) -> SearchOutcome:
        if request.mode == "identifier":
            found = self._store.identifier(request.agent_id, request.query, request.k)
            return SearchOutcome("identifier", False, None, tuple(await database(found)))
        if request.mode == "lexical":
            return _lexical(await database(self._lexical(request, request.k)), None)
        missing = await database(self._semantic_missing())
        if request.mode == "semantic":
            if missing is not None:
                raise CapabilityUnavailable(f"mode: {explained(missing)}", field="mode")
            vector = await self._embedder.embed([request.query])
            hits = await database(self._semantic(request, vector[0], request.k))
            return SearchOutcome("semantic", False, None, tuple(hits))
        if missing is not None:
            return _lexical(await database(self._lexical(request, request.k)), missing)
        return await self._hybrid(request, database)

    async def _hybrid(self, request: SearchRequest, database: Bound) -> SearchOutcome:
        # the text query runs while the query's embedding is requested; both are awaited
        lexical, vector = await asyncio.gather(
            database(self._lexical(request, CANDIDATES)),
            self._query_vector(request.query),
            return_exceptions=True,
        )
        if isinstance(lexical, BaseException):
            raise lexical
        if isinstance(vector, BaseException):
            raise vector
        if vector is None:
            return _lexical(tuple(lexical[: request.k]), EMBEDDING_FAILED)
        semantic = await database(self._semantic(request, vector, CANDIDATES))
        return SearchOutcome("hybrid", False, None, fuse([lexical, semantic], request.k))

    async def availability(self) -> SearchAvailability:
        """What a search will do here (the database's reading, once per process, and the
        model): the one answer `/healthz` gives too."""
        return with_model(await self._store.availability(), self._embedder.model)

    async def _semantic_missing(self) -> str | None:
        return (await self.availability()).reason

    async def _query_vector(self, query: str) -> str | None:
        try:
            return (await self._embedder.embed([query]))[0]
        except MemoryFailure as failure:
            log.warning("memory.search_embedding_failed", error_code=failure.code)
            return None

    async def _lexical(self, request: SearchRequest, n: int) -> list[SearchHit]:
        return await self._store.lexical(request.agent_id, request.user_id, request.query, n)

    async def _semantic(self, request: SearchRequest, vector: str, n: int) -> list[SearchHit]:
        assert self._embedder.model is not None
        return await self._store.semantic(
            request.agent_id, request.user_id, vector, self._embedder.model, n
        )

    async def aclose(self) -> None:
        await self.indexer.drain()
        await self._embedder.aclose()


def _lexical(hits: list[SearchHit] | tuple[SearchHit, ...], reason: str | None) -> SearchOutcome:
    return SearchOutcome("lexical", True, reason, tuple(hits))
