"""The SQL of document collections (migration 0011). Database errors become `rag_*` failures
here, once: a missing table is `rag_schema_missing`, anything else the failure the caller names.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import asyncpg

from memory.documents._errors import (
    RagFailure,
    RagPersistFailed,
    RagSchemaMissing,
    RagUnavailable,
)
from memory.documents._lexical import text_list
from memory.documents._models import Collection, DocumentInfo, Hit, TextHit
from memory.documents._ranking import (
    CANDIDATES,
    LEXICAL_SELECTIVE,
    LEXICAL_SHARE,
    Ranked,
    fused,
)
from memory.search import document_vectors_missing, read_vector_facts
from memory.store import DB_ERRORS, MISSING, privileges

_S = "stackbone_platform"
_DOC_COLUMNS = """d.id::text, c.namespace, d.source, d.title, d.content_type, d.bytes, d.model,
    d.status, d.error_code, d.chunk_count, d.created_at, d.updated_at"""
_DOC_FROM = f"{_S}.doc_documents d join {_S}.doc_collections c on c.id = d.collection_id"

_COLLECTION = (
    f"select id, embedding_model, dimensions from {_S}.doc_collections where namespace = $1"
)
_NEW_COLLECTION = f"""insert into {_S}.doc_collections (namespace, embedding_model, dimensions)
    values ($1, $2, $3) on conflict (namespace) do nothing"""
_COLLECTIONS = f"""select c.namespace, c.embedding_model, c.dimensions,
        (select count(*) from {_S}.doc_documents d where d.collection_id = c.id)::int,
        c.created_at
    from {_S}.doc_collections c order by c.namespace"""
_START = f"""with doc as (
        insert into {_S}.doc_documents
            (collection_id, source, title, content_type, bytes, model)
        values ($1, $2, $3, $4, $5, $6) returning id)
    insert into {_S}.doc_originals (document_id, body) select id, $7 from doc
    returning document_id::text"""
_LOCK_SOURCE = (
    "select pg_advisory_xact_lock(hashtextextended(format('%s:%s', $1::bigint, $2::text), 0))"
)
_STILL_PENDING = f"""select 1 from {_S}.doc_documents
    where id = $1 and status = 'pending' for update"""
_DROP_OLDER = f"""delete from {_S}.doc_documents
    where collection_id = $1 and source = $2 and id <> $3 and status <> 'pending'"""
# a document's chunks go in slices of WRITE_BATCH rows, each one statement (with its HNSW and
# text index upkeep) well inside the pool's statement timeout, all in the document's one
# transaction; `$5` is the slice's first position
WRITE_BATCH = 500
_CHUNKS = f"""insert into {_S}.doc_chunks (document_id, seq, collection_id, content, embedding)
    select $1, $5 + u.seq - 1, $2, u.content, u.e::vector
    from unnest($3::text[], $4::text[]) with ordinality as u(content, e, seq)"""
_READY = f"""update {_S}.doc_documents
    set status = 'ready', chunk_count = $2, updated_at = now() where id = $1"""
_FAILED = f"""update {_S}.doc_documents
    set status = 'failed', error_code = $2, updated_at = now()
    where id = $1 and status = 'pending'"""
_TOUCH = f"""update {_S}.doc_documents set updated_at = now()
    where id = $1 and status = 'pending'"""
# the oldest document pending and untouched for $1 seconds, claimed: one process takes it
_CLAIM = f"""update {_S}.doc_documents d
    set updated_at = now(), ingest_attempts = d.ingest_attempts + 1
    where d.id = (select id from {_S}.doc_documents
                  where status = 'pending' and updated_at < now() - make_interval(secs => $1)
                  order by updated_at limit 1 for update skip locked)
    returning d.id::text, d.ingest_attempts"""
_ABANDONED = f"""select c.namespace, d.source, d.title, d.content_type, o.body
    from {_DOC_FROM} join {_S}.doc_originals o on o.document_id = d.id
    where d.id = $1::uuid and d.status = 'pending'"""
_DOCUMENTS = f"""select {_DOC_COLUMNS} from {_DOC_FROM}
    where c.namespace = $1 order by d.created_at, d.id"""
_DOCUMENT = f"select {_DOC_COLUMNS} from {_DOC_FROM} where d.id = $1::uuid"
_ORIGINAL = f"select body from {_S}.doc_originals where document_id = $1::uuid"
_DELETE = f"delete from {_S}.doc_documents where id = $1::uuid"
_NEAREST = f"""select n.content, n.distance, n.seq, {_DOC_COLUMNS}
    from {_S}.nearest_chunks($1, $2::text::vector, $3) n
    join {_S}.doc_documents d on d.id = n.document_id
    join {_S}.doc_collections c on c.id = d.collection_id
    order by n.distance, n.document_id, n.seq"""
# Both lists of hybrid ranking in one round trip, every row with its cosine distance, its list
# (0: meaning, 1: text) and its rank there. Meaning: the nearest chunks (HNSW). Text: the chunks
# holding the query's words, by BM25 (`memory.documents._lexical`), the best $3 of those scoring
# at least LEXICAL_SHARE of the best one (`memory.documents._ranking`).
_HYBRID = f"""with semantic as (
        select n.document_id, n.seq, n.content, n.distance
        from {_S}.nearest_chunks($1, $2::text::vector, $3) n),
    {text_list("$1", "$4", "$5")},
    lexical as (
        select c.document_id, c.seq, c.content, c.embedding <=> $2::text::vector as distance,
            s.text_rank
        from scored s join {_S}.doc_chunks c on (c.document_id, c.seq) = (s.document_id, s.seq)
        where s.text_rank >= {LEXICAL_SHARE} * (select max(text_rank) from scored)
        order by s.text_rank desc, s.document_id, s.seq
        limit $3),
    both_lists as (
        select 0 as list, row_number() over (order by distance, document_id, seq) as rank,
            document_id, seq, content, distance from semantic
        union all
        select 1, row_number() over (order by text_rank desc, document_id, seq),
            document_id, seq, content, distance from lexical)
    select b.list, b.rank, b.content, b.distance, b.seq, {_DOC_COLUMNS}
    from both_lists b
    join {_S}.doc_documents d on d.id = b.document_id
    join {_S}.doc_collections c on c.id = d.collection_id"""
# The text list alone, best first (no vector read: it needs no pgvector).
_LEXICAL = f"""with {text_list("$1", "$2", "$4")}
    select k.content, s.text_rank, k.seq, {_DOC_COLUMNS}
    from scored s
    join {_S}.doc_chunks k on (k.document_id, k.seq) = (s.document_id, s.seq)
    join {_S}.doc_documents d on d.id = s.document_id
    join {_S}.doc_collections c on c.id = d.collection_id
    order by s.text_rank desc, s.document_id, s.seq
    limit $3"""
# a collection takes the language of its first document that shows one (0023)
_LANGUAGE = f"""update {_S}.doc_collections
    set language = {_S}.text_language($2) where id = $1 and language is null"""
LANGUAGE_SAMPLE = 20  # chunks of a document read for its language


@contextlib.asynccontextmanager
async def rag_translated(failure: type[RagFailure], what: str) -> AsyncIterator[None]:
    try:
        yield
    except RagFailure:
        raise
    except MISSING:
        raise RagSchemaMissing("the documents migration (0011) has not been applied") from None
    except asyncpg.InsufficientPrivilegeError as exc:
        raise failure(f"{what} failed: {privileges(exc, failure)}") from exc
    except DB_ERRORS as exc:
        raise failure(f"{what} failed: {type(exc).__name__}") from exc


@dataclass(frozen=True, slots=True)
class NewDocument:
    collection: int
    source: str
    title: str
    content_type: str
    body: bytes
    model: str


@dataclass(frozen=True, slots=True)
class Abandoned:
    """What an ingest needs again: the kept original and its labels."""

    namespace: str
    source: str
    title: str
    content_type: str
    body: bytes


@dataclass(frozen=True, slots=True)
class Claimed:
    id: str
    attempts: int  # recoveries so far, this one included
    original: Abandoned | None  # None: no longer pending


def document_of(row: asyncpg.Record | tuple[Any, ...], at: int = 0) -> DocumentInfo:
    return DocumentInfo(*row[at : at + 12])


def score(distance: float) -> float:
    """Cosine distance (0..2) as a score from 0 to 1."""
    return min(1.0, max(0.0, 1.0 - distance / 2.0))


class DocumentStore:
    def __init__(self, pool: asyncpg.Pool, *, lexical_selective: int = LEXICAL_SELECTIVE) -> None:
        self._pool = pool
        self._selective = lexical_selective

    async def vectors_missing(self) -> str | None:
        """Why documents cannot be embedded here, a reason of `memory.search.REASONS` (None:
        their vectors are enabled)."""
        async with rag_translated(RagUnavailable, "documents capability check"):
            return document_vectors_missing(await read_vector_facts(self._pool))

    async def collection(self, namespace: str) -> asyncpg.Record | None:
        async with rag_translated(RagUnavailable, "collection lookup"):
            row: asyncpg.Record | None = await self._pool.fetchrow(_COLLECTION, namespace)
            return row

    async def ensure_collection(self, namespace: str, model: str, dims: int) -> asyncpg.Record:
        async with rag_translated(RagPersistFailed, "collection creation"):
            await self._pool.execute(_NEW_COLLECTION, namespace, model, dims)
            row: asyncpg.Record | None = await self._pool.fetchrow(_COLLECTION, namespace)
        assert row is not None  # inserted above, or there already
        return row

    async def collections(self) -> list[Collection]:
        async with rag_translated(RagUnavailable, "collection listing"):
            return [Collection(*r) for r in await self._pool.fetch(_COLLECTIONS)]

    async def start(self, new: NewDocument) -> str:
        """A `pending` document and its original, in one statement."""
        async with rag_translated(RagPersistFailed, "document creation"):
            found: str = await self._pool.fetchval(
                _START,
                new.collection,
                new.source,
                new.title,
                new.content_type,
                len(new.body),
                new.model,
                new.body,
            )
            return found

    async def finish(
        self, document: str, collection: int, source: str, chunks: list[str], vectors: list[str]
    ) -> bool:
        """Chunks and vectors in, older documents of the source out, status `ready`: one
        transaction. False when the document was deleted meanwhile (nothing is written)."""
        async with (
            rag_translated(RagPersistFailed, "document write"),
            self._pool.acquire() as conn,
            conn.transaction(),
        ):
            await conn.execute(_LOCK_SOURCE, collection, source)
            if await conn.fetchval(_STILL_PENDING, document) is None:
                return False
            await conn.execute(_DROP_OLDER, collection, source, document)
            await conn.execute(_LANGUAGE, collection, " ".join(chunks[:LANGUAGE_SAMPLE]))
            for at in range(0, len(chunks), WRITE_BATCH):
                part = slice(at, at + WRITE_BATCH)
                await conn.execute(_CHUNKS, document, collection, chunks[part], vectors[part], at)
            await conn.execute(_READY, document, len(chunks))
            return True

    async def fail(self, document: str, code: str) -> None:
        async with rag_translated(RagPersistFailed, "document status"):
            await self._pool.execute(_FAILED, document, code)

    async def touch(self, document: str) -> None:
        """Mark an ingest under way as alive (recovery passes over it)."""
        async with rag_translated(RagPersistFailed, "document status"):
            await self._pool.execute(_TOUCH, document)

    async def claim_abandoned(self, stale_seconds: float) -> Claimed | None:
        """The oldest document left `pending` for `stale_seconds`, claimed, with its original;
        None when there is none."""
        async with rag_translated(RagUnavailable, "abandoned ingest claim"):
            claimed = await self._pool.fetchrow(_CLAIM, stale_seconds)
            if claimed is None:
                return None
            row = await self._pool.fetchrow(_ABANDONED, claimed[0])
        if row is None:  # deleted or finished meanwhile
            return Claimed(claimed[0], claimed[1], None)
        return Claimed(claimed[0], claimed[1], Abandoned(*row))

    async def documents(self, namespace: str) -> list[DocumentInfo]:
        async with rag_translated(RagUnavailable, "document listing"):
            return [document_of(r) for r in await self._pool.fetch(_DOCUMENTS, namespace)]

    async def document(self, document: str) -> DocumentInfo | None:
        async with rag_translated(RagUnavailable, "document lookup"):
            row = await self._pool.fetchrow(_DOCUMENT, document)
            return None if row is None else document_of(row)

    async def original(self, document: str) -> bytes | None:
        async with rag_translated(RagUnavailable, "original download"):
            body: bytes | None = await self._pool.fetchval(_ORIGINAL, document)
            return body

    async def delete(self, document: str) -> bool:
        async with rag_translated(RagPersistFailed, "document deletion"):
            return str(await self._pool.execute(_DELETE, document)) == "DELETE 1"

    async def nearest(self, collection: int, vector: str, n: int) -> list[Hit]:
        """By meaning alone: the score is the similarity (`score`)."""
        async with rag_translated(RagUnavailable, "document search"):
            rows = await self._pool.fetch(_NEAREST, collection, vector, n)
        return [_hit(r, score(float(r[1]))) for r in rows]

    async def hybrid(self, collection: int, vector: str, query: str, n: int) -> list[Hit]:
        """By meaning and by text, fused (`memory.documents._ranking`)."""
        async with rag_translated(RagUnavailable, "document search"):
            rows = await self._pool.fetch(
                _HYBRID, collection, vector, CANDIDATES, query, self._selective
            )
        rows = sorted(rows, key=lambda r: (r[0], r[1]))
        found = {(r[5], int(r[4])): tuple(r)[2:] for r in rows}  # by document id, position
        semantic, lexical = (
            [Ranked(r[5], int(r[4]), float(r[3])) for r in rows if r[0] == which]
            for which in (0, 1)
        )
        return [_hit(found[(h.document, h.chunk)], s) for h, s in fused(semantic, lexical, n)]

    async def lexical(self, collection: int, query: str, n: int) -> list[TextHit]:
        """By text alone: the text list of hybrid ranking, its best `n`."""
        async with rag_translated(RagUnavailable, "document search"):
            rows = await self._pool.fetch(_LEXICAL, collection, query, n, self._selective)
        return [TextHit(r[0], float(r[1]), int(r[2]), document_of(r, 3)) for r in rows]


def _hit(row: asyncpg.Record | tuple[Any, ...], ranked: float) -> Hit:
    """From `content, distance, seq, <document columns>`; `ranked` is the hit's score."""
    return Hit(row[0], ranked, int(row[2]), document_of(row, 3), score(float(row[1])))
