"""Search over facts by words and by meaning: validation, lexical and semantic queries and
their fusion, the fact vectors (embeddings, background indexing), search's own SQL, and the one
list of reasons search or documents do less than they could (`REASONS`).
"""

from memory.search._availability import (
    SearchAvailability,
    VectorFacts,
    document_vectors_missing,
    log_search_availability,
    read_search_availability,
    read_vector_facts,
    search_availability,
    with_model,
    write_problem,
)
from memory.search._embeddings import EMBEDDING_DIMENSIONS, MAX_BATCH, EmbeddingModel
from memory.search._models import SEARCH_MODES, SearchHit, SearchOutcome
from memory.search._reasons import (
    NO_EMBEDDING_MODEL,
    REASONS,
    WRITE_REASONS,
    Reason,
    explained,
    fix_of,
)
from memory.search._requests import DEFAULT_K, DEFAULT_MODE, search_request
from memory.search._search import Search
from memory.search._store import SearchStore

__all__ = [
    "DEFAULT_K",
    "DEFAULT_MODE",
    "EMBEDDING_DIMENSIONS",
    "MAX_BATCH",
    "NO_EMBEDDING_MODEL",
    "REASONS",
    "SEARCH_MODES",
    "WRITE_REASONS",
    "EmbeddingModel",
    "Reason",
    "Search",
    "SearchAvailability",
    "SearchHit",
    "SearchOutcome",
    "SearchStore",
    "VectorFacts",
    "document_vectors_missing",
    "explained",
    "fix_of",
    "log_search_availability",
    "read_search_availability",
    "read_vector_facts",
    "search_availability",
    "search_request",
    "with_model",
    "write_problem",
]
