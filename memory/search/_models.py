"""Values of search: what was asked, what was found, and how it was ranked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from memory.contract import Source

SearchMode = Literal["lexical", "semantic", "hybrid", "identifier"]
SEARCH_MODES: tuple[SearchMode, ...] = ("lexical", "semantic", "hybrid", "identifier")


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
    source: Source | None = None  # the fact's current version's (None: an identifier hit)


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    mode: SearchMode  # the ranking actually used
    lexical_only: bool
    reason: str | None  # why a hybrid search fell back to lexical ranking (`_reasons`)
    items: tuple[SearchHit, ...]
