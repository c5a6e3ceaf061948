"""The values document collections return."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Collection:
    namespace: str
    embedding_model: str
    dimensions: int
    documents: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    id: str
    namespace: str
    source: str
    title: str
    content_type: str
    bytes: int
    model: str
    status: str  # pending | ready | failed
    error_code: str | None
    chunk_count: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Hit:
    content: str
    score: float  # the ranking's score, 0..1 (hybrid: fused ranks, `memory.documents._ranking`)
    chunk: int  # the chunk's position in its document, from 0
    document: DocumentInfo
    similarity: float  # 1 - cosine distance / 2: 1 same direction, 0.5 unrelated, 0 opposite


@dataclass(frozen=True, slots=True)
class TextHit:
    """A chunk found by text alone (`DocumentStore.lexical`)."""

    content: str
    text_rank: float  # its BM25 score in the collection (`memory.documents._lexical`)
    chunk: int
    document: DocumentInfo


@dataclass(frozen=True, slots=True)
class Retrieval:
    namespace: str
    model: str
    hits: tuple[Hit, ...]


@dataclass(frozen=True, slots=True)
class Original:
    document: DocumentInfo
    body: bytes
