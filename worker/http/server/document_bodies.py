"""Document collections as JSON (camelCase, ISO timestamps) for the HTTP API and the
`caller-memory docs ...` commands, and the answer models describing them in OpenAPI."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from memory.documents import Collection, DocumentInfo, Retrieval

Body = dict[str, Any]


def collection_body(collection: Collection) -> Body:
    return {
        "namespace": collection.namespace,
        "embeddingModel": collection.embedding_model,
        "dimensions": collection.dimensions,
        "documents": collection.documents,
        "createdAt": collection.created_at.isoformat(),
    }


def document_body(doc: DocumentInfo) -> Body:
    return {
        "id": doc.id,
        "namespace": doc.namespace,
        "source": doc.source,
        "title": doc.title,
        "contentType": doc.content_type,
        "bytes": doc.bytes,
        "model": doc.model,
        "status": doc.status,
        "errorCode": doc.error_code,
        "chunkCount": doc.chunk_count,
        "createdAt": doc.created_at.isoformat(),
        "updatedAt": doc.updated_at.isoformat(),
    }


def collections_body(collections: tuple[Collection, ...]) -> Body:
    return {"collections": [collection_body(c) for c in collections]}


def documents_body(namespace: str, documents: tuple[DocumentInfo, ...]) -> Body:
    return {"namespace": namespace, "documents": [document_body(d) for d in documents]}


def retrieval_body(found: Retrieval) -> Body:
    return {
        "namespace": found.namespace,
        "model": found.model,
        "hits": [
            {
                "content": hit.content,
                "score": hit.score,
                "similarity": hit.similarity,
                "chunk": hit.chunk,
                "document": document_body(hit.document),
            }
            for hit in found.hits
        ],
    }


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CollectionItem(_Answer):
    namespace: str
    embeddingModel: str
    dimensions: int
    documents: int
    createdAt: str


class Collections(_Answer):
    collections: list[CollectionItem]


class DocumentItem(_Answer):
    id: str
    namespace: str
    source: str
    title: str
    contentType: str
    bytes: int
    model: str
    status: Literal["pending", "ready", "failed"]
    errorCode: str | None
    chunkCount: int
    createdAt: str
    updatedAt: str


class DocumentList(_Answer):
    namespace: str
    documents: list[DocumentItem]


class DocumentHit(_Answer):
    content: str
    score: float
    similarity: float
    chunk: int
    document: DocumentItem


class DocumentSearch(_Answer):
    namespace: str
    model: str
    hits: list[DocumentHit]
