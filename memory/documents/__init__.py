"""Document collections searched by meaning: ingest (text, Markdown, HTML, PDF), chunking,
embeddings in batches, the original for download, and `retrieve` for agents' tools.

Collections are shared by every agent of the deployment and named by a namespace.
"""

from memory.documents._chunking import CHUNK_CHARS, CHUNK_OVERLAP, chunk_text, fold_whitespace
from memory.documents._documents import Documents
from memory.documents._errors import RAG_ERROR_CODES, RAG_FAILURES, RagFailure, RagTooLarge
from memory.documents._models import Collection, DocumentInfo, Hit, Original, Retrieval
from memory.documents._parsing import CONTENT_TYPES, content_type_of, extract
from memory.documents._recovery import (
    DEFAULT_STALE_SECONDS,
    INTERRUPTED,
    MAX_RECOVERIES,
    Recovered,
    step_for,
)
from memory.documents._requests import (
    DEFAULT_NAMESPACE,
    DEFAULT_TOP_K,
    MAX_CHUNKS,
    MAX_DOCUMENT_BYTES,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    NAMESPACE_PATTERN,
)

__all__ = [
    "CHUNK_CHARS",
    "CHUNK_OVERLAP",
    "CONTENT_TYPES",
    "DEFAULT_NAMESPACE",
    "DEFAULT_STALE_SECONDS",
    "DEFAULT_TOP_K",
    "INTERRUPTED",
    "MAX_CHUNKS",
    "MAX_DOCUMENT_BYTES",
    "MAX_QUERY_CHARS",
    "MAX_RECOVERIES",
    "MAX_TOP_K",
    "NAMESPACE_PATTERN",
    "RAG_ERROR_CODES",
    "RAG_FAILURES",
    "Collection",
    "DocumentInfo",
    "Documents",
    "Hit",
    "Original",
    "RagFailure",
    "RagTooLarge",
    "Recovered",
    "Retrieval",
    "chunk_text",
    "content_type_of",
    "extract",
    "fold_whitespace",
    "step_for",
]
