"""Hybrid ranking: reciprocal rank fusion of the lexical and the semantic lists.

RRF scores a fact by `sum(1 / (RRF_K + rank))` over the lists it appears in (rank from 1). It
needs no calibration between a text rank and a cosine distance, which live on unrelated scales.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from memory.search._models import SearchHit

RRF_K: Final = 60  # the constant of Cormack, Clarke and Buettcher (2009)
CANDIDATES: Final = 50  # how deep each list is read before fusing


def fuse(lists: Sequence[Sequence[SearchHit]], k: int) -> tuple[SearchHit, ...]:
    """The top `k` facts by fused score; ties keep the order of first appearance."""
    scores: dict[str, float] = {}
    first: dict[str, SearchHit] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, start=1):
            key = hit.id or hit.contact
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(key, hit)
    order = sorted(scores, key=lambda key: -scores[key])  # stable: first appearance wins ties
    return tuple(replace(first[key], score=round(scores[key], 6)) for key in order[:k])
