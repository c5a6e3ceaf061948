"""Hybrid ranking of chunks: reciprocal rank fusion of the semantic and the lexical list.

A chunk scores `sum(1 / (RRF_K + rank))` over the lists it is in (rank from 1), divided by
`2 / (RRF_K + 1)`, the score of a chunk first in both lists: so the score is between 0 and 1,
1 only for a chunk first by meaning and by text. A chunk in one list only scores at most 0.5;
one ranked first by meaning and tenth by text scores 0.93. RRF needs no calibration between a
cosine distance and a text rank, which live on unrelated scales (as for facts, `memory.search`).

The lexical list is picked by the query's rarest word: the word found in the fewest chunks of
the collection (at least one), provided it is in at most `LEXICAL_SELECTIVE` of them. A product
code in a question ("is SKU-88412-B in stock?") is that word, so its chunks are the list, ranked
by how densely they hold any of the query's words. A query whose every word is everywhere
("kettle" in a kettle shop) says nothing by text that meaning does not: it is ranked by meaning
alone. Words found nowhere (a typo) are passed over rather than emptying the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

RRF_K: Final = 60  # the constant of Cormack, Clarke and Buettcher (2009)
CANDIDATES: Final = 50  # how deep each list is read before fusing
LEXICAL_SELECTIVE: Final = 200  # the rarest word in more chunks than this: no text list
LEXICAL_WORDS: Final = 32  # distinct words of a query counted at most (a bound on its probes)
BEST: Final = 2.0 / (RRF_K + 1)


@dataclass(frozen=True, slots=True)
class Ranked:
    """One chunk of one list: its key (document id, position) and its cosine distance."""

    document: str
    chunk: int
    distance: float


def fused(
    semantic: Sequence[Ranked], lexical: Sequence[Ranked], k: int
) -> list[tuple[Ranked, float]]:
    """The top `k` chunks with their scores in [0, 1], best first. Ties: the chunk nearer in
    meaning first, then by document and position (a stable, repeatable order)."""
    scores: dict[tuple[str, int], float] = {}
    first: dict[tuple[str, int], Ranked] = {}
    for hits in (semantic, lexical):
        for rank, hit in enumerate(hits, start=1):
            key = (hit.document, hit.chunk)
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
            first.setdefault(key, hit)
    order = sorted(scores, key=lambda key: (-scores[key], first[key].distance, key))
    return [(first[key], min(1.0, round(scores[key] / BEST, 6))) for key in order[:k]]
