"""Document collections as the documents routes answer them and `caller-memory docs ...`
prints them: the collections, a collection's documents, one document, a search's hits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Self

from worker.http.server.answers.base import Answer, Number, Timestamp

if TYPE_CHECKING:
    from memory.documents import Collection, DocumentInfo, Hit, Retrieval


class CollectionItem(Answer):
    namespace: str
    embedding_model: str
    dimensions: int
    documents: int
    created_at: Timestamp

    @classmethod
    def of(cls, collection: Collection) -> Self:
        return cls(
            namespace=collection.namespace,
            embedding_model=collection.embedding_model,
            dimensions=collection.dimensions,
            documents=collection.documents,
            created_at=collection.created_at,
        )


class Collections(Answer):
    collections: list[CollectionItem]

    @classmethod
    def of(cls, collections: tuple[Collection, ...]) -> Self:
        return cls(collections=[CollectionItem.of(c) for c in collections])


class DocumentItem(Answer):
    id: str
    namespace: str
    source: str
    title: str
    content_type: str
    bytes: int
    model: str
    status: Literal["pending", "ready", "failed"]
    error_code: str | None
    chunk_count: int
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, doc: DocumentInfo) -> Self:
        return cls(
            id=doc.id,
            namespace=doc.namespace,
            source=doc.source,
            title=doc.title,
            content_type=doc.content_type,
            bytes=doc.bytes,
            model=doc.model,
            status=doc.status,
            error_code=doc.error_code,
            chunk_count=doc.chunk_count,
            created_at=doc.created_at,
            updated_at=doc.updated_at,
        )


class DocumentList(Answer):
    namespace: str
    documents: list[DocumentItem]

    @classmethod
    def of(cls, namespace: str, documents: tuple[DocumentInfo, ...]) -> Self:
        return cls(namespace=namespace, documents=[DocumentItem.of(d) for d in documents])


class DocumentHit(Answer):
    content: str
    score: Number
    similarity: Number
    chunk: int
    document: DocumentItem

    @classmethod
    def of(cls, hit: Hit) -> Self:
        return cls(
            content=hit.content,
            score=hit.score,
            similarity=hit.similarity,
            chunk=hit.chunk,
            document=DocumentItem.of(hit.document),
        )


class DocumentSearch(Answer):
    namespace: str
    model: str
    hits: list[DocumentHit]

    @classmethod
    def of(cls, found: Retrieval) -> Self:
        hits = [DocumentHit.of(hit) for hit in found.hits]
        return cls(namespace=found.namespace, model=found.model, hits=hits)
