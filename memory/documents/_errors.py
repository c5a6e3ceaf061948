"""Typed failures of document collections, with the `rag_*` codes.

They derive from `MemoryFailure`, so the envelope (`memory.contract.Result`) and the HTTP
boundary's one translation carry them as they are. Messages name fields and rules, never a
document's text or a query.
"""

from __future__ import annotations

from memory.contract import MemoryFailure


class RagFailure(MemoryFailure):
    code = "rag_failure"


class RagInvalidRequest(RagFailure):
    code = "rag_invalid_request"


class RagTooLarge(RagFailure):
    """An upload past the size limit."""

    code = "rag_too_large"


class RagUnsupportedType(RagFailure):
    """A content type that is not one of `CONTENT_TYPES`."""

    code = "rag_unsupported_type"


class RagUnreadable(RagFailure):
    """The bytes are not what the content type says (bad UTF-8, a broken PDF, no text)."""

    code = "rag_unreadable_document"


class RagParseTimeout(RagFailure):
    """Reading and chunking the upload took longer than its own bound (never the database's)."""

    code = "rag_parse_timeout"


class RagNotFound(RagFailure):
    code = "rag_not_found"


class RagModelMismatch(RagFailure):
    """The collection was embedded with another model (or dimension) than this request's."""

    code = "rag_model_mismatch"


class RagModelFailed(RagFailure):
    code = "rag_model_failed"


class RagPersistFailed(RagFailure):
    code = "rag_persist_failed"


class RagSchemaMissing(RagFailure):
    code = "rag_schema_missing"


class RagUnavailable(RagFailure):
    code = "rag_unavailable"


RAG_FAILURES: tuple[type[RagFailure], ...] = (
    RagInvalidRequest,
    RagTooLarge,
    RagUnsupportedType,
    RagUnreadable,
    RagParseTimeout,
    RagNotFound,
    RagModelMismatch,
    RagModelFailed,
    RagPersistFailed,
    RagSchemaMissing,
    RagUnavailable,
)
RAG_ERROR_CODES: tuple[str, ...] = tuple(cls.code for cls in RAG_FAILURES)
