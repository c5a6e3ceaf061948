"""The one list of reasons search or documents do less than they could, each with its one fix.

`/healthz` (`searchReason`, and `reason` when memory writes fail), search answers (`reason`,
and the message of a `capability_unavailable` semantic search), document errors (the message
of `rag_unavailable` starts with the code) and docs/deployment.md all name these codes; the
docs table is checked against this list by a test.
"""

from __future__ import annotations

from dataclasses import dataclass

SEE = "docs/deployment.md#your-own-postgres"

NO_PGVECTOR = "vector_extension_missing"
NO_HNSW = "vector_without_hnsw"
NOT_ENABLED = "semantic_search_not_enabled"
NOT_WRITABLE = "vectors_not_writable"
PRIVILEGE_MISSING = "privilege_missing"
NO_EMBEDDING_MODEL = "embedding_model_not_configured"
EMBEDDING_FAILED = "embedding_request_failed"
_ENABLE = (
    "select stackbone_platform.enable_semantic_search();"
    " select stackbone_platform.enable_document_vectors(); then restart both processes"
)


@dataclass(frozen=True, slots=True)
class Reason:
    code: str
    meaning: str
    fix: str


REASONS: dict[str, Reason] = {
    r.code: r
    for r in (
        Reason(
            NO_PGVECTOR,
            "the server has no pgvector",
            "install pgvector 0.5 or later on the server (e.g. the PGDG postgresql-15-pgvector"
            f" package); then, as a superuser: create extension vector; {_ENABLE}",
        ),
        Reason(
            NO_HNSW,
            "pgvector is older than 0.5 (no HNSW index)",
            "upgrade the pgvector package, run alter extension vector update as a superuser;"
            f" then {_ENABLE}",
        ),
        Reason(
            NOT_ENABLED,
            "pgvector is there, the vector tables are not",
            f"as a superuser: create extension if not exists vector; {_ENABLE}",
        ),
        Reason(
            NOT_WRITABLE,
            "the fact vectors' table belongs to another role: every memory write fails",
            "run select stackbone_platform.enable_semantic_search() again as a superuser"
            " (it hands the table to the service's role)",
        ),
        Reason(
            PRIVILEGE_MISSING,
            "the service's role lacks a privilege on its schema or tables: writes fail",
            "let the service's role own the schema stackbone_platform and its tables"
            " (alter ... owner to the role), or grant what the message names",
        ),
        Reason(
            NO_EMBEDDING_MODEL,
            "no embedding model is configured (STACKBONE_MEMORY_EMBEDDING_MODEL set empty)",
            "unset STACKBONE_MEMORY_EMBEDDING_MODEL (the default, openai/text-embedding-3-small)"
            " or name a model, with the provider's key, and restart",
        ),
        Reason(
            EMBEDDING_FAILED,
            "the query's embedding request failed (this search only)",
            "none needed: the next search asks the model again; check the provider if it lasts",
        ),
    )
}
"""Every reason by code: what it means and the one fix it needs."""

WRITE_REASONS = frozenset({NOT_WRITABLE, PRIVILEGE_MISSING})
"""The reasons memory writes fail for: `/healthz` answers 503 `degraded` with them."""


def fix_of(code: str) -> str:
    """The fix the reason `code` needs (its docs anchor included)."""
    return f"{REASONS[code].fix} ({SEE})"


def explained(code: str) -> str:
    """`<code>: <meaning>; fix: <fix>`: the message of an error a reason caused."""
    return f"{code}: {REASONS[code].meaning}; fix: {fix_of(code)}"
