"""Hybrid ranking of chunks: reciprocal rank fusion of the semantic and the lexical list.

A chunk scores `sum(1 / (RRF_K + rank))` over the lists it is in (rank from 1), divided by
`2 / (RRF_K + 1)`, the score of a chunk first in both lists: so the score is between 0 and 1,
1 only for a chunk first by meaning and by text. A chunk in one list only scores at most 0.5;
one ranked first by meaning and tenth by text scores 0.93. RRF needs no calibration between a
cosine distance and a text rank, which live on unrelated scales (as for facts, `memory.search`).

The lexical list ranks chunks by all of a query's words (`memory.documents._lexical`): the
query's stop words in the collection's language are left out, and each remaining word found in
at most `LEXICAL_SELECTIVE` chunks of the collection weighs by its rarity (BM25). A product code
in a question ("is SKU-88412-B in stock?") is in one chunk, so it outweighs the rest; an ordinary
question's content words together point at the chunk holding most of them. A word in every
chunk ("kettle" in a kettle shop) says nothing by text that meaning does not: it is left out, and
a query of only such words is ranked by meaning alone. Words found nowhere (a typo) are passed
over rather than emptying the list.

Only the chunks scoring at least `LEXICAL_SHARE` of the best text score join the fusion. RRF
weighs ranks, not how far apart the scores are: a sheet holding the asked-for code scores far
above sheets sharing only `sku` and a letter, but with them in the list as second and third, a
sheet second by text and first by meaning would outrank it. What scores far below the best says
little by text; meaning still ranks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

RRF_K: Final = 60  # the constant of Cormack, Clarke and Buettcher (2009)
CANDIDATES: Final = 50  # how deep each list is read before fusing
LEXICAL_SELECTIVE: Final = 200  # a word in more chunks than this is left out of the text list
LEXICAL_SHARE: Final = 0.5  # in the fused text list: chunks scoring at least this share of the best
LEXICAL_WORDS: Final = 32  # distinct words of a query counted at most (a bound on its probes)
BM25_K1: Final = 1.2  # how soon a word's repeats stop adding (Robertson and Zaragoza, 2009)
BM25_B: Final = 0.3  # how much a chunk's length discounts its words (chunks are short: little)
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
