"""Search over facts by words and by meaning: validation, lexical and semantic queries and
their fusion, the fact vectors (embeddings, background indexing) and search's own SQL.
"""

from memory.search._availability import (
    SearchAvailability,
    log_search_availability,
    read_search_availability,
    search_availability,
)
from memory.search._embeddings import EMBEDDING_DIMENSIONS, MAX_BATCH, EmbeddingModel
from memory.search._models import SEARCH_MODES, SearchHit, SearchOutcome
from memory.search._requests import DEFAULT_K, DEFAULT_MODE, search_request
from memory.search._search import Search
from memory.search._store import SearchStore

__all__ = [
    "DEFAULT_K",
    "DEFAULT_MODE",
    "EMBEDDING_DIMENSIONS",
    "MAX_BATCH",
    "SEARCH_MODES",
    "EmbeddingModel",
    "Search",
    "SearchAvailability",
    "SearchHit",
    "SearchOutcome",
    "SearchStore",
    "log_search_availability",
    "read_search_availability",
    "search_availability",
    "search_request",
]
