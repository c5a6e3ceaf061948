"""Values of search: what was asked, what was found, and how it was ranked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SearchMode = Literal["lexical", "semantic", "hybrid", "identifier"]
SEARCH_MODES: tuple[SearchMode, ...] = ("lexical", "semantic", "hybrid", "identifier")

# Why a hybrid search ranked by text alone.
NO_EMBEDDING_MODEL = "embedding_model_not_configured"
NO_VECTOR_EXTENSION = "vector_extension_missing"
EMBEDDING_FAILED = "embedding_request_failed"


@dataclass(frozen=True, slots=True)
class SearchRequest:
    agent_id: str
    query: str
    user_id: str | None  # None: every contact of the agent
    k: int
    mode: SearchMode


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One fact found (identifier search: one contact, with no fact)."""

    contact: str
    id: str | None
    text: str | None
    score: float


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    mode: SearchMode  # the ranking actually used
    lexical_only: bool
    reason: str | None  # why a hybrid search fell back to lexical ranking
    items: tuple[SearchHit, ...]
