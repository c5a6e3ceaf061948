"""Reciprocal rank fusion of chunks, as a pure function of two ranked lists."""

from __future__ import annotations

import pytest

from memory.documents._ranking import Ranked, fused


def chunk(document: str, position: int = 0, distance: float = 0.5) -> Ranked:
    return Ranked(document, position, distance)


def test_first_in_both_lists_scores_one_and_one_list_at_most_a_half() -> None:
    a, b, c = chunk("a", distance=0.2), chunk("b", distance=0.3), chunk("c", distance=0.9)
    ranked = fused([a, b], [a, c], 3)
    assert [(h.document, s) for h, s in ranked] == [("a", 1.0), ("b", 0.491935), ("c", 0.491935)]


def test_a_chunk_found_both_ways_beats_one_first_by_meaning_only() -> None:
    top, code = chunk("near"), chunk("code", distance=1.1)
    semantic = [top] + [chunk(f"s{i}") for i in range(30)] + [code]
    [(first, score), (second, _)] = fused(semantic, [code], 2)
    assert (first.document, second.document) == ("code", "near")
    assert score == pytest.approx((1 / 61 + 1 / 92) / (2 / 61), abs=1e-6)


def test_ties_go_to_the_nearer_chunk_then_document_and_position() -> None:
    far, near = chunk("x", 3, distance=0.8), chunk("y", 0, distance=0.1)
    assert [h.document for h, _ in fused([far], [near], 2)] == ["y", "x"]
    same = [chunk("b", 1), chunk("a", 2)]
    assert [h.document for h, _ in fused(same[:1], same[1:], 2)] == ["a", "b"]


def test_k_cuts_and_empty_lists_give_nothing() -> None:
    assert fused([], [], 5) == []
    assert len(fused([chunk(str(i)) for i in range(10)], [], 3)) == 3
    assert all(0 < s <= 0.5 for _, s in fused([chunk(str(i)) for i in range(50)], [], 50))
