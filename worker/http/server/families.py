"""Route families: which error codes a route answers with.

The web layer's shared steps (reading and checking a JSON body, the database deadline) raise
the memory core's generic failures, `memory_invalid_request` and `memory_unavailable`. A route
of the documents family answers them with its own codes, `rag_invalid_request` and
`rag_unavailable` (the table in docs/documents.md), so a client of one family meets that
family's codes and the web layer's shared ones (`unauthorized`, `payload_too_large`, ...), never
another family's. `worker.http.server.context.guarded` renames once, as the route's failure
leaves it. Pure: a failure in, the family's failure out.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from memory.contract import InvalidRequest, MemoryFailure, Unavailable
from memory.documents import RAG_FAILURES

Family = Literal["memory", "documents"]

_RAG: Final = {failure.code: failure for failure in RAG_FAILURES}
_RENAMED: Final[Mapping[Family, Mapping[str, type[MemoryFailure]]]] = MappingProxyType(
    {
        "memory": {},
        "documents": {
            InvalidRequest.code: _RAG["rag_invalid_request"],
            Unavailable.code: _RAG["rag_unavailable"],
        },
    }
)


def in_family(failure: MemoryFailure, family: Family) -> MemoryFailure:
    """`failure` under the family's own code (itself when the family has no other)."""
    renamed = _RENAMED[family].get(failure.code)
    if renamed is None or type(failure) is renamed:
        return failure
    return renamed(failure.message, field=failure.field)
