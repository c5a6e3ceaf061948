"""Validation of every value a caller hands to document collections; each refusal names its
field and rule (`rag_invalid_request`, or `rag_too_large` for size)."""

from __future__ import annotations

import re

from memory.documents._errors import RagInvalidRequest, RagTooLarge

DEFAULT_NAMESPACE = "default"
NAMESPACE_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
MAX_QUERY_CHARS = 1000
DEFAULT_TOP_K = 5
MAX_TOP_K = 20
MAX_SOURCE_CHARS = 500
MAX_TITLE_CHARS = 200
MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
MAX_CHUNKS = 15_000  # a plain text at the byte limit makes about 13,100
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UUID = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def namespace(value: object) -> str:
    if value is None:
        return DEFAULT_NAMESPACE
    if not isinstance(value, str) or NAMESPACE_PATTERN.fullmatch(value) is None:
        raise RagInvalidRequest(
            "namespace: 1 to 63 characters of a-z, 0-9, '_' and '-', starting with a letter"
            " or digit",
            field="namespace",
        )
    return value


def query(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RagInvalidRequest("text: must be a non-blank string", field="text")
    if len(value) > MAX_QUERY_CHARS:
        raise RagInvalidRequest(f"text: at most {MAX_QUERY_CHARS} characters", field="text")
    return value


def top_k(value: object) -> int:
    if type(value) is not int or not 1 <= value <= MAX_TOP_K:
        raise RagInvalidRequest(f"top_k: an integer from 1 to {MAX_TOP_K}", field="top_k")
    return value


def _label(value: object, field: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RagInvalidRequest(f"{field}: must be a non-blank string", field=field)
    if len(value) > limit:
        raise RagInvalidRequest(f"{field}: at most {limit} characters", field=field)
    if _CONTROL.search(value):
        raise RagInvalidRequest(f"{field}: must not contain control characters", field=field)
    return value


def source(value: object) -> str:
    return _label(value, "source", MAX_SOURCE_CHARS)


def title(value: object) -> str | None:
    return None if value is None else _label(value, "title", MAX_TITLE_CHARS)


def document_bytes(value: object) -> bytes:
    if not isinstance(value, bytes):
        raise RagInvalidRequest("document: must be bytes", field="document")
    return value


def document_size(size: int) -> int:
    if size > MAX_DOCUMENT_BYTES:
        raise RagTooLarge(f"document: at most {MAX_DOCUMENT_BYTES} bytes", field="document")
    if size == 0:
        raise RagInvalidRequest("document: must not be empty", field="document")
    return size


def chunk_count(count: int) -> int:
    if count > MAX_CHUNKS:
        raise RagTooLarge(f"document: at most {MAX_CHUNKS} chunks of text", field="document")
    return count


def document_id(value: object) -> str:
    if not isinstance(value, str) or _UUID.fullmatch(value) is None:
        raise RagInvalidRequest("document_id: must be a lower-case UUID", field="document_id")
    return value
